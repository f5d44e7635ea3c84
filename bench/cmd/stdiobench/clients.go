package main

import (
	"context"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// dialer connects a client to a server it starts.
type dialer func(ctx context.Context, s measure.StdioServer) (measure.Client, error)

var dialers = map[string]dialer{
	"mcpactor": dialMcpactor,
	"gosdk":    dialGoSDK,
	"mcpgo":    dialMcpGo,
	"wire":     dialWire,
}

// dialMcpactor: rt.Connect + Client.CallTool.
func dialMcpactor(ctx context.Context, s measure.StdioServer) (measure.Client, error) {
	return measure.DialMcpactor(ctx, mcpactor.ServerConfig{Command: s.Path, Args: s.Args, Env: s.EnvMap})
}

// dialGoSDK: mcp.NewClient + mcp.CommandTransport + ClientSession.CallTool.
func dialGoSDK(ctx context.Context, s measure.StdioServer) (measure.Client, error) {
	return measure.DialGoSDK(ctx, &gosdk.CommandTransport{Command: s.Command()}, nil)
}

// dialMcpGo: client.NewStdioMCPClient + Initialize + CallTool.
func dialMcpGo(ctx context.Context, s measure.StdioServer) (measure.Client, error) {
	// mcp-go appends env to os.Environ(); s.Env is a full environment, so
	// the result is the same variables.
	c, err := mcpgoclient.NewStdioMCPClient(s.Path, s.Env, s.Args...)
	if err != nil {
		return nil, err
	}
	return measure.InitMcpGo(ctx, c, nil, mcpgo.LATEST_PROTOCOL_VERSION)
}
