package actors_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

func TestMaxInFlight(t *testing.T) {
	// 100 concurrent calls of a 40 ms sleep through MaxInFlight 4: all
	// complete, and never more than 4 are outstanding. The test server
	// does not count its concurrency, so the proof is a lower harness.Bound on the
	// time, which holds however slow the machine: 25 rounds of 40 ms.
	s := connect(t, testserver.Options{}, actors.Env{}, func(c *actors.Spec) { c.Limits.MaxInFlight = 4 })
	ctx := harness.Context(t)
	var done atomic.Int32
	start := time.Now()
	errs := concurrently(t, 100, func(i int) error {
		res, err := s.c.CallTool(ctx, "sleep", map[string]any{"ms": 40})
		if err == nil && res.IsError {
			err = errors.New(text(t, res))
		}
		done.Add(1)
		return err
	})
	took := time.Since(start)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if done.Load() != 100 {
		t.Fatalf("%d calls done", done.Load())
	}
	if took < 25*40*time.Millisecond {
		t.Errorf("100 calls of 40 ms through 4 slots took only %v: more than 4 were in flight", took)
	}
}

func TestWaitingForASlotIsBoundedByTheCaller(t *testing.T) {
	// A caller waiting for a free slot gives up with its context.
	s := connect(t, testserver.Options{}, actors.Env{}, func(c *actors.Spec) { c.Limits.MaxInFlight = 1 })
	busy := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		var once sync.Once
		// Progress proves the call holds the slot: it is at the server.
		_, err := s.c.CallToolWith(harness.Context(t), "progress", map[string]any{"steps": 50, "intervalMs": 20}, actors.Call{
			OnProgress: func(messages.ProgressParams) { once.Do(func() { close(started) }) },
		})
		busy <- err
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := s.c.CallTool(ctx, "echo", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v", err)
	}
	if err := <-busy; err != nil {
		t.Errorf("the slow call: %v", err)
	}
}

// A ping takes no in-flight slot: with every slot held by a slow call, a
// call waits (and gives up at its queue timeout) but a ping is answered,
// so a manager's keepalive does not call a busy server stuck.
func TestPingTakesNoSlot(t *testing.T) {
	s := connect(t, testserver.Options{}, actors.Env{}, func(c *actors.Spec) {
		c.Limits.MaxInFlight, c.Limits.QueueTimeout = 1, 200*time.Millisecond
	})
	ctx := harness.Context(t)
	busy := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		var once sync.Once
		_, err := s.c.CallToolWith(ctx, "progress", map[string]any{"steps": 100, "intervalMs": 20}, actors.Call{
			OnProgress: func(messages.ProgressParams) { once.Do(func() { close(started) }) },
		})
		busy <- err
	}()
	<-started // the slow call holds the only slot
	_, err := s.c.CallTool(ctx, "echo", map[string]any{"message": "queued"})
	// A queue timeout is the runtime's one carrier like every other
	// failure, told from a request's timeout by Limit (the slots it
	// waited for), and never sent, so it has no id.
	var e *callerr.Error
	if !errors.Is(err, errkind.ErrTimeout) || !errors.As(err, &e) || e.Limit != 1 || e.Method != "tools/call" || e.ID.IsValid() || e.After != 200*time.Millisecond {
		t.Fatalf("a call with the slot taken: %v (%+v), want a queue timeout", err, e)
	}
	if want := `waited 200ms for one of its 1 in-flight slots; not sent`; !strings.Contains(err.Error(), want) {
		t.Errorf("text %q, want it to say %q", err, want)
	}
	if err := s.c.Ping(ctx); err != nil {
		t.Fatalf("ping with the slot taken: %v", err)
	}
	if err := <-busy; err != nil {
		t.Fatalf("the slow call: %v", err)
	}
}
