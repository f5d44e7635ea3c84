package actors_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// A new connection generation under load: 10,000 calls in flight on the
// old one each end exactly once, with an error saying the connection was
// replaced, and the client goes on, on the new one, with its counts kept.
func TestReconnectUnderLoad(t *testing.T) {
	s := connect(t, testserver.Options{NoiseEvery: 1}, actors.Env{}, nil)
	s.mustEcho("noise follows this answer")
	before := s.c.Stats()
	if before.Malformed == 0 {
		t.Fatal("no noise counted before the reconnect")
	}
	const n = 10000
	ctx := harness.Context(t)
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := s.c.CallTool(ctx, "sleep", map[string]any{"ms": 60000})
			errs <- err
		}()
	}
	harness.WaitFor(t, "10,000 calls in flight", func() bool { return s.c.InFlight() == n })
	first := s.c.Generation()
	if first.Number != 1 {
		t.Fatalf("generation %d before any reconnect", first.Number)
	}
	if err := s.c.Reconnect(ctx); err != nil {
		t.Fatalf("Reconnect: %v", err)
	}
	for range n {
		select {
		case err := <-errs:
			replaced := callerr.Replaced(err)
			if !errors.Is(err, errkind.ErrTransportClosed) || replaced == nil || replaced.Generation != 1 || replaced.Next != 2 {
				t.Fatalf("a call of the old generation ended with %v", err)
			}
		case <-time.After(harness.Bound):
			t.Fatal("a call of the old generation never ended")
		}
	}
	select {
	case err := <-errs:
		t.Fatalf("a call ended twice: %v", err)
	default:
	}
	select {
	case <-first.Replaced:
	default:
		t.Error("the old generation's Replaced is still open")
	}
	if g := s.c.Generation(); g.Number != 2 {
		t.Errorf("now on generation %d", g.Number)
	}
	s.mustEcho("on generation 2")
	if s.c.Err() != nil || s.c.ProtocolVersion() == "" {
		t.Errorf("generation 2: Err %v, version %q", s.c.Err(), s.c.ProtocolVersion())
	}
	if after := s.c.Stats(); after.Malformed < before.Malformed || after.LateResponses != 0 {
		t.Errorf("stats across generations: before %+v, after %+v", before, after)
	}
}

// Calls keep coming while the connection is replaced again and again:
// each ends once, with its answer or with the replacement, and none hangs.
func TestCallsAcrossRepeatedReconnects(t *testing.T) {
	s := connect(t, testserver.Options{}, actors.Env{}, nil)
	ctx := harness.Context(t)
	var stop atomic.Bool
	var ok, replaced atomic.Int64
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				msg := fmt.Sprint(w, "-", i)
				got, err := s.echo(ctx, msg)
				switch {
				case err == nil && got == msg:
					ok.Add(1)
				case errors.Is(err, errkind.ErrTransportClosed):
					replaced.Add(1)
				default:
					t.Errorf("echo %s: %q, %v", msg, got, err)
					return
				}
			}
		}()
	}
	for range 5 {
		okBefore := ok.Load()
		harness.WaitFor(t, "calls to succeed on this generation", func() bool { return ok.Load() > okBefore+50 })
		if err := s.c.Reconnect(ctx); err != nil {
			t.Fatalf("Reconnect: %v", err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if g := s.c.Generation().Number; g != 6 {
		t.Errorf("generation %d after five reconnects", g)
	}
	t.Logf("%d answered, %d ended by a replacement", ok.Load(), replaced.Load())
}

// A call made while a repair is under way waits for the new connection and
// runs on it.
func TestCallsDuringARepairWaitForIt(t *testing.T) {
	s := connect(t, testserver.Options{SlowInitialize: 300 * time.Millisecond}, actors.Env{}, nil)
	ctx := harness.Context(t)
	done := make(chan error, 1)
	go func() { done <- s.c.Reconnect(ctx) }()
	harness.WaitFor(t, "the repair to start", func() bool { return s.c.Generation().Number == 2 })
	if s.c.Err() != nil {
		t.Errorf("Err during the repair: %v", s.c.Err())
	}
	s.mustEcho("waited for generation 2") // the handshake takes 300 ms
	if err := <-done; err != nil {
		t.Errorf("Reconnect: %v", err)
	}
}

// After Close, Reconnect fails and the client stays closed.
func TestReconnectAfterClose(t *testing.T) {
	s := connect(t, testserver.Options{}, actors.Env{}, nil)
	s.close()
	if err := s.c.Reconnect(harness.Context(t)); !errors.Is(err, errkind.ErrTransportClosed) {
		t.Errorf("Reconnect after Close: %v", err)
	}
}
