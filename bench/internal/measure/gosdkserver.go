package measure

import (
	"context"
	"strconv"
	"strings"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// GoSDKEchoServer is the go-sdk's own server (mcp.NewServer) with the
// tools the throughput benchmarks call, as the other benchmark servers
// answer them: echo (its message as text), big (that many 'x'
// characters) and sleep ("slept <ms>ms" after ms milliseconds). It is the
// server a command serves over the go-sdk's transport of its choice.
func GoSDKEchoServer(name string) *gosdk.Server {
	srv := gosdk.NewServer(&gosdk.Implementation{Name: name, Version: "0.0.1"}, nil)
	gosdk.AddTool(srv, &gosdk.Tool{Name: "echo", Description: "Returns message as text."},
		func(_ context.Context, _ *gosdk.CallToolRequest, in echoArgs) (*gosdk.CallToolResult, any, error) {
			return textResult(in.Message), nil, nil
		})
	gosdk.AddTool(srv, &gosdk.Tool{Name: "big", Description: "Returns one text content of bytes 'x' characters."},
		func(_ context.Context, _ *gosdk.CallToolRequest, in bigArgs) (*gosdk.CallToolResult, any, error) {
			return textResult(strings.Repeat("x", in.Bytes)), nil, nil
		})
	gosdk.AddTool(srv, &gosdk.Tool{Name: "sleep", Description: "Sleeps ms milliseconds, unless cancelled."},
		func(ctx context.Context, _ *gosdk.CallToolRequest, in sleepArgs) (*gosdk.CallToolResult, any, error) {
			t := time.NewTimer(time.Duration(in.MS * float64(time.Millisecond)))
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			return textResult("slept " + strconv.FormatFloat(in.MS, 'f', -1, 64) + "ms"), nil, nil
		})
	return srv
}

func textResult(s string) *gosdk.CallToolResult {
	return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: s}}}
}

// The tools' arguments.
type (
	echoArgs struct {
		Message string `json:"message"`
	}
	bigArgs struct {
		Bytes int `json:"bytes"`
	}
	sleepArgs struct {
		MS float64 `json:"ms"`
	}
)
