package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// The tests below hold the byte budgets of docs/architecture.md ("Bounded
// everything") by the heap that stays live after a garbage collection in
// the scenarios that once kept hundreds of megabytes, never by time.

const mib = 1 << 20

// A server that stops reading its input: 2,000 calls of 256 KiB all end
// (here by their context), and what the connection keeps meanwhile is
// bounded by the write budget, not by what was sent to it. Frames of calls
// that ended before they were written are dropped, not kept.
func TestWriteQueueIsBoundedInBytes(t *testing.T) {
	s := startServer(t, testserver.Options{}, nil, nil, nil)
	if _, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, toolParams("stop-reading", nil), RequestOptions{}); err != nil {
		t.Fatal(err)
	}
	params := toolParams("echo", map[string]any{"message": string(bytes.Repeat([]byte{'x'}, 256<<10))})
	base := harness.LiveHeap()
	var wg sync.WaitGroup
	var unexpected sync.Map
	for range 2000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, err := s.conn.Call(ctx, messages.MethodToolsCall, params, RequestOptions{})
			if !errors.Is(err, errkind.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
				unexpected.Store(err.Error(), true)
			}
		}()
	}
	wg.Wait()
	unexpected.Range(func(k, _ any) bool { t.Errorf("a call ended with %v", k); return true })
	grown := harness.LiveHeap() - base
	t.Logf("live heap grew by %.1f MiB with the server not reading (budget %d MiB)", float64(grown)/mib, defaultMaxWriteBytes/mib)
	if limit := int64(3 * defaultMaxWriteBytes); grown > limit {
		t.Errorf("the connection keeps %.1f MiB; its write budget is %d MiB", float64(grown)/mib, defaultMaxWriteBytes/mib)
	}
	if st := s.conn.Stats(); st[DroppedWrites] == 0 {
		t.Errorf("no unwritten frame was dropped: %+v", st)
	}
	closeForcibly(t, s)
}

// A call that ends while it waits for room in the write queue gives its
// in-flight slot back: with 4 slots and a server that stopped reading,
// 40 calls end by their deadlines one after another, and no slot is held
// once they have.
func TestWaitForWriteRoomGivesBackTheSlot(t *testing.T) {
	s := startServer(t, testserver.Options{}, nil, nil, func(c *StdioConfig) { c.MaxInFlight, c.MaxWriteBytes = 4, 1*mib })
	if _, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, toolParams("stop-reading", nil), RequestOptions{}); err != nil {
		t.Fatal(err)
	}
	params := toolParams("echo", map[string]any{"message": string(bytes.Repeat([]byte{'x'}, 512<<10))})
	for i := range 40 {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err := s.conn.Call(ctx, messages.MethodToolsCall, params, RequestOptions{})
		cancel()
		if !errors.Is(err, errkind.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d: %v, want its deadline", i, err)
		}
	}
	if n := s.conn.InFlight(); n != 0 {
		t.Errorf("InFlight = %d after every call ended, want 0", n)
	}
	closeForcibly(t, s)
}

// A write that makes no progress for the stall timeout fails the
// connection with a clear error instead of waiting for ever.
func TestStalledWriteFailsTheConnection(t *testing.T) {
	s := startServer(t, testserver.Options{}, nil, nil, func(c *StdioConfig) { c.WriteStallTimeout = 500 * time.Millisecond })
	if _, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, toolParams("stop-reading", nil), RequestOptions{}); err != nil {
		t.Fatal(err)
	}
	big := toolParams("echo", map[string]any{"message": string(bytes.Repeat([]byte{'x'}, 4*mib))})
	start := time.Now()
	_, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, big, RequestOptions{})
	if !errors.Is(err, errkind.ErrTransportClosed) || callerr.WriteStalled(err) == nil {
		t.Fatalf("got %v, want the connection failed by a write stall", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the stall was noticed after %v", d)
	}
	if _, err := s.echo(harness.Context(t), "after"); !errors.Is(err, errkind.ErrTransportClosed) {
		t.Errorf("a new call: %v", err)
	}
}

// With more than 64 calls in flight a request may be left to the writer
// goroutine for when its write is done (mailboxHome.owe); a write that
// waits for room in the pipe must not hold those requests, or they would
// get no timeout until the stall check failed the connection. Here the
// first 64 calls fill the pipe of a server that stopped reading and have
// a long timeout, so that no deadline of theirs runs the actor; the calls
// after them have a short one and end at it.
func TestCallsBehindAWaitingWriteTimeOut(t *testing.T) {
	s := startServer(t, testserver.Options{}, nil, nil, func(c *StdioConfig) { c.WriteStallTimeout = 5 * time.Minute })
	if _, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, toolParams("stop-reading", nil), RequestOptions{}); err != nil {
		t.Fatal(err)
	}
	params := toolParams("echo", map[string]any{"message": strings.Repeat("x", 4<<10)})
	var first sync.WaitGroup
	for range gatherAbove {
		first.Go(func() {
			_, _ = s.conn.Call(context.Background(), messages.MethodToolsCall, params, RequestOptions{Timeout: time.Hour})
		})
	}
	// 256 KiB of frames for a pipe of 64 KiB: the writer waits for room.
	harness.WaitFor(t, "the first calls to be in flight", func() bool { return s.conn.InFlight() == gatherAbove })
	start := time.Now()
	var wg sync.WaitGroup
	var unexpected sync.Map
	for range 100 {
		wg.Go(func() {
			_, err := s.conn.Call(context.Background(), messages.MethodToolsCall, params, RequestOptions{Timeout: 300 * time.Millisecond})
			var te *callerr.Error
			if !(errors.As(err, &te) && callerr.Timeout(te) == te) {
				unexpected.Store(fmt.Sprint(err), true)
			}
		})
	}
	wg.Wait()
	unexpected.Range(func(k, _ any) bool { t.Errorf("a call ended with %v", k); return true })
	if d := time.Since(start); d > 10*time.Second { // held by the write, they took 30 s
		t.Errorf("the calls ended after %v; their timeout is 300ms", d)
	}
	closeForcibly(t, s)
	first.Wait()
}

// Progress for one call whose callback is stuck: 32 notifications of 2
// MiB were all kept; the oldest now go, and what waits is bounded.
func TestProgressIsBoundedInBytes(t *testing.T) {
	s := startServer(t, testserver.Options{}, nil, nil, nil)
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	base := harness.LiveHeap()
	done := make(chan error, 1)
	go func() {
		params, _ := json.Marshal(map[string]any{"name": "progress", "arguments": map[string]any{"steps": 32, "messageBytes": 2 * mib}, "_meta": map[string]any{"progressToken": "p"}})
		key, _ := messages.ProgressTokenKey("p")
		_, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, params, RequestOptions{
			ProgressToken: key,
			OnProgress: func(json.RawMessage) {
				select {
				case entered <- struct{}{}:
				default:
				}
				<-release
			},
		})
		done <- err
	}()
	<-entered
	// 64 MiB through a pipe, under the race detector on a shared 2-core
	// machine, took 14 to 23 s: the bound is the load's, not the test's.
	harness.WaitWithin(t, 4*harness.Bound, "the server's progress to be dropped", func() bool { return s.conn.Stats()[DroppedProgress] >= 30 })
	grown := harness.LiveHeap() - base
	t.Logf("live heap grew by %.1f MiB with 64 MiB of progress sent to a stuck callback", float64(grown)/mib)
	if grown > 32*mib {
		t.Errorf("%.1f MiB kept for one call's progress", float64(grown)/mib)
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("the call: %v", err)
	}
}

// The request timeout covers the wait for room in the write queue: calls
// behind a server that stopped reading end at their timeout, not when the
// stall check fails the connection much later.
func TestQueuedCallsTimeOut(t *testing.T) {
	s := startServer(t, testserver.Options{}, nil, nil, nil)
	if _, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, toolParams("stop-reading", nil), RequestOptions{}); err != nil {
		t.Fatal(err)
	}
	params := toolParams("echo", map[string]any{"message": string(bytes.Repeat([]byte{'x'}, 256<<10))})
	start := time.Now()
	var wg sync.WaitGroup
	var unexpected sync.Map
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.conn.Call(context.Background(), messages.MethodToolsCall, params, RequestOptions{Timeout: 300 * time.Millisecond})
			var te *callerr.Error
			if !(errors.As(err, &te) && callerr.Timeout(te) == te) || te.After != 300*time.Millisecond {
				unexpected.Store(fmt.Sprint(err), true)
			}
		}()
	}
	wg.Wait()
	unexpected.Range(func(k, _ any) bool { t.Errorf("a call ended with %v", k); return true })
	if d := time.Since(start); d > 10*time.Second { // the stall check would take 30 s
		t.Errorf("the calls ended after %v; their timeout is 300ms", d)
	}
	closeForcibly(t, s)
}
