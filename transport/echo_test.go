package transport

import (
	"context"
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
	echoesFromCallers(t, 64, 40, "", s.echo)
	if st := s.conn.Stats(); st != (Stats{}) {
		t.Errorf("stats %+v, want nothing dropped", st)
	}
}

// echoesFromCallers runs callers goroutines at once, each making each
// calls of echo one after another, and fails the test for any call that
// does not get its own message back.
func echoesFromCallers(t *testing.T, callers, each int, prefix string, echo func(context.Context, string) (string, error)) {
	t.Helper()
	ctx := harness.Context(t)
	_, errs := concurrently(t, callers, func(i int) (string, error) {
		for j := range each {
			want := fmt.Sprintf("%scaller %d call %d", prefix, i, j)
			got, err := echo(ctx, want)
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
}
