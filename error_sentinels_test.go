package mcpactor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// TestConfigSyntaxErrorMatchesErrConfig checks that a configuration file
// Manage cannot parse is told by errors.Is(err, ErrConfig), as every
// configuration that cannot work is.
func TestConfigSyntaxErrorMatchesErrConfig(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, mcpactor.Options{})
	for name, body := range map[string]string{
		"syntax":     `{"mcpServers": {"a": {"command": "x",}`,
		"not object": `{"mcpServers": []}`,
		"no servers": `{"other": {}}`,
		"empty":      `{"mcpServers": {}}`,
		"invalid":    `{"mcpServers": {"a": {"comand": "x"}}}`,
	} {
		path := filepath.Join(t.TempDir(), "mcp.json")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := rt.Manage(waitCtx(t), mcpactor.ManageOptions{ConfigFile: path, NoCache: true})
		if !errors.Is(err, mcpactor.ErrConfig) {
			t.Errorf("%s: Manage = %v (%T), want errors.Is ErrConfig", name, err, err)
		}
	}
}

// TestUnencodableArgumentsMatchErrInvalidArguments checks that arguments
// encoding/json cannot encode are refused, before anything is sent, with
// an *ArgumentsError: errors.Is(err, ErrInvalidArguments), naming the
// server and the tool, and unwrapping to encoding/json's reason.
func TestUnencodableArgumentsMatchErrInvalidArguments(t *testing.T) {
	t.Parallel()
	fake := &mcptest.Server{}
	rt := startRuntime(t, mcpactor.Options{})
	t.Cleanup(fake.Close)
	c, err := rt.Connect(waitCtx(t), "enc", fake.InProcess())
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []any{struct{ X chan int }{make(chan int)}, map[string]any{"f": func() {}}} {
		_, err := c.CallTool(waitCtx(t), "echo", args)
		var ae *mcpactor.ArgumentsError
		if !errors.Is(err, mcpactor.ErrInvalidArguments) || !errors.As(err, &ae) || ae.Server != "enc" || ae.Tool != "echo" || ae.Err == nil {
			t.Errorf("CallTool(%T): %v (%T), want an *ArgumentsError matching ErrInvalidArguments", args, err, err)
		}
		_, err = c.CallToolWith(waitCtx(t), "echo", args, mcpactor.CallOptions{OnProgress: func(messages.ProgressParams) {}})
		if !errors.Is(err, mcpactor.ErrInvalidArguments) {
			t.Errorf("CallToolWith(%T, progress): %v (%T), want ErrInvalidArguments", args, err, err)
		}
	}
	if n := countOf(fake.Methods(), "tools/call"); n != 0 {
		t.Errorf("%d tools/call reached the server", n)
	}
}

// TestManagerUnknownNamesMatchSentinels checks that a tool no managed
// server offers and a server the manager does not manage are told by
// errors.Is, with ErrUnknownTool and ErrUnknownServer.
func TestManagerUnknownNamesMatchSentinels(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, mcpactor.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	_, err = m.CallTool(ctx, "mcp__nobody__echo", nil)
	var ut *mcpactor.UnknownToolError
	if !errors.Is(err, mcpactor.ErrUnknownTool) || !errors.As(err, &ut) {
		t.Errorf("CallTool of an unknown tool: %v (%T), want ErrUnknownTool", err, err)
	}
	if _, err := m.GetPrompt(ctx, "mcp__nobody__p", nil); !errors.Is(err, mcpactor.ErrUnknownTool) {
		t.Errorf("GetPrompt of an unknown prompt: %v (%T), want ErrUnknownTool", err, err)
	}
	for what, err := range map[string]error{
		"Remove":  m.Remove(ctx, "nobody"),
		"Restart": m.Restart(ctx, "nobody"),
	} {
		var us *mcpactor.UnknownServerError
		if !errors.Is(err, mcpactor.ErrUnknownServer) || !errors.As(err, &us) {
			t.Errorf("%s of an unknown server: %v (%T), want ErrUnknownServer", what, err, err)
		}
	}
	if _, err := m.ReadResource(ctx, "nobody", "file:///x"); !errors.Is(err, mcpactor.ErrUnknownServer) {
		t.Errorf("ReadResource of an unknown server: %v (%T), want ErrUnknownServer", err, err)
	}
}
