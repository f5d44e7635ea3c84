package main

import (
	"context"
	"errors"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// dialer connects a client to the server at url, for n calls in flight.
type dialer func(ctx context.Context, url string, n int) (measure.Client, error)

var dialers = map[string]dialer{
	"mcpactor": dialMcpactor,
	"gosdk":    dialGoSDK,
	"mcpgo":    dialMcpGo,
	"wire":     dialWire,
}

// dialMcpactor: rt.Connect with the server's URL (the runtime's own HTTP
// client) + Client.CallTool.
func dialMcpactor(ctx context.Context, url string, _ int) (measure.Client, error) {
	return measure.DialMcpactor(ctx, mcpactor.ServerConfig{URL: url})
}

// dialGoSDK: mcp.StreamableClientTransport on tunedHTTPClient +
// ClientSession.CallTool.
func dialGoSDK(ctx context.Context, url string, n int) (measure.Client, error) {
	hc := tunedHTTPClient(n)
	return measure.DialGoSDK(ctx, &gosdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, hc)
}

// dialMcpGo: client.NewStreamableHttpClient on tunedHTTPClient + Start +
// Initialize + CallTool.
func dialMcpGo(ctx context.Context, url string, n int) (measure.Client, error) {
	c, err := dialMcpGoVersion(ctx, url, n, mcpgo.LATEST_PROTOCOL_VERSION)
	if err == nil {
		_, err = c.Client().ListTools(ctx, mcpgo.ListToolsRequest{})
		if err == nil {
			return c, nil
		}
		_ = c.Close(ctx)
		var uv mcpgo.UnsupportedProtocolVersionError
		if !errors.As(err, &uv) {
			return nil, err
		}
	}
	// mcp-go asks server/discover first, and a server whose answer lists
	// session-era versions only (the go-sdk's stateful server) stops it:
	// v1.6.0 fails Initialize ("lists no modern version this client
	// supports") instead of falling back to initialize, and v1.2.1 took
	// the answer for 2026-07-28, skipped initialize, and then every
	// request failed with -32022 (unsupported protocol version), which one
	// request shows. The client is then made again, pinned to the newest
	// session-era version, which skips the probe; the report says so.
	pinned, perr := dialMcpGoVersion(ctx, url, n, mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	if perr != nil {
		return nil, errors.Join(err, perr)
	}
	pinned.Pinned = true
	return pinned, nil
}

func dialMcpGoVersion(ctx context.Context, url string, n int, version string) (*measure.McpGo, error) {
	hc := tunedHTTPClient(n)
	c, err := mcpgoclient.NewStreamableHttpClient(url, mcpgotransport.WithHTTPBasicClient(hc))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	return measure.InitMcpGo(ctx, c, hc, version)
}
