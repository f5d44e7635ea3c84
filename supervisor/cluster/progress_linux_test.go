package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

// TestExposedProgress: a tool on another member's process sends N
// progress notifications and then answers; the caller's OnProgress gets
// all N, in order, on the calling goroutine, before CallToolWith
// returns, and nothing is dropped. StartToolTask still refuses
// OnProgress.
func TestExposedProgress(t *testing.T) {
	c := newCluster(t, 2, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	api := c.driver.Exposed()
	// A notification every 5 ms: the owner's runtime keeps 64 for its
	// OnProgress (the one that sends them on), so only a stall of 320 ms
	// there would drop any, as on one machine.
	const n = 100
	for round := range 3 { // the first activates the session; the rest reuse it
		var got []float64
		returned := false
		res, err := api.CallToolWith(ctx, "mcp__alpha__progress", map[string]any{"steps": n, "intervalMs": 5},
			mcpactor.CallOptions{OnProgress: func(p messages.ProgressParams) {
				if returned {
					t.Errorf("round %d: progress %v after CallToolWith returned", round, p.Progress)
				}
				if p.Message != fmt.Sprintf("step %v", p.Progress) {
					t.Errorf("round %d: progress %v with message %q", round, p.Progress, p.Message)
				}
				got = append(got, p.Progress)
			}})
		returned = true
		if err != nil || len(res.Content) == 0 || res.Content[0].Text != "done" {
			t.Fatalf("round %d: CallToolWith = %+v, %v", round, res, err)
		}
		if len(got) != n {
			t.Fatalf("round %d: %d progress notifications before the result, want %d", round, len(got), n)
		}
		for i, p := range got {
			if p != float64(i+1) {
				t.Fatalf("round %d: notification %d is progress %v, want %d (out of order)", round, i, p, i+1)
			}
		}
	}
	if owner, ok := c.driver.Owner(Identity{Server: "alpha"}); !ok || owner.Member == "driver" {
		t.Errorf("alpha owned by %q (%v), want another member's process", owner.Member, ok)
	}
	if d := c.driver.Counters().DroppedProgress; d != 0 {
		t.Errorf("DroppedProgress = %d, want 0", d)
	}
	// A task's progress outlives its start: StartToolTask still refuses
	// OnProgress, before anything is sent.
	_, _, err := api.StartToolTask(ctx, "mcp__alpha__progress", map[string]any{"steps": 1},
		mcpactor.CallOptions{OnProgress: func(messages.ProgressParams) {}})
	var pe *ProgressNotCarriedError
	if !errors.Is(err, ErrProgressNotCarried) || !errors.As(err, &pe) || pe.Tool != "mcp__alpha__progress" || pe.Member != "driver" {
		t.Errorf("StartToolTask(OnProgress) = %v, want *ProgressNotCarriedError", err)
	}
}

// TestExposedProgressBound: while OnProgress is blocked on the first
// notification, those queued behind it stay within maxCallProgressBytes
// by dropping the oldest (counted); once it returns, the caller gets
// what is queued, in order, ending with the last, before the result.
func TestExposedProgressBound(t *testing.T) {
	c := newCluster(t, 1, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	api := c.driver.Exposed()
	const n, size = 64, 64 << 10 // 4 MiB of progress, four times the bound
	var got []float64
	queued, queuedBytes := 0, 0
	res, err := api.CallToolWith(ctx, "mcp__alpha__progress", map[string]any{"steps": n, "messageBytes": size, "intervalMs": 5},
		mcpactor.CallOptions{OnProgress: func(p messages.ProgressParams) {
			if len(got) == 0 {
				// Hold the calling goroutine until the last
				// notification is queued behind this one. (The tool
				// runs for 300 ms more: the call is still in flight.)
				q := progressQueueOf(t, c.driver)
				c.eventually("the last notification queued", func() bool {
					var last bool
					last, queued, queuedBytes = lastQueued(q, fmt.Sprintf(`"progress":%d,`, n))
					return last
				})
			}
			if !strings.HasPrefix(p.Message, fmt.Sprintf("step %v ", p.Progress)) {
				t.Errorf("progress %v with message %.20q", p.Progress, p.Message)
			}
			got = append(got, p.Progress)
		}})
	if err != nil || len(res.Content) == 0 || res.Content[0].Text != "done" {
		t.Fatalf("CallToolWith = %+v, %v", res, err)
	}
	dropped := c.driver.Counters().DroppedProgress
	if queuedBytes > maxCallProgressBytes || queued < 2 {
		t.Errorf("%d notifications (%d bytes) queued at once, want more than one within the %d-byte bound", queued, queuedBytes, maxCallProgressBytes)
	}
	if len(got) != 1+queued || got[len(got)-1] != n {
		t.Fatalf("got %d notifications ending with %v, want the one held and the %d queued, ending with the last (%d)", len(got), got[len(got)-1], queued, n)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("notification %d is progress %v after %v: out of order", i, got[i], got[i-1])
		}
	}
	if dropped == 0 || uint64(len(got))+dropped > n {
		t.Errorf("DroppedProgress = %d with %d delivered of %d", dropped, len(got), n)
	}
}

// TestExposedResetTimeoutOnProgress: with ResetTimeoutOnProgress, a call
// that reports progress more often than its Timeout runs past the
// caller's Config.CallTimeout and past Timeout plus the grace (the
// caller's wait is extended by each notification, as the owner's is),
// and one that stops reporting ends with the owner's
// an ErrTimeout *mcpactor.Error.
func TestExposedResetTimeoutOnProgress(t *testing.T) {
	c := newClusterWith(t, etcdFor(t), 1, memberSpec{TTL: 2 * time.Second, CallTimeout: 2 * time.Second})
	api := c.driver.Exposed()
	opts := mcpactor.CallOptions{Timeout: time.Second, ResetTimeoutOnProgress: true}
	start := time.Now()
	// 4 s of work, a notification every 300 ms: no ctx deadline, so
	// without the reset the caller would stop waiting at its 2 s
	// CallTimeout.
	res, err := api.CallToolWith(context.Background(), "mcp__alpha__progress", map[string]any{"steps": 14, "intervalMs": 300}, opts)
	if err != nil || len(res.Content) == 0 || res.Content[0].Text != "done" {
		t.Fatalf("CallToolWith with progress every 300 ms = %+v, %v after %v", res, err, time.Since(start))
	}
	if d := time.Since(start); d < 3*time.Second {
		t.Errorf("the call took %v, want the tool's 4 s", d)
	}
	// No progress at all: the owner's Timeout ends it.
	start = time.Now()
	_, err = api.CallToolWith(context.Background(), "mcp__alpha__sleep", map[string]any{"ms": 20000}, opts)
	var timeout *mcpactor.Error
	if !(errors.As(err, &timeout) && callerr.Timeout(timeout) == timeout) || time.Since(start) > 10*time.Second {
		t.Errorf("CallToolWith without progress = %v after %v, want the owner's *mcpactor.Error", err, time.Since(start))
	}
}

// progressQueueOf returns the progress queue of m's one call in flight
// that has one.
func progressQueueOf(t *testing.T, m *Member) *progressQueue {
	t.Helper()
	m.calls.mu.Lock()
	defer m.calls.mu.Unlock()
	for _, call := range m.calls.calls {
		if call.progress != nil {
			return call.progress
		}
	}
	t.Fatal("no call in flight with a progress queue")
	return nil
}

// lastQueued reports whether q ends with a notification containing
// last, and q's length and bytes.
func lastQueued(q *progressQueue, last string) (bool, int, int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := len(q.items)
	return n > 0 && strings.Contains(string(q.items[n-1]), last), n, q.bytes
}
