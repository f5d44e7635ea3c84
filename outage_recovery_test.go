package mcpactor_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// A remote server down for 10 s under load (and until its breaker has
// opened) costs about that outage plus one breaker backoff step, with the
// manager's default recovery settings, not BreakerRetry's 5 minutes
// (issue 35, item 1): the breaker's half-open trial finds the server back.
func TestTenSecondOutageCostsOneBackoffStep(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10 s outage, measured")
	}
	const outage = 10 * time.Second
	var down atomic.Bool
	fake := &mcptest.Server{Tools: []mcptest.Tool{{
		Name: "echo",
		Handler: func(ctx context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
			return &messages.CallToolResult{Content: []messages.Content{messages.TextContent("ok")}}, nil
		},
	}}}
	t.Cleanup(fake.Close)
	srv := fake.StartHTTPWith(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if down.Load() {
				http.Error(w, "upstream down", http.StatusServiceUnavailable)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	t.Cleanup(srv.Close)

	rt := startRuntime(t, mcpactor.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true,
		Servers: map[string]mcpactor.ServerConfig{"remote": srv.Config()}})
	if err != nil {
		t.Fatal(err)
	}

	// 20 callers, each a call at a time with a 1 s timeout, until stop.
	var lastOK atomic.Int64 // unix nanos of the last success
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				cctx, ccancel := context.WithTimeout(ctx, time.Second)
				_, err := m.CallTool(cctx, "mcp__remote__echo", map[string]any{})
				ccancel()
				if err == nil {
					lastOK.Store(time.Now().UnixNano())
				} else {
					time.Sleep(20 * time.Millisecond) // a failing server is not hammered
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()

	harness.WaitFor(t, "calls succeed before the outage", func() bool { return lastOK.Load() != 0 })
	back0 := time.Now()
	down.Store(true)
	time.Sleep(outage)
	// The outage lasts until the breaker has opened (the case that locked
	// users out for BreakerRetry), however long the restarts take to use
	// up the policy on this machine.
	harness.WaitFor(t, "the breaker open", func() bool {
		for _, s := range m.Status() {
			if s.State == mcpactor.StateBreakerOpen {
				return true
			}
		}
		return false
	})
	downFor := time.Since(back0)
	back := time.Now()
	down.Store(false)

	// One backoff step is BreakerBackoff, 5 s by default (jittered down
	// to half); the rest of the bound is slack for a loaded machine.
	const bound = 5*time.Second + 10*time.Second
	deadline := time.Now().Add(bound)
	for time.Unix(0, lastOK.Load()).Before(back) {
		if time.Now().After(deadline) {
			t.Fatalf("no call succeeded within %v of the server's return (status %+v)", bound, m.Status())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("first success %v after the server came back (down %v, the breaker open at its end)",
		time.Unix(0, lastOK.Load()).Sub(back).Round(time.Millisecond), downFor.Round(time.Millisecond))
}
