package mcpactor_test

// The HTTP transports against the test kit: sessions expiring under
// concurrent calls, legacy HTTP+SSE found on the first connect, and busy
// answers retried.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sourcegraph/conc"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// An HTTP session that expires under concurrent calls: every call is
// answered 404 and sent once more on the one new session. None may be
// lost to the replacement of the connection that the first 404 starts.
func TestHTTPSessionExpiryUnderConcurrentCalls(t *testing.T) {
	// With a GET listener, the listener may see the expiry first; without
	// one, the calls' own 404s race the replacement they start. Answers
	// come as JSON bodies or as event streams. A notification handler
	// asks for the listener; the server may refuse it, and without a
	// handler none is opened.
	reads := mcpactor.Options{Handlers: mcpactor.Handlers{Notification: func(string, mcpactor.Notification) {}}}
	t.Run("listener", func(t *testing.T) { sessionExpiryUnderConcurrentCalls(t, reads, mcptest.Faults{HTTPJSONAnswers: true}) })
	t.Run("no-listener", func(t *testing.T) {
		sessionExpiryUnderConcurrentCalls(t, reads, mcptest.Faults{HTTPJSONAnswers: true, HTTPNoGetStream: true})
	})
	t.Run("listener-sse", func(t *testing.T) { sessionExpiryUnderConcurrentCalls(t, reads, mcptest.Faults{}) })
	t.Run("no-listener-sse", func(t *testing.T) { sessionExpiryUnderConcurrentCalls(t, reads, mcptest.Faults{HTTPNoGetStream: true}) })
	t.Run("no-handler", func(t *testing.T) { sessionExpiryUnderConcurrentCalls(t, mcpactor.Options{}, mcptest.Faults{}) })
}

func sessionExpiryUnderConcurrentCalls(t *testing.T, opts mcpactor.Options, faults mcptest.Faults) {
	fake := &mcptest.Server{Tools: []mcptest.Tool{kitEcho}, Faults: faults}
	srv := fake.StartHTTP()
	defer srv.Close()
	rt := startRuntime(t, opts)
	ctx := waitCtx(t)
	c, err := rt.Connect(ctx, "expiring", srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	echo := func(msg string) error {
		res, err := c.CallTool(ctx, "echo", map[string]any{"message": msg})
		if err == nil && (len(res.Content) == 0 || res.Content[0].Text != msg) {
			t.Errorf("echo %q answered %+v", msg, res)
		}
		return err
	}
	if err := echo("before"); err != nil {
		t.Fatal(err)
	}

	for round := range 3 {
		srv.ExpireSessions()
		const calls = 32
		errs := make([]error, calls)
		var wg conc.WaitGroup
		for i := range calls {
			wg.Go(func() { errs[i] = echo("concurrent") })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, call %d: %v", round, i, err)
			}
		}
		if g := c.Generation().Number; g != uint64(round+2) {
			t.Errorf("round %d: generation %d; one expiry makes one new session", round, g)
		}
	}
}

// Finding out, on the first connect, that an http server speaks only the
// legacy HTTP+SSE transport, and saying why when a URL serves neither
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility).

// TestLegacySSEDetectedOnFirstConnect connects to server-everything in its
// sse mode with no Type, from a fresh runtime (nothing remembered): the
// Streamable HTTP attempt is answered as a legacy server answers it, and
// the legacy transport tried next on the same connection must succeed.
// Before the fix, the end of the abandoned attempt's transport was taken
// for the end of the new one, and the first connect failed with a bare
// "Transport closed".
func TestLegacySSEDetectedOnFirstConnect(t *testing.T) {
	everythingSSEHTTP.count(t)
	t.Parallel()
	peer := everythingSSEHTTP.server(t)
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
	if !errors.Is(err, mcpactor.ErrHTTP) || !strings.Contains(msg, "404") || !strings.Contains(msg, `"nowhere"`) ||
		!strings.Contains(msg, srv.URL) || strings.Contains(msg, "\n") {
		t.Fatalf("error %q: want one line naming the server, the URL and HTTP 404, matching ErrHTTP", msg)
	}
	var fe *mcpactor.Error
	if !(errors.As(err, &fe) && callerr.Fallback(fe) == fe) {
		t.Fatalf("error %T: want a fallback error carrying both attempts", err)
	}
}

// busyOnce answers the first tools/call POST 429 with Retry-After: 0,
// as a rate-limited server does, and counts the tools/call POSTs.
func busyOnce(calls *atomic.Int32) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				if bytes.Contains(body, []byte(`"tools/call"`)) && calls.Add(1) == 1 {
					w.Header().Set("Retry-After", "0")
					http.Error(w, "slow down", http.StatusTooManyRequests)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// A tools/call refused with 429 is not sent again unless the caller says
// it is safe, per call (CallOptions) or per server (ServerConfig); when it
// is, the retry is counted in Stats (issue 38, item 7).
func TestBusyRetryOptIn(t *testing.T) {
	fake := &mcptest.Server{Tools: []mcptest.Tool{{
		Name: "echo",
		Handler: func(ctx context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
			return &messages.CallToolResult{Content: []messages.Content{messages.TextContent("ok")}}, nil
		},
	}}}
	t.Cleanup(fake.Close)
	rt := startRuntime(t, mcpactor.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	args := map[string]any{"message": "x"}

	for _, c := range []struct {
		name      string
		server    bool
		call      bool
		wantRetry bool
	}{
		{"default", false, false, false},
		{"per call", false, true, true},
		{"per server", true, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var posts atomic.Int32
			srv := fake.StartHTTPWith(busyOnce(&posts))
			t.Cleanup(srv.Close)
			cfg := srv.Config()
			cfg.BusyRetryUnsafe = c.server
			cl, err := rt.Connect(ctx, "busy-"+strings.ReplaceAll(c.name, " ", "-"), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close(ctx)
			_, err = cl.CallToolWith(ctx, "echo", args, mcpactor.CallOptions{BusyRetryUnsafe: c.call})
			var se *callerr.Error
			switch {
			case c.wantRetry && err != nil:
				t.Fatalf("CallTool = %v, want it sent again after the 429", err)
			case !c.wantRetry && (!(errors.As(err, &se) && callerr.HTTPStatus(se) == se) || se.Status != http.StatusTooManyRequests):
				t.Fatalf("CallTool = %v, want the 429 as HTTP status error", err)
			}
			want := int64(0)
			if c.wantRetry {
				want = 1
			}
			if got := cl.Stats().BusyRetries; got != want {
				t.Errorf("Stats().BusyRetries = %d, want %d", got, want)
			}
		})
	}
}
