package mcpactor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// The fake servers of the public test kit (transport/mcptest) that this
// package's tests reach as child processes (mcptest.Stdio): declared at
// package level, so that the re-executed test binary (TestMain calls
// mcptest.RunIfChild) has them too. Tests that need no process use their
// own mcptest.Server, InProcess.

// kitEcho answers its message argument as text.
var kitEcho = mcptest.Tool{
	Name:        "echo",
	Description: "Returns message as text.",
	InputSchema: `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`,
	Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
		var a struct{ Message string }
		if err := c.Bind(&a); err != nil {
			return nil, err
		}
		return kitText(a.Message), nil
	},
}

// kitSleep sleeps ms milliseconds, unless cancelled (then it answers
// nothing: the client gave up on it).
var kitSleep = mcptest.Tool{
	Name:        "sleep",
	Description: "Sleeps ms milliseconds, unless cancelled.",
	InputSchema: `{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}`,
	Handler: func(ctx context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
		var a struct{ Ms int }
		if err := c.Bind(&a); err != nil {
			return nil, err
		}
		select {
		case <-time.After(time.Duration(a.Ms) * time.Millisecond):
			return kitText("slept"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	},
}

// kitAskClient sends the client the request of its arguments and answers
// the client's result as text (its error as a tool error).
var kitAskClient = mcptest.Tool{
	Name:        "ask-client",
	InputSchema: `{"type":"object","properties":{"method":{"type":"string"},"params":{"type":"object"}},"required":["method"]}`,
	Handler: func(ctx context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
		var a struct {
			Method string
			Params json.RawMessage
		}
		if err := c.Bind(&a); err != nil {
			return nil, err
		}
		var res json.RawMessage
		if err := c.Ask(ctx, a.Method, a.Params, &res); err != nil {
			return nil, err
		}
		return kitText(string(res)), nil
	},
}

// kitProgress reports steps progress notifications intervalMs apart
// ("step i" of steps), then answers done.
var kitProgress = mcptest.Tool{
	Name:        "progress",
	Description: "Reports steps progress notifications intervalMs apart, then returns done.",
	InputSchema: `{"type":"object","properties":{"steps":{"type":"integer"},"intervalMs":{"type":"integer"}},"required":["steps"]}`,
	Handler: func(ctx context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
		var a struct{ Steps, IntervalMs int }
		if err := c.Bind(&a); err != nil {
			return nil, err
		}
		for i := 1; i <= a.Steps; i++ {
			if a.IntervalMs > 0 {
				select {
				case <-time.After(time.Duration(a.IntervalMs) * time.Millisecond):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			c.Progress(float64(i), float64(a.Steps), fmt.Sprintf("step %d", i))
		}
		return kitText("done"), nil
	},
}

// kitServers are the servers mcptest.Stdio reaches, by name.
var kitServers = map[string]*mcptest.Server{
	// echo: one tool.
	"echo": {Tools: []mcptest.Tool{kitEcho}},
	// demo, demo-paged: the Examples' server, its tools two per page.
	"demo":       demoServer(0),
	"demo-paged": demoServer(2),
	// slow-handshake: echo, behind an initialize answered after 300 ms.
	"slow-handshake": {Tools: []mcptest.Tool{kitEcho}, Faults: mcptest.Faults{SlowInitialize: 300 * time.Millisecond}},
	// login-banner: prints two lines of a login prompt, then never
	// answers initialize.
	"login-banner": {Faults: mcptest.Faults{Banner: "Please log in first: run `tool auth`\nwaiting for login...", SlowInitialize: time.Hour}},
	// stubborn-stuck: never answers initialize, and ignores SIGTERM and
	// stdin's end: only SIGKILL ends it.
	"stubborn-stuck": {Faults: mcptest.Faults{SlowInitialize: time.Hour, IgnoreSIGTERM: true}},
	// leaky: prints what it is given on stdout (send-raw), and crashes
	// with the planted secret on stderr.
	"leaky": {Tools: []mcptest.Tool{
		{Name: "send-raw", Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
			var a struct{ Lines []string }
			if err := c.Bind(&a); err != nil {
				return nil, err
			}
			c.SendRaw(a.Lines...)
			return kitText("ok"), nil
		}},
		{Name: "crash", Fault: mcptest.Fault{Crash: &mcptest.Crash{Code: 1, Stderr: "fatal: bad token " + secretEnv}}},
	}},
	// noisy: echo, whose answers follow three lines that are no answer.
	"noisy": {Tools: []mcptest.Tool{{Name: "echo", InputSchema: kitEcho.InputSchema, Handler: kitEcho.Handler,
		Fault: mcptest.Fault{Garbage: true}}}},
	// chatty: notifications and stderr lines on demand.
	"chatty": {Tools: []mcptest.Tool{kitEcho,
		{Name: "notify", InputSchema: `{"type":"object","properties":{"method":{"type":"string"},"params":{"type":"object"}},"required":["method"]}`,
			Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
				var a struct {
					Method string
					Params json.RawMessage
				}
				if err := c.Bind(&a); err != nil {
					return nil, err
				}
				var params any
				if len(a.Params) > 0 {
					params = a.Params
				}
				return kitText("ok"), c.Notify(a.Method, params)
			}},
		{Name: "stderr-flood", InputSchema: `{"type":"object","properties":{"bytes":{"type":"integer"}},"required":["bytes"]}`,
			Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
				var a struct{ Bytes int }
				if err := c.Bind(&a); err != nil {
					return nil, err
				}
				for i := 0; a.Bytes > 0; i++ {
					line := fmt.Sprintf("stderr line %d %s\n", i, strings.Repeat("x", 40))
					line = line[:min(len(line), a.Bytes)]
					if _, err := c.Stderr().Write([]byte(line)); err != nil {
						return nil, err
					}
					a.Bytes -= len(line)
				}
				return kitText("ok"), nil
			}},
	}},
	// everyday: the tools of the telemetry and lifecycle tests: echo,
	// sleep, progress, a tool error, a JSON-RPC error, a request to the
	// client, the call's _meta, and a crash (exit status 2).
	"everyday": {Tools: []mcptest.Tool{kitEcho, kitSleep, kitProgress, kitAskClient, kitFail, kitRPCError,
		{Name: "trace-meta", Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
			meta := c.Meta()
			if meta == nil {
				meta = json.RawMessage(`{}`)
			}
			return kitText(string(meta)), nil
		}},
		{Name: "crash", Fault: mcptest.Fault{Crash: &mcptest.Crash{Code: 2, Stderr: "crashed on purpose"}}},
	}},
}

// kitFail answers its message as a tool error.
var kitFail = mcptest.Tool{
	Name:        "fail",
	Description: "Returns a tool error (isError) with message.",
	Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
		var a struct{ Message string }
		_ = c.Bind(&a)
		return nil, errors.New(a.Message)
	},
}

// kitRPCError answers with the JSON-RPC error of its arguments.
var kitRPCError = mcptest.Tool{
	Name:        "rpc-error",
	Description: "Answers with a JSON-RPC error of the given code and message.",
	Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
		var a struct {
			Code    int
			Message string
		}
		if err := c.Bind(&a); err != nil {
			return nil, err
		}
		return nil, &mcptest.RPCError{Code: a.Code, Message: a.Message}
	},
}

// demoServer is the server of the Examples: a few everyday tools, in a
// fixed order, listed pageSize at a time (0: all at once).
func demoServer(pageSize int) *mcptest.Server {
	return &mcptest.Server{Name: "demo-server", Version: "1.0.0", PageSize: pageSize, Tools: []mcptest.Tool{
		kitEcho, kitSleep, kitProgress, kitFail, kitRPCError,
		{Name: "big", Description: "Returns one text content of bytes 'x' characters.",
			Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
				var a struct{ Bytes int }
				if err := c.Bind(&a); err != nil {
					return nil, err
				}
				return kitText(strings.Repeat("x", a.Bytes)), nil
			}},
		kitAskClient,
	}}
}

// kitText is a result of one text content.
func kitText(s string) *messages.CallToolResult {
	return &messages.CallToolResult{Content: []messages.Content{messages.TextContent(s)}}
}
