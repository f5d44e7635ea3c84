package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// TestDeadlineHeap: calls come out in deadline order whatever order they
// were added and removed in, and a removed call never comes out.
func TestDeadlineHeap(t *testing.T) {
	var d deadlines
	d.timer = time.NewTimer(time.Hour) // arm resets it; no actor needed
	defer d.timer.Stop()
	base := time.Now()
	rng := rand.New(rand.NewPCG(1, 2))
	var calls []*call
	for i := range 500 {
		c := &call{id: int64(i), deadline: base.Add(time.Duration(rng.IntN(1000)) * time.Millisecond)}
		d.add(nil, c)
		calls = append(calls, c)
	}
	removed := map[*call]bool{}
	for _, c := range calls {
		if rng.IntN(3) == 0 {
			d.remove(c)
			d.remove(c) // twice is harmless
			removed[c] = true
		}
	}
	var last time.Time
	n := 0
	for c := d.due(base.Add(time.Hour)); c != nil; c = d.due(base.Add(time.Hour)) {
		if removed[c] {
			t.Fatalf("call %d came out after its removal", c.id)
		}
		if c.deadline.Before(last) {
			t.Fatalf("call %d (%v) came out after a later deadline (%v)", c.id, c.deadline, last)
		}
		if c.heapIndex != -1 {
			t.Fatalf("call %d still has heap index %d", c.id, c.heapIndex)
		}
		last = c.deadline
		n++
	}
	if n+len(removed) != len(calls) {
		t.Errorf("%d calls came out and %d were removed, of %d", n, len(removed), len(calls))
	}
	if c := d.due(base.Add(time.Hour)); c != nil {
		t.Errorf("an empty heap gave call %d", c.id)
	}
}

// nullSink accepts every frame and sends nothing anywhere.
type nullSink struct{ buf []byte }

func (s *nullSink) frameBuffer(int) []byte                { return s.buf[:0] }
func (s *nullSink) commitFrame([]byte, *call, int64) bool { return true }
func (s *nullSink) dropUnsent(*call) bool                 { return false }
func (s *nullSink) retire(*call)                          {}

// TestStaleCancelIgnored: a record reused for a new call is not retired by
// a cancellation sent during its previous life, which can still be in the
// mailbox when the answer won the race.
func TestStaleCancelIgnored(t *testing.T) {
	r := newRPCCore("ts", nil, 1, &nullSink{}, slog.New(slog.DiscardHandler), NewCounters(nil), newWriteBudget(1<<20), &limits{})
	conn := &Conn{server: "ts", pool: new(sync.Pool)}
	c := conn.take()
	c.method = "tools/call"
	r.send(nil, c)
	stale := cancelCall{c: c, life: c.life.Load(), reason: "ctx ended"}
	// The answer arrives before the cancellation.
	r.response(jsonrpc.Message{ID: messages.Int64ID(c.id), Result: json.RawMessage(`{}`)})
	out := <-c.reply
	if out.err != nil {
		t.Fatalf("first life ended with %v", out.err)
	}
	c.settled = true
	conn.release(c)
	// The next take would get it from the pool (which may also drop
	// items, as it does under the race detector): take it directly.
	again := c
	again.method = "tools/call"
	r.send(nil, again)
	r.cancel(stale)
	select {
	case out := <-again.reply:
		t.Fatalf("the new call ended with %+v from the old life's cancellation", out)
	default:
	}
	if r.pending[again.id] != again {
		t.Fatal("the new call left the pending table")
	}
	r.cancel(cancelCall{c: again, life: again.life.Load(), reason: "ctx ended"})
	if out := <-again.reply; out.err != errRetired {
		t.Fatalf("the new life's own cancellation gave %+v", out)
	}
}

// TestDeadlinesOfManyCalls: calls with different timeouts on one
// connection each time out at their own deadline, in any order of
// sending, while calls without a timeout problem are answered; each ends
// once.
func TestDeadlinesOfManyCalls(t *testing.T) {
	s := startServer(t, testserver.Options{}, nil, nil, nil)
	ctx := harness.Context(t)
	timeouts := []time.Duration{400, 100, 300, 50, 200, 100, 250, 150}
	var wg sync.WaitGroup
	errs := make([]error, len(timeouts))
	took := make([]time.Duration, len(timeouts))
	for i, ms := range timeouts {
		wg.Go(func() {
			start := time.Now()
			_, errs[i] = s.conn.Call(ctx, "tools/call", toolParams("sleep", map[string]any{"ms": 5000}), RequestOptions{Timeout: ms * time.Millisecond})
			took[i] = time.Since(start)
		})
	}
	// Answers keep flowing meanwhile, and reuse records.
	for i := range 50 {
		s.mustEcho(fmt.Sprint("m", i))
	}
	wg.Wait()
	for i, ms := range timeouts {
		d := ms * time.Millisecond
		var te *callerr.Error
		if !(errors.As(errs[i], &te) && callerr.Timeout(te) == te) || te.After != d {
			t.Errorf("call %d: %v, want a timeout after %v", i, errs[i], d)
			continue
		}
		if took[i] < d || took[i] > d+2*time.Second {
			t.Errorf("call %d timed out after %v, want %v", i, took[i], d)
		}
	}
	if got := s.conn.InFlight(); got != 0 {
		t.Errorf("%d calls still in flight", got)
	}
	// A call whose context ends first is cancelled, not timed out.
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err := s.conn.Call(cctx, "tools/call", toolParams("sleep", map[string]any{"ms": 5000}), RequestOptions{Timeout: time.Minute})
	var ce *callerr.Error
	if !(errors.As(err, &ce) && callerr.Canceled(ce) == ce) {
		t.Errorf("context ended: %v, want a cancellation", err)
	}
	s.mustEcho("after")
}
