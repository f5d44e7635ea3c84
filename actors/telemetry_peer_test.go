package actors_test

import (
	"net/url"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
)

// TestEarlyCallPeer: requests issued while an HTTP server's handshake is
// still running (as the manager's cache gate and a restart issue them)
// are described as what they are, an HTTP server's: network.transport
// tcp, server.address and server.port from the start, and the session id
// and version once the connection is known, on the span and on the
// metric point alike. They used to say pipe, with no address.
func TestEarlyCallPeer(t *testing.T) {
	te := newTracedEnv(t)
	cfg := httpServer(t, testserver.Options{SlowInitialize: 500 * time.Millisecond})
	u, _ := url.Parse(cfg.HTTP.URL)
	s := open(t, testserver.Options{}, te.env, func(c *actors.Spec) { *c = cfg })

	ctx := harness.Context(t)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if _, err := s.c.ListTools(ctx); err != nil {
			t.Errorf("tools/list: %v", err)
		}
	}()
	go func() {
		defer wg.Done()
		if _, err := s.c.CallTool(ctx, "echo", map[string]any{"message": "early"}); err != nil {
			t.Errorf("tools/call: %v", err)
		}
	}()
	wg.Wait()

	for _, name := range []string{messages.MethodToolsList, messages.MethodToolsCall + " echo"} {
		sp := te.one(t, name)
		if !harness.HasEvent(sp, telemetry.EventQueued) {
			t.Fatalf("%s: not issued before the handshake ended (no %s event): the test proves nothing", name, telemetry.EventQueued)
		}
		kv := sp.Attributes()
		want := map[string]string{
			string(telemetry.KeyNetworkTransport):    telemetry.TransportTCP,
			string(telemetry.KeyNetworkProtocolName): telemetry.ProtocolHTTP,
			string(telemetry.KeyServerAddress):       u.Hostname(),
			string(telemetry.KeyServerPort):          u.Port(),
			string(telemetry.KeyMCPProtocolVersion):  testserver.LatestProtocolVersion,
			string(telemetry.KeyServerName):          "ts",
		}
		for k, v := range want {
			if got := attr(kv, attribute.Key(k)); got != v {
				t.Errorf("%s: %s = %q, want %q", name, k, got, v)
			}
		}
		if attr(kv, telemetry.KeyMCPSessionID) == "" {
			t.Errorf("%s: no %s", name, telemetry.KeyMCPSessionID)
		}
	}
	for _, method := range []string{messages.MethodToolsList, messages.MethodToolsCall} {
		pts := te.points(t, method)
		if len(pts) != 1 {
			t.Fatalf("%s: %d metric points, want 1", method, len(pts))
		}
		kv := pts[0].Attributes.ToSlice()
		if got := attr(kv, telemetry.KeyNetworkTransport); got != telemetry.TransportTCP {
			t.Errorf("%s metric: network.transport = %q, want tcp", method, got)
		}
		if got := attr(kv, telemetry.KeyServerAddress); got != u.Hostname() {
			t.Errorf("%s metric: server.address = %q, want %q", method, got, u.Hostname())
		}
		if got := attr(kv, telemetry.KeyServerPort); got != u.Port() {
			t.Errorf("%s metric: server.port = %q, want %q", method, got, u.Port())
		}
		if got := attr(kv, telemetry.KeyMCPProtocolVersion); got != testserver.LatestProtocolVersion {
			t.Errorf("%s metric: mcp.protocol.version = %q", method, got)
		}
		if pts[0].Count != 1 {
			t.Errorf("%s metric: count %d, want 1", method, pts[0].Count)
		}
	}
}
