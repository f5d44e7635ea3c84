package mcpactor_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// The examples run against a fake server of the test kit
// (transport/mcptest, kitServers' "demo"), this test binary started again
// as a child process. A program names its server instead, for example:
//
//	mcpactor.ServerConfig{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}}
func exampleServer() mcpactor.ServerConfig {
	return mcptest.Stdio("demo")
}

// Start a runtime, connect one server, call a tool, and stop.
func ExampleStart() {
	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Stop closes every server: pending calls fail, and each process is
	// asked to exit, then killed, and reaped.
	defer rt.Stop(ctx)

	// Connect starts the server and waits for the MCP handshake.
	c, err := rt.Connect(ctx, "demo", exampleServer())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("connected to", c.ServerInfo().Name, "using protocol", c.ProtocolVersion())

	res, err := c.CallTool(ctx, "echo", map[string]any{"message": "hello, MCP"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].Text)
	// Output:
	// connected to demo-server using protocol 2025-11-25
	// hello, MCP
}

// A tool that fails says so in its result (IsError); an error from
// CallTool means the call itself failed: timeout, transport, protocol.
func ExampleClient_CallTool() {
	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Stop(ctx)
	c, err := rt.Connect(ctx, "demo", exampleServer())
	if err != nil {
		fmt.Println(err)
		return
	}

	for _, msg := range []string{"all good", "disk full"} {
		tool := "echo"
		if msg == "disk full" {
			tool = "fail" // answers with isError set
		}
		res, err := c.CallTool(ctx, tool, map[string]any{"message": msg})
		switch {
		case err != nil:
			fmt.Println("call failed:", err)
		case res.IsError:
			fmt.Println("tool reported an error:", res.Content[0].Text)
		default:
			fmt.Println("tool answered:", res.Content[0].Text)
		}
	}
	// Output:
	// tool answered: all good
	// tool reported an error: disk full
}

// OnProgress asks the server for progress notifications and receives this
// call's, in order, before the call returns.
func ExampleClient_CallToolWith() {
	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Stop(ctx)
	c, err := rt.Connect(ctx, "demo", exampleServer())
	if err != nil {
		fmt.Println(err)
		return
	}

	res, err := c.CallToolWith(ctx, "progress", map[string]any{"steps": 3, "intervalMs": 10}, mcpactor.CallOptions{
		OnProgress: func(p messages.ProgressParams) {
			fmt.Printf("progress %v of %v: %s\n", p.Progress, *p.Total, p.Message)
		},
		// Keep waiting as long as progress keeps coming, but never more
		// than a minute in all.
		Timeout:                5 * time.Second,
		ResetTimeoutOnProgress: true,
		MaxTotalTimeout:        time.Minute,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("result:", res.Content[0].Text)
	// Output:
	// progress 1 of 3: step 1
	// progress 2 of 3: step 2
	// progress 3 of 3: step 3
	// result: done
}

// ListTools reads every page of tools/list.
func ExampleClient_ListTools() {
	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Stop(ctx)
	c, err := rt.Connect(ctx, "demo", exampleServer())
	if err != nil {
		fmt.Println(err)
		return
	}

	tools, err := c.ListTools(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, tool := range tools[:3] {
		fmt.Printf("%s: %s\n", tool.Name, tool.Description)
	}
	// Output:
	// echo: Returns message as text.
	// sleep: Sleeps ms milliseconds, unless cancelled.
	// progress: Reports steps progress notifications intervalMs apart, then returns done.
}

// Tools iterates over the tools, fetching the next page of tools/list only
// when the loop gets there; breaking out of the loop fetches no more.
func ExampleClient_Tools() {
	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Stop(ctx)
	// This server returns its tools two per page.
	c, err := rt.Connect(ctx, "demo", mcptest.Stdio("demo-paged"))
	if err != nil {
		fmt.Println(err)
		return
	}

	var names []string
	for tool, err := range c.Tools(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		names = append(names, tool.Name)
		if tool.Name == "big" {
			break
		}
	}
	fmt.Println(strings.Join(names, " "))
	// Output:
	// echo sleep progress fail rpc-error big
}

// Handlers answer the requests a server sends to the client. Registering a
// handler declares the capability in the handshake; here the server asks
// for the client's roots (the demo server's ask-client tool sends any
// request to the client and returns the answer).
func ExampleHandlers() {
	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{
		Handlers: mcpactor.Handlers{
			Roots: func(ctx context.Context, server string) ([]messages.Root, error) {
				return []messages.Root{{URI: "file:///home/ada/project", Name: "project"}}, nil
			},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Stop(ctx)
	c, err := rt.Connect(ctx, "demo", exampleServer())
	if err != nil {
		fmt.Println(err)
		return
	}

	res, err := c.CallTool(ctx, "ask-client", map[string]any{"method": "roots/list"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the server got:", res.Content[0].Text)
	// Output:
	// the server got: {"roots":[{"uri":"file:///home/ada/project","name":"project"}]}
}

// Errors are *Error values (or *RPCError, for a JSON-RPC error answer):
// use errors.Is with the sentinels of this package to tell their kind, and
// errors.As to read their details.
func Example_errorHandling() {
	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Stop(ctx)
	c, err := rt.Connect(ctx, "demo", exampleServer())
	if err != nil {
		fmt.Println(err)
		return
	}

	// A call that takes longer than its timeout. The server is told to
	// cancel it; the connection stays usable.
	_, err = c.CallToolWith(ctx, "sleep", map[string]any{"ms": 5000}, mcpactor.CallOptions{Timeout: 100 * time.Millisecond})
	var timeout *mcpactor.Error
	if errors.As(err, &timeout) && timeout.Kind == mcpactor.ErrTimeout {
		fmt.Println(err)
		fmt.Println("method:", timeout.Method, "server:", timeout.Server)
	}
	fmt.Println("is ErrTimeout:", errors.Is(err, mcpactor.ErrTimeout))

	// A JSON-RPC error answer from the server.
	_, err = c.CallTool(ctx, "rpc-error", map[string]any{"code": -32602, "message": "bad input"})
	var rpcErr *mcpactor.RPCError
	if errors.As(err, &rpcErr) {
		fmt.Println("code:", rpcErr.Code, "message:", rpcErr.Message)
	}
	// Output:
	// MCP server "demo": tools/call (id 3): Request timeout after 100ms
	// method: tools/call server: demo
	// is ErrTimeout: true
	// code: -32602 message: bad input
}

// An *Error says what failed (its Kind, which errors.Is matches), where
// (Server, Method) and the details of its kind: here, a server that
// exited during a call, with its exit status and what it wrote to stderr.
func ExampleError() {
	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Stop(ctx)
	c, err := rt.Connect(ctx, "demo", mcptest.Stdio("everyday"))
	if err != nil {
		fmt.Println(err)
		return
	}

	_, err = c.CallTool(ctx, "crash", nil)
	// readme:begin errors
	var e *mcpactor.Error
	if errors.As(err, &e) {
		fmt.Println("kind:", e.Kind)
		fmt.Println("server:", e.Server, "method:", e.Method)
		fmt.Println("exit:", e.ExitStatus, "stderr:", e.Stderr)
	}
	// readme:end errors
	fmt.Println("is ErrTransportClosed:", errors.Is(err, mcpactor.ErrTransportClosed))
	// Output:
	// kind: Transport closed
	// server: demo method: tools/call
	// exit: exit status 2 stderr: crashed on purpose
	// is ErrTransportClosed: true
}

// TestCallToolWithDeliversEveryProgress backs what ExampleClient_CallToolWith
// shows: every progress notification the server sends before its response
// reaches OnProgress before CallToolWith returns. The test kit's server
// sends the notifications and the response back to back (intervalMs 0),
// so they arrive together.
func TestCallToolWithDeliversEveryProgress(t *testing.T) {
	rt := startRuntime(t, mcpactor.Options{})
	ctx := waitCtx(t)
	c, err := rt.Connect(ctx, "burst", mcptest.Stdio("everyday"))
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	const calls, steps = 100, 5
	short := 0
	for range calls {
		_, p, err := callWithProgress(ctx, c, "progress", map[string]any{"steps": steps, "intervalMs": 0})
		if err != nil {
			t.Fatalf("CallToolWith: %v", err)
		}
		if len(p.got) != steps {
			short++
		}
	}
	if short > 0 {
		t.Errorf("%d of %d calls got fewer than %d progress notifications (dropped: %d)", short, calls, steps, c.Stats().DroppedProgress)
	}
}
