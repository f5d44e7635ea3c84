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

// testServerCatching serves the HTTP test server at the URL it returns,
// except the POSTs of the JSON-RPC method that catch takes (it reports
// whether it answered the request itself).
func testServerCatching(t *testing.T, method string, catch func(w http.ResponseWriter, r *http.Request) bool) string {
	h := testserver.NewHTTPHandler(testserver.Options{}, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"method":"`+method+`"`)) && catch(w, r) {
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(h.Close)
	return ts.URL + testserver.HTTPPath
}

// Sessions to one server brought up at once, one per user, probe it once:
// the others wait for the first probe and take its verdict (the server
// speaks the session protocol).
func TestSessionsToOneServerProbeItOnce(t *testing.T) {
	var probes atomic.Int32
	url := testServerCatching(t, messages.MethodServerDiscover, func(http.ResponseWriter, *http.Request) bool {
		probes.Add(1)
		return false
	})
	rt := startRuntime(t, mcpactor.Options{})
	const users = 20
	if n := connectAll(t, rt, url, users, mcpactor.ServerConfig{}); n != users {
		t.Fatalf("%d of %d sessions connected", n, users)
	}
	if n := probes.Load(); n != 1 {
		t.Errorf("%d server/discover probes for %d sessions brought up at once, want 1", n, users)
	}
}

// When the first connection's probe fails (its connection is cut here,
// as a network of its own might), the connections that waited for it go
// on at once, each probing for itself, and every session connects (the
// cut one too, once its connection is made again).
func TestSessionsGoOnWhenTheFirstProbeFails(t *testing.T) {
	var cut atomic.Bool
	url := testServerCatching(t, messages.MethodServerDiscover, func(w http.ResponseWriter, _ *http.Request) bool {
		if !cut.CompareAndSwap(false, true) {
			return false
		}
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
		return true
	})
	rt := startRuntime(t, mcpactor.Options{})
	const users = 20
	if n := connectAll(t, rt, url, users, mcpactor.ServerConfig{}); n != users {
		t.Fatalf("%d of %d sessions connected", n, users)
	}
	if !cut.Load() {
		t.Fatal("no server/discover was cut")
	}
}

// A server that never answers server/discover costs one probe timeout,
// not one per connection: the connections that waited for the first probe
// take its verdict (no answer in time) and go straight to initialize.
func TestSilentProbeIsWaitedOutOnce(t *testing.T) {
	var silent atomic.Int32
	url := testServerCatching(t, messages.MethodServerDiscover, func(_ http.ResponseWriter, r *http.Request) bool {
		silent.Add(1)
		<-r.Context().Done() // until the client gives up on it
		return true
	})
	rt := startRuntime(t, mcpactor.Options{})
	const users = 10
	base := mcpactor.ServerConfig{ProbeTimeout: 300 * time.Millisecond}
	if n := connectAll(t, rt, url, users, base); n != users {
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
	var stalled atomic.Bool
	url := testServerCatching(t, messages.MethodInitialize, func(_ http.ResponseWriter, r *http.Request) bool {
		if !stalled.CompareAndSwap(false, true) {
			return false
		}
		<-r.Context().Done() // until the client gives up on it
		return true
	})
	rt := startRuntime(t, mcpactor.Options{})
	const users = 10
	// Were they waiting for the whole first handshake, they would spend
	// their connect timeout on it.
	base := mcpactor.ServerConfig{ConnectTimeout: 3 * time.Second}
	if n := connectAll(t, rt, url, users, base); n != users-1 {
		t.Fatalf("%d of %d sessions connected, want all but the stalled one", n, users)
	}
}
