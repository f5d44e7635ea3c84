package mcpactor_test

import (
	"context"
	"fmt"
	"io"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// A server in the same process, reached over a pipe instead of a
// subprocess: ServerConfig.Dial returns the client's end of any byte
// stream (a socket, an SSH channel) and the runtime speaks the same
// newline-delimited JSON over it as over stdio. Here the stream is a
// net.Pipe to a fake server of package transport/mcptest, whose
// InProcess method makes this configuration in one call.
func ExampleServerConfig_dial() {
	ctx := context.Background()
	fake := &mcptest.Server{Tools: []mcptest.Tool{{
		Name: "echo",
		Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
			var args struct{ Message string }
			if err := c.Bind(&args); err != nil {
				return nil, err
			}
			return &messages.CallToolResult{Content: []messages.Content{messages.TextContent(args.Message)}}, nil
		},
	}}}
	defer fake.Close()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Stop(ctx)

	c, err := rt.Connect(ctx, "in-process", mcpactor.ServerConfig{
		Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
			return fake.Dial(ctx) // or: net.Dial, an SSH channel...
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := c.CallTool(ctx, "echo", map[string]any{"message": "no process needed"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].Text)
	// Output:
	// no process needed
}

// A Client outlives its connections: Reconnect replaces the server's
// process under the same handle, and Generation tells which connection is
// current.
func ExampleClient_Reconnect() {
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
	first := c.Generation()
	if err := c.Reconnect(ctx); err != nil {
		fmt.Println(err)
		return
	}
	<-first.Replaced // closed when generation 1 was replaced
	fmt.Println("now on generation", c.Generation().Number)
	res, err := c.CallTool(ctx, "echo", map[string]any{"message": "same handle"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].Text)
	// Output:
	// now on generation 2
	// same handle
}
