package mcpactor_test

import (
	"errors"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// ServerConfig.Fence reaches the writer of either transport: while it
// refuses, a call ends with its error (matched by errors.Is, as a cluster's
// NotOwnerError would be), and once it allows again calls go through on
// the same connection.
func TestServerConfigFence(t *testing.T) {
	h := testserver.NewHTTPHandler(testserver.Options{}, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(h.Close)
	servers := map[string]mcpactor.ServerConfig{
		"stdio": testServerConfig(testserver.Options{}),
		"http":  {URL: ts.URL + testserver.HTTPPath},
	}
	for name, cfg := range servers {
		t.Run(name, func(t *testing.T) {
			rt := startRuntime(t, mcpactor.Options{})
			lapsed := errors.New("the lease lapsed")
			var refuse atomic.Bool
			cfg.Fence = func() error {
				if refuse.Load() {
					return lapsed
				}
				return nil
			}
			c, err := rt.Connect(waitCtx(t), name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			refuse.Store(true)
			if _, err := c.CallTool(waitCtx(t), "echo", map[string]any{"message": "refused"}); !errors.Is(err, lapsed) {
				t.Fatalf("call behind a closed fence: %v, want the fence's error", err)
			}
			refuse.Store(false)
			if _, err := c.CallTool(waitCtx(t), "echo", map[string]any{"message": "allowed"}); err != nil {
				t.Fatalf("call behind an open fence: %v", err)
			}
		})
	}
}
