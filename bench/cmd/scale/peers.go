package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// The peers hold the same sessions the way their libraries are meant to:
// the go-sdk one client with a session per server (or identity), mcp-go a
// client per server. Over HTTP every session of a client shares one
// tuned http.Client, as mcpactor's runtime shares its own.

// goSDKSession is a session of the go-sdk's one client.
type goSDKSession struct{ s *gosdk.ClientSession }

func (g goSDKSession) Call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	res, err := g.s.CallTool(ctx, &gosdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %+v", res.Content)
	}
	if len(res.Content) == 0 {
		return "", measure.ErrNoText
	}
	t, ok := res.Content[0].(*gosdk.TextContent)
	if !ok {
		return "", measure.ErrNoText
	}
	return t.Text, nil
}

func (g goSDKSession) Protocol() string {
	if r := g.s.InitializeResult(); r != nil {
		return r.ProtocolVersion
	}
	return ""
}

func (g goSDKSession) Close(context.Context) error { return g.s.Close() }

// upGoSDK connects every session with one go-sdk client.
func upGoSDK(ctx context.Context, sp spec, env *environment) (fleet, []error, error) {
	c := gosdk.NewClient(&gosdk.Implementation{Name: "scale", Version: "0.0.1"}, nil)
	var hc *http.Client
	if env.url != "" {
		hc = sharedHTTPClient(sp)
	}
	f, failed := upSessions(ctx, sp, func(ctx context.Context, _ int) (measure.Client, error) {
		var t gosdk.Transport
		if hc != nil {
			t = &gosdk.StreamableClientTransport{Endpoint: env.url, HTTPClient: hc}
		} else {
			t = &gosdk.CommandTransport{Command: env.stdio.Command()}
		}
		s, err := c.Connect(ctx, t, nil)
		if err != nil {
			return nil, err
		}
		return goSDKSession{s}, nil
	})
	f.after = closeIdle(hc)
	return f, failed, nil
}

// upMcpGo makes an mcp-go client per session.
func upMcpGo(ctx context.Context, sp spec, env *environment) (fleet, []error, error) {
	if env.url == "" {
		f, failed := upSessions(ctx, sp, func(ctx context.Context, _ int) (measure.Client, error) {
			return measure.DialStdio(ctx, "mcpgo", env.stdio)
		})
		return f, failed, nil
	}
	hc := sharedHTTPClient(sp)
	f, failed := upSessions(ctx, sp, func(ctx context.Context, _ int) (measure.Client, error) {
		c, err := mcpgoclient.NewStreamableHttpClient(env.url, mcpgotransport.WithHTTPBasicClient(hc))
		if err != nil {
			return nil, err
		}
		if err := c.Start(ctx); err != nil {
			_ = c.Close()
			return nil, err
		}
		// nil: the shared client's idle connections are closed once,
		// after every session.
		return measure.InitMcpGo(ctx, c, nil, mcpgo.LATEST_PROTOCOL_VERSION)
	})
	f.after = closeIdle(hc)
	return f, failed, nil
}

// upBlocking starts the blocking-API reference (bench/internal/refclient)
// on every server: the hand-written stdio client.
func upBlocking(ctx context.Context, sp spec, env *environment) (fleet, []error, error) {
	f, failed := upSessions(ctx, sp, func(ctx context.Context, _ int) (measure.Client, error) {
		return measure.DialStdio(ctx, measure.BlockingName, env.stdio)
	})
	return f, failed, nil
}

// sharedHTTPClient is the http.Client every HTTP session of a peer or of
// the hand-written client shares: keep-alive with as many idle
// connections per host as calls can be in flight (bring-up or measured),
// no compression; mcpactor's runtime makes its own
// (transport.NewHTTPClient).
func sharedHTTPClient(sp spec) *http.Client {
	idle := max(sp.InFlight, sp.Parallel, 1) + 16
	if sp.Parallel <= 0 {
		idle = max(sp.InFlight, sp.Sessions) + 16
	}
	return &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: idle,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}}
}

// closeIdle closes hc's idle connections, after the sessions.
func closeIdle(hc *http.Client) func(context.Context) error {
	return func(context.Context) error {
		measure.CloseIdle(hc)
		return nil
	}
}
