package transport

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// writtenOn records the goroutine its request was written from (Written
// runs as the write starts, on the goroutine that writes).
type writtenOn struct {
	observer
	gid atomic.Uint64
}

func (o *writtenOn) Written() { o.gid.Store(goroutineID()) }

// A caller whose request finds the stdio transport idle writes its frame
// itself, as the run of the actor it made for its request ends: the
// writer goroutine is not woken for it (batchWriter.flushOwed). Calls
// made one after another mostly find it idle; before, every frame was
// written by the writer goroutine.
func TestIdleTransportIsWrittenByTheCaller(t *testing.T) {
	if useDefaultMailbox {
		t.Skip("protoactor's mailbox has no end-of-run hook: the writer goroutine writes every frame")
	}
	s := startServer(t, testserver.Options{}, nil, nil, nil)
	ctx := harness.Context(t)
	s.mustEcho("warm-up")
	const calls = 100
	own := 0
	for i := range calls {
		obs := new(writtenOn)
		if _, err := s.conn.Call(ctx, "tools/call", toolParams("echo", map[string]any{"message": "m"}), RequestOptions{Observer: obs}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if obs.gid.Load() == goroutineID() {
			own++
		}
	}
	t.Logf("%d of %d requests written by their caller", own, calls)
	if own < calls/2 {
		t.Errorf("%d of %d requests written by their caller's goroutine, want most", own, calls)
	}
}

// A server that reads slowly: the pipe fills, the writes made without
// waiting take part of a batch or none, and the writer goroutine writes
// the rest when the server reads again. Every frame arrives whole and in
// order: each call gets its own answer.
func TestFullPipeHandsTheRestToTheWriter(t *testing.T) {
	s := startServer(t, testserver.Options{ReadDelay: 5 * time.Millisecond}, nil, nil, nil)
	s.mustEcho("up")
	// 8 callers with frames of 20 to 55 KiB, four calls each, for a pipe
	// of 64 KiB: two frames rarely fit, and frames larger than PIPE_BUF
	// may be cut anywhere.
	_, errs := concurrently(t, 8, func(i int) (string, error) {
		for j := range 4 {
			want := fmt.Sprintf("%d/%d:%s", i, j, strings.Repeat(string(rune('a'+i)), 20000+i*5000+j*333))
			got, err := s.echo(harness.Context(t), want)
			if err != nil {
				return "", err
			}
			if got != want {
				return "", fmt.Errorf("call %d/%d answered %d bytes, not its own %d", i, j, len(got), len(want))
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

// writerGoroutines counts the goroutines of stdio writers.
func writerGoroutines(t *testing.T) int {
	t.Helper()
	return goroutinesIn(t, "transport.(*batchWriter).spawn.func")
}

// A stdio transport at rest holds no goroutine for its writes. Calls one
// after another never start one: their callers write. A batch the pipe
// cannot take at once starts it; it ends after writerIdle without a
// batch, and the next such batch starts it again.
func TestWriterGoroutineOnlyUnderLoad(t *testing.T) {
	was := writerIdle
	t.Cleanup(func() { writerIdle = was })
	writerIdle = 200 * time.Millisecond
	s := startServer(t, testserver.Options{ReadDelay: 5 * time.Millisecond}, nil, nil, nil)
	for i := range 5 {
		s.mustEcho(fmt.Sprint("one after another ", i))
	}
	if n := writerGoroutines(t); n != 0 && !useDefaultMailbox {
		t.Errorf("%d writer goroutines after calls one after another, want none", n)
	}
	for round := range 2 {
		done := make(chan struct{})
		go func() {
			defer close(done)
			echoesFromCallers(t, 8, 2, strings.Repeat("x", 40<<10), s.echo)
		}()
		if most := mostUntil(done, 5*time.Millisecond, func() int { return writerGoroutines(t) }); most != 1 {
			t.Errorf("round %d: at most %d writer goroutines while the pipe was full, want 1", round, most)
		}
		harness.WaitWithin(t, harness.Bound, "the writer goroutine to end at rest", func() bool { return writerGoroutines(t) == 0 })
	}
	s.mustEcho("at rest")
}
