package main

import (
	"net/http"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// goSDKHandler is the go-sdk's Streamable HTTP handler with the echo
// server, JSON responses.
func goSDKHandler(stateless bool) http.Handler {
	srv := measure.GoSDKEchoServer("httpbench-gosdk")
	return gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return srv },
		&gosdk.StreamableHTTPOptions{JSONResponse: true, Stateless: stateless})
}
