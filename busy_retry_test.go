package mcpactor_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

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
			var se *messages.HTTPStatusError
			switch {
			case c.wantRetry && err != nil:
				t.Fatalf("CallTool = %v, want it sent again after the 429", err)
			case !c.wantRetry && (!errors.As(err, &se) || se.Status != http.StatusTooManyRequests):
				t.Fatalf("CallTool = %v, want the 429 as *HTTPStatusError", err)
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
