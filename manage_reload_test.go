package mcpactor_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// A server whose configuration a Reload or an Add changes is restarted;
// meanwhile its tools stay offered, and a call to one waits for the new
// server, as it waits for one restarting after a crash. Found by the soak
// (docs/reliability.md): the call failed with *UnknownToolError, as if
// the server had been removed.
func TestRestartByNewConfigKeepsToolsOffered(t *testing.T) {
	for _, how := range []string{"Reload", "Add"} {
		t.Run(how, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			rt := startRuntime(t, mcpactor.Options{})
			// A slow handshake keeps the new server starting while the
			// call is made.
			cfg := mcptest.Stdio("slow-handshake")
			m, err := rt.Manage(ctx, mcpactor.ManageOptions{Servers: map[string]mcpactor.ServerConfig{"a": cfg}, NoCache: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.CallTool(ctx, "mcp__a__echo", map[string]any{"message": "before"}); err != nil {
				t.Fatalf("before: %v", err)
			}
			changed := cfg
			changed.Env = map[string]string{"CHANGED": "1"}
			for k, v := range cfg.Env {
				changed.Env[k] = v
			}
			if how == "Reload" {
				err = m.Reload(ctx, mcpactor.ManageOptions{Servers: map[string]mcpactor.ServerConfig{"a": changed}, NoCache: true})
			} else {
				err = m.Add(ctx, "a", changed)
			}
			if err != nil {
				t.Fatalf("%s: %v", how, err)
			}
			tools := m.ListTools()
			if len(tools) == 0 || !tools[0].Cached {
				t.Errorf("while the new server starts, ListTools = %d tools (first cached: %v); want the previous ones, cached",
					len(tools), len(tools) > 0 && tools[0].Cached)
			}
			_, err = m.CallTool(ctx, "mcp__a__echo", map[string]any{"message": "during"})
			if unknown := (*mcpactor.UnknownToolError)(nil); errors.As(err, &unknown) {
				t.Fatalf("the call failed as if the server had been removed: %v", err)
			}
			if err != nil {
				t.Fatalf("during the restart: %v", err)
			}
		})
	}
}
