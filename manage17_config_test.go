package mcpactor_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

func writeJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A file with one bad entry is a partial result: Manage returns a working
// manager and no error, and the problem is on the manager (Warnings,
// Invalid), not only in the log.
func TestManageKeepsConfigProblems(t *testing.T) {
	echo := mcptest.Stdio("echo")
	file := writeJSON(t, map[string]any{"mcpServers": map[string]any{
		"good": map[string]any{"command": echo.Command, "args": echo.Args, "env": echo.Env},
		"bad":  map[string]any{"type": "sse"},
	}})
	rt := startRuntime(t, mcpactor.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{ConfigFile: file, NoCache: true})
	if err != nil {
		t.Fatalf("Manage: %v", err)
	}
	if inv := m.Invalid(); len(inv) != 1 || inv[0].Name != "bad" || inv[0].File != file || !strings.Contains(inv[0].Problems[0], `"url"`) {
		t.Errorf("Invalid = %+v", inv)
	}
	if w := m.Warnings(); len(w) != 1 || !strings.Contains(w[0], `Server "bad"`) || strings.Contains(w[0], "\n") {
		t.Errorf("Warnings = %q", w)
	}
	if _, err := m.CallTool(ctx, "mcp__good__echo", map[string]any{"message": "hi"}); err != nil {
		t.Errorf("the valid server: %v", err)
	}
}

// A VS Code file ({"servers": ...}, entries with "type") given as
// ConfigFile loads its servers; a file with neither key is an error that
// says so.
func TestManageVSCodeFile(t *testing.T) {
	echo := mcptest.Stdio("echo")
	file := writeJSON(t, map[string]any{"servers": map[string]any{
		"vs": map[string]any{"type": "stdio", "command": echo.Command, "args": echo.Args, "env": echo.Env},
	}})
	rt := startRuntime(t, mcpactor.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{ConfigFile: file, NoCache: true})
	if err != nil {
		t.Fatalf("Manage: %v", err)
	}
	if _, err := m.CallTool(ctx, "mcp__vs__echo", map[string]any{"message": "hi"}); err != nil {
		t.Errorf("the VS Code file's server: %v", err)
	}
	_, err = rt.Manage(ctx, mcpactor.ManageOptions{ConfigFile: writeJSON(t, map[string]any{"other": map[string]any{}})})
	if err == nil || !strings.Contains(err.Error(), `no "mcpServers" or "servers" object`) {
		t.Errorf("a file without servers: %v", err)
	}
}

// Manage with no servers gives an empty, working manager that Add grows;
// after Close its methods say ErrManagerClosed.
func TestManageEmptyGrowsAndCloses(t *testing.T) {
	rt := startRuntime(t, mcpactor.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true})
	if err != nil {
		t.Fatalf("Manage with no servers: %v", err)
	}
	if len(m.Status()) != 0 {
		t.Fatalf("status %v", m.Status())
	}
	if err := m.Add(ctx, "late", mcptest.Stdio("echo")); err != nil {
		t.Fatal(err)
	}
	var res error
	for range 200 {
		if _, res = m.CallTool(ctx, "mcp__late__echo", map[string]any{"message": "x"}); res == nil {
			break
		}
		var unknown *mcpactor.UnknownToolError
		if !errors.As(res, &unknown) {
			break
		}
		waitABit()
	}
	if res != nil {
		t.Fatalf("a call to the added server: %v", res)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CallTool(ctx, "mcp__late__echo", nil); !errors.Is(err, mcpactor.ErrManagerClosed) {
		t.Errorf("CallTool after Close: %v", err)
	}
	if err := m.Add(ctx, "x", mcptest.Stdio("echo")); !errors.Is(err, mcpactor.ErrManagerClosed) {
		t.Errorf("Add after Close: %v", err)
	}
}

// Prompts and resources of server-everything (stdio) through a manager:
// prompts by exposed name, resources by server and URI.
func TestManageEverythingPromptsAndResources(t *testing.T) {
	node, script := peers.ServerEverything(t)
	rt := startRuntime(t, mcpactor.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true, Servers: map[string]mcpactor.ServerConfig{
		"everything": {Command: node, Args: []string{script, "stdio"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var prompts []mcpactor.ManagedPrompt
	for range 400 {
		if prompts = m.ListPrompts(); len(prompts) > 0 && len(m.ListResources()) > 0 {
			break
		}
		waitABit()
	}
	found := false
	for _, p := range prompts {
		found = found || (p.Name == "mcp__everything__simple-prompt" && p.Server == "everything" && p.Prompt.Name == "simple-prompt")
	}
	if !found {
		t.Fatalf("prompts %+v lack mcp__everything__simple-prompt", prompts)
	}
	gp, err := m.GetPrompt(ctx, "mcp__everything__simple-prompt", nil)
	if err != nil || len(gp.Messages) == 0 {
		t.Fatalf("GetPrompt: %+v, %v", gp, err)
	}
	r := m.ListResources()[0]
	read, err := m.ReadResource(ctx, r.Server, r.Resource.URI)
	if err != nil || len(read.Contents) == 0 {
		t.Fatalf("ReadResource(%s): %+v, %v", r.Resource.URI, read, err)
	}
}

func waitABit() { time.Sleep(25 * time.Millisecond) }
