package mcpactor_test

import (
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// network.protocol.version is recorded on a request's span over HTTP, from
// the answer's HTTP version (issue 36; docs/telemetry.md): an httptest
// server speaks HTTP/1.1.
func TestTelemetryHTTPProtocolVersion(t *testing.T) {
	fake := &mcptest.Server{Tools: []mcptest.Tool{kitEcho}}
	srv := fake.StartHTTP()
	defer srv.Close()
	tr := newTraced(t, mcpactor.Options{})
	ctx := waitCtx(t)
	c, err := tr.rt.Connect(ctx, "web", srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	callOK(t, c, "echo", map[string]any{"message": "hi"})
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s := tr.span(t, "tools/call echo")
	wantAttrs(t, s, map[string]string{"network.protocol.version": "1.1", "network.protocol.name": "http", "network.transport": "tcp"})
}
