package transport

import (
	"fmt"
	"testing"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// Many callers, each making calls one after another over one stdio
// transport: every call gets its own answer. Answers arrive in runs that
// the reader hands the actor, callers' requests arrive at the same time,
// and the writer is busy, so each of the mailbox's ways to run the actor
// (inline, at home, a goroutine of its own) is taken many times.
func TestConcurrentEchoes(t *testing.T) {
	s := startServer(t, testserver.Options{}, nil, nil, nil)
	ctx := harness.Context(t)
	const callers, each = 64, 40
	_, errs := concurrently(t, callers, func(i int) (string, error) {
		for j := range each {
			want := fmt.Sprintf("caller %d call %d", i, j)
			got, err := s.echo(ctx, want)
			if err != nil {
				return "", err
			}
			if got != want {
				return "", fmt.Errorf("echo %q answered %q", want, got)
			}
		}
		return "", nil
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
	}
	if st := s.conn.Stats(); st != (Stats{}) {
		t.Errorf("stats %+v, want nothing dropped", st)
	}
}
