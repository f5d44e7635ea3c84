package mcptest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// A tool-calling test: the fake server declares a tool as a Go function,
// the code under test calls it, and the test checks both the answer and
// the arguments the server received.
func Example() {
	weather := &mcptest.Server{Tools: []mcptest.Tool{{
		Name:        "forecast",
		Description: "The weather tomorrow in a city.",
		InputSchema: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
		Handler: func(ctx context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
			var args struct{ City string }
			if err := c.Bind(&args); err != nil {
				return nil, err
			}
			return &messages.CallToolResult{Content: []messages.Content{
				messages.TextContent("sunny in " + args.City)}}, nil
		},
	}}}
	defer weather.Close()

	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Stop(ctx)
	c, err := rt.Connect(ctx, "weather", weather.InProcess())
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := c.CallTool(ctx, "forecast", map[string]any{"city": "Lyon"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].Text)
	fmt.Println(string(weather.Calls()[0].Arguments))
	// Output:
	// sunny in Lyon
	// {"city":"Lyon"}
}

// A timeout test: a tool that never answers, a call with a short timeout.
// The call fails with mcpactor.ErrTimeout, and the server received the
// cancellation the runtime sent for it.
func ExampleFault_hang() {
	stuck := &mcptest.Server{Tools: []mcptest.Tool{{Name: "stuck", Fault: mcptest.Fault{Hang: true}}}}
	defer stuck.Close()

	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Stop(ctx)
	c, err := rt.Connect(ctx, "stuck", stuck.InProcess())
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = c.CallToolWith(ctx, "stuck", nil, mcpactor.CallOptions{Timeout: 50 * time.Millisecond})
	fmt.Println("timed out:", errors.Is(err, mcpactor.ErrTimeout))

	for len(stuck.Cancellations()) == 0 { // the cancellation follows the timeout
		time.Sleep(time.Millisecond)
	}
	fmt.Println("cancelled:", string(stuck.Cancellations()[0].RequestID) == string(stuck.Calls()[0].ID))
	// Output:
	// timed out: true
	// cancelled: true
}

// A crash-and-restart test through the manager: the first call crashes
// the server, the manager restarts it (a new connection to the same
// in-process Server), and the next call succeeds. No process is
// spawned, no port opened.
func ExampleCrash() {
	flaky := &mcptest.Server{Tools: []mcptest.Tool{
		{Name: "ping", Handler: func(context.Context, *mcptest.Call) (*messages.CallToolResult, error) {
			return &messages.CallToolResult{Content: []messages.Content{messages.TextContent("pong")}}, nil
		}},
		{Name: "flaky", Fault: mcptest.Fault{Crash: &mcptest.Crash{Code: 1, Stderr: "panic: flaky", Times: 1}}},
	}}
	defer flaky.Close()

	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Stop(ctx)
	cfg := flaky.InProcess()
	cfg.Restart = mcpactor.RestartPolicy{BackoffMin: 10 * time.Millisecond, BackoffMax: 10 * time.Millisecond}
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true, Servers: map[string]mcpactor.ServerConfig{"flaky": cfg}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close(ctx)

	_, err = m.CallTool(ctx, "mcp__flaky__flaky", nil)
	fmt.Println("crashed:", errors.Is(err, mcpactor.ErrTransportClosed))
	fmt.Println(strings.TrimSpace(flaky.Stderr()))

	// The manager restarts the server after its backoff; calls made
	// meanwhile fail with mcpactor.ErrServerUnavailable.
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := m.CallTool(ctx, "mcp__flaky__ping", nil)
		if err == nil {
			fmt.Println(res.Content[0].Text)
			break
		}
		if time.Now().After(deadline) {
			fmt.Println(err)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Output:
	// crashed: true
	// panic: flaky
	// pong
}
