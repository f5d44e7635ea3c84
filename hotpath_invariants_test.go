package mcpactor_test

import (
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// The allocations of one CallTool, counted over the whole process (the
// transport actor, its reader and writer included; the server is another
// process), so that a change that adds one to the hot path fails here
// rather than in a later benchmark. docs/benchmarks.md publishes the
// numbers these bounds hold. Under the race detector the calls still run
// and are checked, but the count is only logged: the detector allocates
// on its own account.

// allocsPerCall runs call a while to warm up (buffers grown, pools
// filled), then returns the allocations per run.
func allocsPerCall(call func()) float64 {
	for range 200 {
		call()
	}
	return testing.AllocsPerRun(1000, call)
}

// A stdio echo CallTool in the session era: six allocations today, the
// arguments boxed into CallTool's any among them (docs/benchmarks.md,
// "The targets missed", its paragraph "What got there"); the bound leaves
// two for noise such as a pool
// refilled after a garbage collection.
func TestCallToolAllocationsSessionEra(t *testing.T) {
	const bound = 8
	rt := startRuntime(t, mcpactor.Options{})
	c, err := rt.Connect(waitCtx(t), "echo", testServerConfig(testserver.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if v := c.ProtocolVersion(); v == messages.Version20260728 {
		t.Fatalf("negotiated %s, want the session era", v)
	}
	ctx := waitCtx(t)
	args := map[string]any{"message": "hello, allocations"}
	n := allocsPerCall(func() {
		res, err := c.CallTool(ctx, "echo", args)
		if err != nil || resultText(res) != "hello, allocations" {
			t.Fatalf("echo: %v, %v", res, err)
		}
	})
	t.Logf("%.1f allocations per call (race detector on: %v)", n, raceOn)
	if !raceOn && n > bound {
		t.Errorf("a session-era echo CallTool allocates %.1f times, more than %d: something was added to the hot path", n, bound)
	}
}

// A stdio CallTool in the 2026-07-28 era, against the go-sdk's server
// (the only one of our peers that speaks it over stdio), where each
// request carries the era's _meta and each result the server's own (its
// serverInfo). 12 allocations today (measured 2026-12-05; 31 before
// ResultTypeOf read the result without decoding it and _meta was decoded
// without encoding/json), 6 of them that _meta's maps and strings; the
// bound is that plus a little. Issue 22 lowers it.
func TestCallToolAllocationsStatelessEra(t *testing.T) {
	const bound = 15
	rt := startRuntime(t, mcpactor.Options{})
	c, err := rt.Connect(waitCtx(t), "gosdk", mcpactor.ServerConfig{Command: peers.GoSDKServer(t)})
	if err != nil {
		t.Fatal(err)
	}
	if v := c.ProtocolVersion(); v != messages.Version20260728 {
		t.Fatalf("negotiated %s, want %s", v, messages.Version20260728)
	}
	ctx := waitCtx(t)
	n := allocsPerCall(func() {
		res, err := c.CallTool(ctx, "test_simple_text", nil)
		if err != nil || resultText(res) != "This is a simple text response for testing." {
			t.Fatalf("test_simple_text: %v, %v", res, err)
		}
	})
	t.Logf("%.1f allocations per call (race detector on: %v)", n, raceOn)
	if !raceOn && n > bound {
		t.Errorf("a 2026-07-28 CallTool allocates %.1f times, more than %d: something was added to the hot path", n, bound)
	}
}
