package mcpactor_test

import (
	"testing"

	"github.com/sourcegraph/conc"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// An HTTP session that expires under concurrent calls: every call is
// answered 404 and sent once more on the one new session. None may be
// lost to the replacement of the connection that the first 404 starts.
func TestHTTPSessionExpiryUnderConcurrentCalls(t *testing.T) {
	// With a GET listener, the listener may see the expiry first; without
	// one, the calls' own 404s race the replacement they start. Answers
	// come as JSON bodies or as event streams.
	t.Run("listener", func(t *testing.T) { sessionExpiryUnderConcurrentCalls(t, mcptest.Faults{HTTPJSONAnswers: true}) })
	t.Run("no-listener", func(t *testing.T) {
		sessionExpiryUnderConcurrentCalls(t, mcptest.Faults{HTTPJSONAnswers: true, HTTPNoGetStream: true})
	})
	t.Run("listener-sse", func(t *testing.T) { sessionExpiryUnderConcurrentCalls(t, mcptest.Faults{}) })
	t.Run("no-listener-sse", func(t *testing.T) { sessionExpiryUnderConcurrentCalls(t, mcptest.Faults{HTTPNoGetStream: true}) })
}

func sessionExpiryUnderConcurrentCalls(t *testing.T, faults mcptest.Faults) {
	fake := &mcptest.Server{Tools: []mcptest.Tool{kitEcho}, Faults: faults}
	srv := fake.StartHTTP()
	defer srv.Close()
	rt := startRuntime(t, mcpactor.Options{})
	ctx := waitCtx(t)
	c, err := rt.Connect(ctx, "expiring", srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	echo := func(msg string) error {
		res, err := c.CallTool(ctx, "echo", map[string]any{"message": msg})
		if err == nil && (len(res.Content) == 0 || res.Content[0].Text != msg) {
			t.Errorf("echo %q answered %+v", msg, res)
		}
		return err
	}
	if err := echo("before"); err != nil {
		t.Fatal(err)
	}

	for round := range 3 {
		srv.ExpireSessions()
		const calls = 32
		errs := make([]error, calls)
		var wg conc.WaitGroup
		for i := range calls {
			wg.Go(func() { errs[i] = echo("concurrent") })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, call %d: %v", round, i, err)
			}
		}
		if g := c.Generation().Number; g != uint64(round+2) {
			t.Errorf("round %d: generation %d; one expiry makes one new session", round, g)
		}
	}
}
