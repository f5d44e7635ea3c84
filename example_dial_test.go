package mcpactor_test

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// A server in the same process, reached over a pipe instead of a
// subprocess: ServerConfig.Dial returns the client's end of any byte
// stream (a net.Pipe here, a socket elsewhere) and the runtime speaks the
// same newline-delimited JSON over it as over stdio. Handy in a program's
// own tests.
func ExampleServerConfig_dial() {
	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Stop(ctx)

	c, err := rt.Connect(ctx, "in-process", mcpactor.ServerConfig{
		Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
			ours, theirs := net.Pipe()
			// Your server's own Serve over the other end; here, this
			// module's test server.
			go func() {
				defer theirs.Close()
				testserver.Serve(ctx, theirs, theirs, io.Discard, testserver.Options{})
			}()
			return ours, nil
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
