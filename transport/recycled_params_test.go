package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// recycledEcho calls echo with params encoded into a pooled buffer that
// the actor recycles once the frame holds them (RequestOptions.
// RecycleParams), as the client's CallTool does.
func recycledEcho(ctx context.Context, conn *Conn, msg string) (string, error) {
	buf := jsonrpc.ParamsBuffer(64 + len(msg))
	params, err := jsonrpc.AppendCallToolParams(buf, &messages.CallToolParams{Name: "echo", Arguments: map[string]any{"message": msg}})
	if err != nil {
		return "", err
	}
	if !jsonrpc.Pooled(params, buf) {
		return "", fmt.Errorf("params of %d bytes left their pooled buffer", len(params))
	}
	raw, err := conn.Call(ctx, messages.MethodToolsCall, params, RequestOptions{RecycleParams: true})
	if err != nil {
		return "", err
	}
	var res messages.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) != 1 {
		return "", fmt.Errorf("bad echo result %s: %v", raw, err)
	}
	return res.Content[0].Text, nil
}

// Every caller's recycled params reach the wire as they were written,
// over stdio and Streamable HTTP, with many callers taking and giving
// back the pool's buffers at once: a buffer recycled before the actor
// had copied it into the frame would send another call's params (and
// the race detector would see the two writers).
func TestRecycledParamsReachTheWire(t *testing.T) {
	stdio := startServer(t, testserver.Options{}, nil, nil, nil)
	peer := startHTTPPeer(t, testserver.Options{})
	web := dialHTTP(t, peer.url, clientOpts{})
	web.initialize(messages.Version20251125)
	for _, tc := range []struct {
		name string
		conn *Conn
	}{{"stdio", stdio.conn}, {"http", web.conn}} {
		t.Run(tc.name, func(t *testing.T) {
			echoesFromCallers(t, 32, 20, tc.name+" ", func(ctx context.Context, msg string) (string, error) {
				return recycledEcho(ctx, tc.conn, msg)
			})
		})
	}
}
