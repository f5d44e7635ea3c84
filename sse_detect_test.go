package mcpactor_test

// Finding out, on the first connect, that an http server speaks only the
// legacy HTTP+SSE transport, and saying why when a URL serves neither
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility).

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
)

// TestLegacySSEDetectedOnFirstConnect connects to server-everything in its
// sse mode with no Type, from a fresh runtime (nothing remembered): the
// Streamable HTTP attempt is answered as a legacy server answers it, and
// the legacy transport tried next on the same connection must succeed.
// Before the fix, the end of the abandoned attempt's transport was taken
// for the end of the new one, and the first connect failed with a bare
// "Transport closed".
func TestLegacySSEDetectedOnFirstConnect(t *testing.T) {
	everythingSSE.count(t)
	t.Parallel()
	peer := everythingSSE.server(t)
	for i := range 3 { // each runtime is fresh: every connect is a first one
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		rt, err := mcpactor.Start(mcpactor.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := rt.Connect(ctx, "legacy", mcpactor.ServerConfig{URL: peer.proxy.url("/sse")})
		if err != nil {
			t.Fatalf("connect %d: %v", i, err)
		}
		res, err := c.CallTool(ctx, "echo", map[string]any{"message": "first"})
		if err != nil || res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "first") {
			t.Fatalf("connect %d: echo = %+v, %v", i, res, err)
		}
		if err := rt.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
}

// TestHTTPNeitherTransportSaysWhy connects to a URL that answers 404 with an
// HTML page to everything: both attempts fail, and the error says so in one
// line, with the status and the start of the page, matchable as an HTTP
// status error.
func TestHTTPNeitherTransportSaysWhy(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("<!DOCTYPE html>\n<html>\n<head><title>Not here</title></head>\n<body>\n<h1>Nothing at this path</h1>\n</body>\n</html>\n"))
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Stop(ctx)
	_, err = rt.Connect(ctx, "nowhere", mcpactor.ServerConfig{URL: srv.URL + "/mcp"})
	if err == nil {
		t.Fatal("Connect succeeded")
	}
	msg := err.Error()
	if !errors.Is(err, mcpactor.ErrHTTPStatus) || !strings.Contains(msg, "404") || !strings.Contains(msg, `"nowhere"`) ||
		!strings.Contains(msg, srv.URL) || strings.Contains(msg, "\n") {
		t.Fatalf("error %q: want one line naming the server, the URL and HTTP 404, matching ErrHTTPStatus", msg)
	}
	var fe *mcpactor.FallbackError
	if !errors.As(err, &fe) {
		t.Fatalf("error %T: want a *FallbackError carrying both attempts", err)
	}
}
