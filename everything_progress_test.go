package mcpactor_test

// Progress, timeouts and cancellation of server-everything's
// trigger-long-running-operation
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation).

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
)

// TestServerEverythingProgress receives every progress notification of a
// call, in order, and none after the call returned.
func TestServerEverythingProgress(t *testing.T) {
	checkEverythingProgress(t, everything.use(t).c)
}

// checkEverythingProgress calls trigger-long-running-operation with four
// steps and checks its progress and result.
func checkEverythingProgress(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	res, p, err := callWithProgress(waitCtx(t), c, "trigger-long-running-operation", map[string]any{"duration": 2, "steps": 4})
	if err != nil {
		t.Fatalf("CallToolWith: %v", err)
	}
	if got := resultText(res); got != "Long running operation completed. Duration: 2 seconds, Steps: 4." {
		t.Errorf("result = %q", got)
	}
	p.check(t, []float64{1, 2, 3, 4}, 4)
}

// TestServerEverythingProgressOfConcurrentCalls routes the progress of two
// calls in flight at the same time to their own callbacks.
func TestServerEverythingProgressOfConcurrentCalls(t *testing.T) {
	checkEverythingProgressOfConcurrentCalls(t, everything.use(t).c)
}

// checkEverythingProgressOfConcurrentCalls makes two calls with progress,
// in flight at once, and checks that each callback got its own call's
// progress.
func checkEverythingProgressOfConcurrentCalls(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	type run struct {
		steps int
		p     *progressRecorder
	}
	runs := []*run{{steps: 4}, {steps: 3}}
	if n := c.InFlight(); n != 0 {
		t.Fatalf("%d calls in flight before the test", n)
	}
	var wg sync.WaitGroup
	defer wg.Wait() // the calls end before the test does, even if it fails
	for _, r := range runs {
		wg.Go(func() {
			var err error
			_, r.p, err = callWithProgress(ctx, c, "trigger-long-running-operation", map[string]any{"duration": 1.5, "steps": r.steps})
			if err != nil {
				t.Errorf("%d steps: %v", r.steps, err)
			}
		})
	}
	// Each call lasts 1.5 s on the server: both are in flight at once.
	harness.WaitFor(t, "both calls in flight", func() bool { return c.InFlight() == 2 })
	wg.Wait()
	for _, r := range runs {
		var want []float64
		for i := 1; i <= r.steps; i++ {
			want = append(want, float64(i))
		}
		r.p.check(t, want, float64(r.steps))
	}
	a, b := runs[0].p.tokens(), runs[1].p.tokens()
	if len(a) == 1 && len(b) == 1 && a[0] == b[0] {
		t.Errorf("both calls used progress token %s", a[0])
	}
}

// TestServerEverythingTimeout times a call out: a TimeoutError, the call no
// longer in flight, and the connection still good.
func TestServerEverythingTimeout(t *testing.T) {
	checkEverythingTimeout(t, everything.use(t).c)
}

// checkEverythingTimeout times a call to server-everything out and checks
// the error, the pending table and the connection after it.
func checkEverythingTimeout(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	_, err := c.CallToolWith(ctx, "trigger-long-running-operation",
		map[string]any{"duration": 6, "steps": 2}, mcpactor.CallOptions{Timeout: 300 * time.Millisecond})
	var te *messages.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v (%T), want *messages.TimeoutError", err, err)
	}
	want := `MCP server "` + everythingServer + `": tools/call (id ` + te.ID.String() + `): Request timeout after 300ms`
	if !errors.Is(err, mcpactor.ErrTimeout) || err.Error() != want {
		t.Errorf("err = %q, want errors.Is ErrTimeout and %q", err, want)
	}
	if te.Method != messages.MethodToolsCall || te.Server != everythingServer {
		t.Errorf("TimeoutError = %+v", te)
	}
	// The call ended for us although the server is still running it.
	harness.WaitFor(t, "the timed-out call to leave the pending table", func() bool { return c.InFlight() == 0 })
	// The connection is still good.
	callOK(t, c, "echo", map[string]any{"message": "after timeout"})
}

// TestServerEverythingCancel cancels a call's context once it is running
// (its first progress): a CanceledError, the call no longer in flight, and
// the connection still good.
func TestServerEverythingCancel(t *testing.T) {
	checkEverythingCancel(t, everything.use(t).c)
}

// checkEverythingCancel cancels a call to server-everything at its first
// progress and checks the error, the pending table and the connection
// after it.
func checkEverythingCancel(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx, cancel := context.WithCancel(waitCtx(t))
	defer cancel()
	_, err := c.CallToolWith(ctx, "trigger-long-running-operation",
		map[string]any{"duration": 4, "steps": 4},
		mcpactor.CallOptions{OnProgress: func(messages.ProgressParams) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var ce *messages.CanceledError
	if !errors.As(err, &ce) || ce.Method != messages.MethodToolsCall {
		t.Errorf("err = %#v, want a *messages.CanceledError for tools/call", err)
	}
	harness.WaitFor(t, "the cancelled call to leave the pending table", func() bool { return c.InFlight() == 0 })
	callOK(t, c, "echo", map[string]any{"message": "after cancel"})
}
