package main

import (
	"context"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// client is one connected MCP client: Call runs tools/call echo with msg
// and returns the text of the result's first content item.
type client interface {
	measure.Caller
	Close(ctx context.Context) error
}

type dialer func(ctx context.Context, s measure.StdioServer) (client, error)

var dialers = map[string]dialer{
	"mcpactor": dialMcpactor,
	"gosdk":    dialGoSDK,
	"mcpgo":    dialMcpGo,
	"wire":     dialWire,
}

var clientOrder = []string{"mcpactor", "gosdk", "mcpgo", "wire"}

// peers are the other MCP client libraries (not the hand-written limit).
var peers = map[string]bool{"gosdk": true, "mcpgo": true}

// dialMcpactor: rt.Connect + Client.CallTool.
func dialMcpactor(ctx context.Context, s measure.StdioServer) (client, error) {
	return measure.DialMcpactor(ctx, mcpactor.ServerConfig{Command: s.Path, Args: s.Args, Env: s.EnvMap})
}

// dialGoSDK: mcp.NewClient + mcp.CommandTransport + ClientSession.CallTool.
func dialGoSDK(ctx context.Context, s measure.StdioServer) (client, error) {
	return measure.DialGoSDK(ctx, &gosdk.CommandTransport{Command: s.Command()}, nil)
}

// dialMcpGo: client.NewStdioMCPClient + Initialize + CallTool.
func dialMcpGo(ctx context.Context, s measure.StdioServer) (client, error) {
	// mcp-go appends env to os.Environ(); s.Env is a full environment, so
	// the result is the same variables.
	c, err := mcpgoclient.NewStdioMCPClient(s.Path, s.Env, s.Args...)
	if err != nil {
		return nil, err
	}
	return measure.InitMcpGo(ctx, c, nil, mcpgo.LATEST_PROTOCOL_VERSION)
}
