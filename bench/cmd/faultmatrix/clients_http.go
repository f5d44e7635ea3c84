package main

import (
	"context"
	"errors"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"

	"github.com/mcpactor/mcpactor"
)

// Each client over HTTP, through its own transport and every default left
// alone, as over stdio:
//
//   - mcpactor: ServerConfig{Type: "http" or "sse", URL}. It opens the GET
//     listener when something reads what it carries; httpTarget.listen
//     gives it a notification handler, for the rows about the listener.
//   - go-sdk: StreamableClientTransport or SSEClientTransport, with the
//     default http.Client.
//   - mcp-go: NewStreamableHttpClient or NewSSEMCPClient, then Start and
//     Initialize. It opens no GET listener unless asked
//     (WithContinuousListening); httpTarget.listen asks, for the rows about
//     the GET listener.

// httpTarget is where an HTTP server is and how to reach it.
type httpTarget struct {
	// url is the Streamable HTTP endpoint, or with legacy the event stream
	// of the HTTP+SSE transport of 2024-11-05.
	url    string
	legacy bool
	// listen turns on mcp-go's GET listener (WithContinuousListening)
	// and mcpactor's (a notification handler); go-sdk opens it by
	// default.
	listen bool
}

func (t *httpTarget) mcpactorConfig() mcpactor.ServerConfig {
	typ := "http"
	if t.legacy {
		typ = "sse"
	}
	return mcpactor.ServerConfig{Type: typ, URL: t.url}
}

// dialGoSDKHTTP connects c over t.
//
// SSEClientTransport makes its event stream with the context given to
// Connect, so that stream ends when that context does. It gets one that
// outlives the connect, ended by Close; the connect is still bounded by
// ctx, through a watcher that ends it only while Connect runs.
func dialGoSDKHTTP(ctx context.Context, c *gosdk.Client, t *httpTarget, router *progressRouter) (mcpClient, error) {
	if !t.legacy {
		sess, err := c.Connect(ctx, &gosdk.StreamableClientTransport{Endpoint: t.url}, nil)
		if err != nil {
			return nil, err
		}
		return &goSDKClient{s: sess, progress: router}, nil
	}
	life, stop := context.WithCancel(context.WithoutCancel(ctx))
	connected := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			stop()
		case <-connected:
		}
	}()
	sess, err := c.Connect(life, &gosdk.SSEClientTransport{Endpoint: t.url}, nil)
	close(connected)
	if err != nil {
		stop()
		return nil, err
	}
	if ctx.Err() != nil {
		// The watcher may have ended the stream just as Connect returned.
		_ = sess.Close()
		stop()
		return nil, ctx.Err()
	}
	return &goSDKClient{s: sess, progress: router, stop: stop}, nil
}

// newMcpGoHTTP makes mcp-go's client for o.http; the caller starts it.
func newMcpGoHTTP(o dialOpts) (*mcpgoclient.Client, error) {
	if o.roots || o.sampling != nil || o.stderr != nil {
		return nil, errors.New("faultmatrix: roots, sampling and stderr are stdio-only in this harness")
	}
	t := o.http
	if t.legacy {
		return mcpgoclient.NewSSEMCPClient(t.url)
	}
	var topts []mcpgotransport.StreamableHTTPCOption
	if t.listen {
		topts = append(topts, mcpgotransport.WithContinuousListening())
	}
	return mcpgoclient.NewStreamableHttpClient(t.url, topts...)
}
