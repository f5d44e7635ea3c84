package mcpactor_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// probes counts the server/discover requests an HTTP test server received.
func probes(h *testserver.HTTPHandler) int {
	n := 0
	for _, e := range h.Exchanges() {
		if e.RPCMethod == messages.MethodServerDiscover {
			n++
		}
	}
	return n
}

// connectAll connects n sessions to url at once, one identity each, with
// the configuration base, and returns how many connected.
func connectAll(t *testing.T, rt *mcpactor.Runtime, url string, n int, base mcpactor.ServerConfig) int {
	t.Helper()
	var ok atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			name := fmt.Sprintf("user%d", i)
			cfg := base
			cfg.URL, cfg.Identity = url, name
			c, err := rt.Connect(waitCtx(t), name, cfg)
			if err != nil {
				t.Logf("%s: %v", name, err)
				return
			}
			if _, err := c.CallTool(waitCtx(t), "echo", map[string]any{"message": name}); err != nil {
				t.Errorf("%s: echo: %v", name, err)
				return
			}
			ok.Add(1)
		})
	}
	wg.Wait()
	return int(ok.Load())
}

// Sessions to one server brought up at once, one per user, probe it once:
// the others wait for the first handshake and skip the probe it made
// needless (the server speaks the session protocol).
func TestSessionsToOneServerProbeItOnce(t *testing.T) {
	h := testserver.NewHTTPHandler(testserver.Options{}, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(h.Close)
	rt := startRuntime(t, mcpactor.Options{})
	const users = 20
	// The wait for the first handshake is bounded by the probe's timeout:
	// a generous one, so that a slow machine does not make a second probe.
	base := mcpactor.ServerConfig{ProbeTimeout: 20 * time.Second}
	if n := connectAll(t, rt, ts.URL+testserver.HTTPPath, users, base); n != users {
		t.Fatalf("%d of %d sessions connected", n, users)
	}
	if n := probes(h); n != 1 {
		t.Errorf("%d server/discover probes for %d sessions brought up at once, want 1", n, users)
	}
}

// When the first handshake fails (its own request refused here), the
// sessions that waited for it go on at once, each finding out for itself:
// they do not take turns, and all of them connect.
func TestSessionsGoOnWhenTheFirstHandshakeFails(t *testing.T) {
	h := testserver.NewHTTPHandler(testserver.Options{}, nil)
	var refused atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !refused.Load() {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"method":"initialize"`)) && refused.CompareAndSwap(false, true) {
				http.Error(w, "refused for this test", http.StatusForbidden)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(h.Close)
	rt := startRuntime(t, mcpactor.Options{})
	const users = 20
	if n := connectAll(t, rt, ts.URL+testserver.HTTPPath, users, mcpactor.ServerConfig{}); n != users-1 {
		t.Fatalf("%d of %d sessions connected, want all but the refused one", n, users)
	}
	if !refused.Load() {
		t.Fatal("no initialize was refused")
	}
}

// When the first handshake stalls (its initialize is never answered here),
// the sessions that wait for it go on after a probe's timeout, not after
// their own connect timeout: all of them connect but the stalled one.
func TestSessionsGoOnWhenTheFirstHandshakeStalls(t *testing.T) {
	h := testserver.NewHTTPHandler(testserver.Options{}, nil)
	var stalled atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !stalled.Load() {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"method":"initialize"`)) && stalled.CompareAndSwap(false, true) {
				<-r.Context().Done() // until the client gives up on it
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(h.Close)
	rt := startRuntime(t, mcpactor.Options{})
	const users = 10
	// The waiting sessions would spend their whole connect timeout
	// waiting, were the wait not bounded by the probe's.
	base := mcpactor.ServerConfig{ProbeTimeout: 200 * time.Millisecond, ConnectTimeout: 3 * time.Second}
	if n := connectAll(t, rt, ts.URL+testserver.HTTPPath, users, base); n != users-1 {
		t.Fatalf("%d of %d sessions connected, want all but the stalled one", n, users)
	}
}
