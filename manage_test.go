package mcpactor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// Runtime.Manage runs the servers of a configuration file beside servers
// given in code (here one in this process: ServerConfig.Dial), exposes
// their tools by mcp__<server>__<tool>, routes calls by that name, and is
// stopped by Runtime.Stop.
func TestRuntimeManage(t *testing.T) {
	coded := &mcptest.Server{Tools: []mcptest.Tool{{Name: "echo", Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
		var args struct{ Message string }
		err := c.Bind(&args)
		return &messages.CallToolResult{Content: []messages.Content{messages.TextContent(args.Message)}}, err
	}}}}
	defer coded.Close()
	filed := mcptest.Stdio("echo")
	file := filepath.Join(t.TempDir(), "mcp.json")
	raw, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"filed": map[string]any{"command": filed.Command, "args": filed.Args, "env": filed.Env},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}

	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{
		ConfigFile: file,
		Servers:    map[string]mcpactor.ServerConfig{"coded": coded.InProcess()},
		CacheDir:   t.TempDir(),
	})
	if err != nil {
		t.Fatalf("Manage: %v", err)
	}

	var names []string
	for _, tool := range m.ListTools() {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"mcp__filed__echo", "mcp__coded__echo"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	for _, name := range []string{"mcp__filed__echo", "mcp__coded__echo"} {
		res, err := m.CallTool(ctx, name, map[string]any{"message": name})
		if err != nil || len(res.Content) == 0 || res.Content[0].Text != name {
			t.Errorf("%s: %+v, %v", name, res, err)
		}
	}
	for _, s := range m.Status() {
		if s.State != mcpactor.StateReady || s.ProtocolVersion == "" {
			t.Errorf("status %+v: want ready with a protocol version", s)
		}
	}
	c, ok := m.Client("coded")
	if !ok {
		t.Fatal("Client(coded): not found")
	}
	if err := c.Ping(ctx); err != nil {
		t.Errorf("Ping through the managed client: %v", err)
	}

	if n := len(coded.Calls()); n != 1 {
		t.Errorf("the coded server got %d calls, want 1", n)
	}

	if err := rt.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if _, err := m.CallTool(ctx, "mcp__coded__echo", map[string]any{"message": "late"}); err == nil {
		t.Error("a call after Runtime.Stop succeeded")
	}
	if _, err := rt.Manage(ctx, mcpactor.ManageOptions{Servers: map[string]mcpactor.ServerConfig{"x": mcptest.Stdio("echo")}}); err == nil {
		t.Error("Manage after Stop succeeded")
	}
}
