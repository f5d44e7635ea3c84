package mcpactor_test

// The README's code, each block the region of an Example between its
// "readme:begin" and "readme:end" lines: go vet and go test compile them,
// and `make check` (internal/readme) fails when README.md and these
// regions differ. They have no Output, so they are compiled, not run: they
// name servers this machine need not have.

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// A runtime with handlers, a stdio server and a remote one, a call with
// options.
func Example_library() {
	// readme:begin library
	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{
		// Optional: answer the server's requests. Capabilities are declared
		// from the handlers you set; unset ones are answered -32601.
		Handlers: mcpactor.Handlers{
			Roots: func(ctx context.Context, server string) ([]messages.Root, error) {
				return []messages.Root{{URI: "file:///work", Name: "work"}}, nil
			},
			Notification: func(server string, n mcpactor.Notification) {
				log.Printf("%s: %s", server, n.Method) // list_changed, log messages, resource updates
			},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Stop(ctx) // closes every server: stdin, SIGTERM, SIGKILL; always reaped

	// A local server over stdio...
	c, err := rt.Connect(ctx, "files", mcpactor.ServerConfig{
		Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/work"},
	})
	// ...or a remote one over Streamable HTTP (legacy HTTP+SSE servers are
	// detected and spoken to as such; Type: "sse" asks for it outright).
	// c, err := rt.Connect(ctx, "remote", mcpactor.ServerConfig{URL: "https://example.com/mcp"})
	if err != nil {
		log.Fatal(err) // an *mcpactor.Error: its Kind (ErrTimeout, ErrStart, ...), the server's stderr excerpt
	}

	tools, err := c.ListTools(ctx) // every page; c.Tools(ctx) is the iterator form
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("%d tools", len(tools))
	res, err := c.CallTool(ctx, "read_file", map[string]any{"path": "/work/README.md"})
	if err != nil {
		log.Fatal(err) // the call failed: protocol, transport, timeout
	}
	if res.IsError {
		log.Print("the tool failed: ", res.Content[0].Text)
	}

	// Per-call options: timeout, progress, an absolute cap.
	res, err = c.CallToolWith(ctx, "index", nil, mcpactor.CallOptions{
		Timeout:                10 * time.Second,
		ResetTimeoutOnProgress: true,
		MaxTotalTimeout:        5 * time.Minute,
		OnProgress:             func(p messages.ProgressParams) { log.Println(p.Progress, p.Message) },
	})
	// readme:end library
	_, _ = res, err
}

// A manager of many servers, from a configuration file.
func ExampleRuntime_Manage() {
	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Stop(ctx)
	// readme:begin manager
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{
		ConfigFile: "mcp.json", // the mcpServers format; or Servers: map[string]mcpactor.ServerConfig{...}
		// Discover: &mcpactor.DiscoverOptions{...} finds the servers of Claude Code,
		// Codex, Gemini CLI, Cursor, Windsurf, VS Code and mcp.json files instead.
		OnEvent: func(e mcpactor.ManagerEvent) { log.Println(e.Server, e.Kind, e.State) },
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range m.ListTools() { // mcp__<server>__<tool>, unique and at most 64 characters
		fmt.Println(t.Name, t.Tool.Description)
	}
	res, err := m.CallTool(ctx, "mcp__files__read_file", map[string]any{"path": "/work/README.md"})
	for _, s := range m.Status() { // state, source, protocol version, last error, restarts, p50/p99
		fmt.Println(s.Name, s.State, s.ProtocolVersion, s.Restarts)
	}
	// readme:end manager
	_, _ = res, err
}

// A fake server of the test kit, with a tool that answers and one that
// crashes once, managed like a real one.
func Example_fakeServer() {
	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Stop(ctx)
	// readme:begin fake
	fake := &mcptest.Server{Tools: []mcptest.Tool{{
		Name: "forecast",
		Handler: func(ctx context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
			return &messages.CallToolResult{Content: []messages.Content{messages.TextContent("sunny")}}, nil
		},
	}, {Name: "flaky", Fault: mcptest.Fault{Crash: &mcptest.Crash{Code: 1, Stderr: "panic", Times: 1}}}}}
	defer fake.Close()
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{
		NoCache: true, // a test keeps no tool-list cache in the user's cache directory
		Servers: map[string]mcpactor.ServerConfig{
			"weather": fake.InProcess(), // no process, no port; or mcptest.Stdio(name), fake.StartHTTP().Config()
		},
	})
	// readme:end fake
	_, _ = m, err
}
