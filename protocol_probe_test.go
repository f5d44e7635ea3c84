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
// the others wait for the first probe and take its verdict (the server
// speaks the session protocol).
func TestSessionsToOneServerProbeItOnce(t *testing.T) {
	h := testserver.NewHTTPHandler(testserver.Options{}, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(h.Close)
	rt := startRuntime(t, mcpactor.Options{})
	const users = 20
	if n := connectAll(t, rt, ts.URL+testserver.HTTPPath, users, mcpactor.ServerConfig{}); n != users {
		t.Fatalf("%d of %d sessions connected", n, users)
	}
	if n := probes(h); n != 1 {
		t.Errorf("%d server/discover probes for %d sessions brought up at once, want 1", n, users)
	}
}

// When the first connection's probe fails (its connection is cut here,
// as a network of its own might), the connections that waited for it go
// on at once, each probing for itself, and every session connects (the
// cut one too, once its connection is made again).
func TestSessionsGoOnWhenTheFirstProbeFails(t *testing.T) {
	h := testserver.NewHTTPHandler(testserver.Options{}, nil)
	var refused atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !refused.Load() {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"method":"server/discover"`)) && refused.CompareAndSwap(false, true) {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
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
	if n := connectAll(t, rt, ts.URL+testserver.HTTPPath, users, mcpactor.ServerConfig{}); n != users {
		t.Fatalf("%d of %d sessions connected", n, users)
	}
	if !refused.Load() {
		t.Fatal("no server/discover was cut")
	}
}

// A server that never answers server/discover costs one probe timeout,
// not one per connection: the connections that waited for the first probe
// take its verdict (no answer in time) and go straight to initialize.
func TestSilentProbeIsWaitedOutOnce(t *testing.T) {
	h := testserver.NewHTTPHandler(testserver.Options{}, nil)
	var silent atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"method":"server/discover"`)) {
				silent.Add(1)
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
	base := mcpactor.ServerConfig{ProbeTimeout: 300 * time.Millisecond}
	if n := connectAll(t, rt, ts.URL+testserver.HTTPPath, users, base); n != users {
		t.Fatalf("%d of %d sessions connected", n, users)
	}
	if n := silent.Load(); n != 1 {
		t.Errorf("%d server/discover probes waited out for %d sessions brought up at once, want 1", n, users)
	}
}

// When the first handshake stalls after its probe (its initialize is
// never answered here), the sessions that waited for the probe are not
// held up by it: all of them connect but the stalled one.
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
	// Were they waiting for the whole first handshake, they would spend
	// their connect timeout on it.
	base := mcpactor.ServerConfig{ConnectTimeout: 3 * time.Second}
	if n := connectAll(t, rt, ts.URL+testserver.HTTPPath, users, base); n != users-1 {
		t.Fatalf("%d of %d sessions connected, want all but the stalled one", n, users)
	}
}
