package mcptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// TestUserManagedCrash is a test as a user writes it from go doc alone:
// an in-process fake with two tools, one of which crashes the server,
// driven through Runtime.Manage. No process is spawned and no network
// used: the configuration has neither a command nor a URL, only Dial.
func TestUserManagedCrash(t *testing.T) {
	fake := &mcptest.Server{Tools: []mcptest.Tool{
		{
			Name:        "add",
			InputSchema: `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`,
			Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
				var in struct{ A, B float64 }
				if err := c.Bind(&in); err != nil {
					return nil, err
				}
				return &messages.CallToolResult{StructuredContent: mustMarshal(t, map[string]float64{"sum": in.A + in.B})}, nil
			},
		},
		{Name: "explode", Fault: mcptest.Fault{Crash: &mcptest.Crash{Code: 2, Stderr: "boom", Times: 1}}},
	}}
	cfg := fake.InProcess()
	if cfg.Command != "" || cfg.URL != "" || cfg.Dial == nil {
		t.Fatalf("InProcess gave %+v", cfg)
	}
	cfg.Restart = mcpactor.RestartPolicy{BackoffMin: 5 * time.Millisecond, BackoffMax: 20 * time.Millisecond}

	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Stop(ctx)
	defer fake.Close()
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true, Servers: map[string]mcpactor.ServerConfig{"calc": cfg}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)

	if n := len(m.ListTools()); n != 2 {
		t.Fatalf("%d tools, want 2", n)
	}
	res, err := m.CallTool(ctx, "mcp__calc__add", map[string]any{"a": 2, "b": 3})
	if err != nil || string(res.StructuredContent) != `{"sum":5}` {
		t.Fatalf("add = %+v, %v", res, err)
	}
	_, err = m.CallTool(ctx, "mcp__calc__explode", nil)
	if !errors.Is(err, mcpactor.ErrTransportClosed) {
		t.Fatalf("explode: %v, want ErrTransportClosed", err)
	}
	harness.WaitFor(t, "the restart", func() bool {
		res, err := m.CallTool(ctx, "mcp__calc__add", map[string]any{"a": 1, "b": 1})
		return err == nil && string(res.StructuredContent) == `{"sum":2}`
	})
	if got := fake.Calls(); len(got) < 3 || got[1].Name != "explode" {
		t.Errorf("calls = %+v", got)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
