package mcpactor_test

// Runtime.Manage (manage.go): a manager of several servers, its
// configuration files and their problems, a reload, and a restart by a new
// configuration.

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/peers"
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

// Runtime.Manage and its configuration files: what it keeps of a file's
// problems, the VS Code format, a manager that starts empty and grows, and
// every way of finding no configuration (ErrConfig).

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

// startManager starts a runtime for t and a Manager on it with opts,
// failing t if the Manager does not start. ctx bounds the test; the
// runtime stops when t ends.
func startManager(t *testing.T, opts mcpactor.ManageOptions) (context.Context, *mcpactor.Runtime, *mcpactor.Manager) {
	t.Helper()
	rt := startRuntime(t, mcpactor.Options{})
	ctx := waitCtx(t)
	m, err := rt.Manage(ctx, opts)
	if err != nil {
		t.Fatalf("Manage: %v", err)
	}
	return ctx, rt, m
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
	ctx, _, m := startManager(t, mcpactor.ManageOptions{ConfigFile: file, NoCache: true})
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
	ctx, rt, m := startManager(t, mcpactor.ManageOptions{ConfigFile: file, NoCache: true})
	if _, err := m.CallTool(ctx, "mcp__vs__echo", map[string]any{"message": "hi"}); err != nil {
		t.Errorf("the VS Code file's server: %v", err)
	}
	_, err := rt.Manage(ctx, mcpactor.ManageOptions{ConfigFile: writeJSON(t, map[string]any{"other": map[string]any{}})})
	if err == nil || !strings.Contains(err.Error(), `no "mcpServers" or "servers" object`) {
		t.Errorf("a file without servers: %v", err)
	}
}

// Manage with no servers gives an empty, working manager that Add grows;
// after Close its methods say ErrStopped.
func TestManageEmptyGrowsAndCloses(t *testing.T) {
	ctx, _, m := startManager(t, mcpactor.ManageOptions{NoCache: true})
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
		var unknown *mcpactor.Error
		if !(errors.As(res, &unknown) && callerr.UnknownTool(unknown) == unknown) {
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
	if _, err := m.CallTool(ctx, "mcp__late__echo", nil); !errors.Is(err, mcpactor.ErrStopped) {
		t.Errorf("CallTool after Close: %v", err)
	}
	if err := m.Add(ctx, "x", mcptest.Stdio("echo")); !errors.Is(err, mcpactor.ErrStopped) {
		t.Errorf("Add after Close: %v", err)
	}
}

// Prompts and resources of server-everything (stdio) through a manager:
// prompts by exposed name, resources by server and URI.
func TestManageEverythingPromptsAndResources(t *testing.T) {
	node, script := peers.ServerEverything(t)
	ctx, _, m := startManager(t, mcpactor.ManageOptions{NoCache: true, Servers: map[string]mcpactor.ServerConfig{
		"everything": {Command: node, Args: []string{script, "stdio"}}}})
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

// Every way Manage can find no configuration to run is an ErrConfig, and
// a file that is not there is still fs.ErrNotExist (issue 35, item 8).
func TestManageConfigErrorsMatchErrConfig(t *testing.T) {
	rt := startRuntime(t, mcpactor.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	dir := t.TempDir()

	_, err := rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true, ConfigFile: filepath.Join(dir, "missing.json")})
	if !errors.Is(err, mcpactor.ErrConfig) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrConfig and fs.ErrNotExist", err)
	}
	_, err = rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true, Discover: &mcpactor.DiscoverOptions{Home: dir, ProjectDir: dir}})
	if !errors.Is(err, mcpactor.ErrConfig) {
		t.Errorf("discovery that finds nothing: %v, want ErrConfig", err)
	}
}

// A server whose configuration a Reload or an Add changes is restarted;
// meanwhile its tools stay offered, and a call to one waits for the new
// server, as it waits for one restarting after a crash. Found by the soak
// (docs/reliability.md): the call failed with unknown-tool error, as if
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
			if callerr.UnknownTool(err) != nil {
				t.Fatalf("the call failed as if the server had been removed: %v", err)
			}
			if err != nil {
				t.Fatalf("during the restart: %v", err)
			}
		})
	}
}
