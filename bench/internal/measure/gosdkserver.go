package measure

import (
	"context"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// GoSDKEchoServer is the go-sdk's own server (mcp.NewServer) with the one
// tool the throughput benchmarks call, echo, which answers its message
// as text: the server a command serves over the go-sdk's transport of
// its choice.
func GoSDKEchoServer(name string) *gosdk.Server {
	srv := gosdk.NewServer(&gosdk.Implementation{Name: name, Version: "0.0.1"}, nil)
	gosdk.AddTool(srv, &gosdk.Tool{Name: "echo", Description: "Returns message as text."},
		func(_ context.Context, _ *gosdk.CallToolRequest, in echoArgs) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: in.Message}}}, nil, nil
		})
	return srv
}

// echoArgs are echo's arguments.
type echoArgs struct {
	Message string `json:"message"`
}
