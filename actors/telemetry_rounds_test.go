package actors_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
)

// TestMultiRoundCallTelemetry: a 2026-07-28 call the server answers
// input_required is one logical call: one CLIENT span and one duration
// point, with the second round as an event on it and both JSON-RPC ids
// leading to it; the local fulfilment of the input is an INTERNAL child
// span naming the server. The server/discover span records the version
// the connection then uses. The first round's span used to be the whole
// call's too, a second round had a span and point of its own (two points
// for one call), and the fulfilment span had no server name.
func TestMultiRoundCallTelemetry(t *testing.T) {
	te := newTracedEnv(t)
	te.env.Handlers = actors.Handlers{
		Roots: func(context.Context, string) ([]messages.Root, error) {
			return []messages.Root{{URI: "file:///tmp"}}, nil
		},
	}
	s := connect(t, testserver.Options{Stateless: true}, te.env, nil)
	if _, err := s.c.CallTool(harness.Context(t), "ask-client", map[string]any{"method": messages.MethodRootsList}); err != nil {
		t.Fatalf("ask-client: %v", err)
	}

	discover := te.one(t, messages.MethodServerDiscover)
	if got := attr(discover.Attributes(), telemetry.KeyMCPProtocolVersion); got != messages.Version20260728 {
		t.Errorf("server/discover: mcp.protocol.version = %q, want %q (the version used)", got, messages.Version20260728)
	}

	call := te.one(t, messages.MethodToolsCall+" ask-client")
	if call.SpanKind() != trace.SpanKindClient {
		t.Errorf("tools/call kind = %v", call.SpanKind())
	}
	var retries, resent int
	for _, e := range call.Events() {
		switch e.Name {
		case telemetry.EventRetry:
			retries++
		case telemetry.EventResent:
			resent++
			if attr(e.Attributes, telemetry.KeyJSONRPCRequestID) == attr(call.Attributes(), telemetry.KeyJSONRPCRequestID) {
				t.Errorf("the resent event names the span's own id")
			}
		}
	}
	if retries != 1 || resent != 1 {
		t.Errorf("tools/call: %d retry and %d resent events, want 1 and 1 (one per round after the first)", retries, resent)
	}

	fulfil := te.one(t, messages.MethodRootsList)
	if fulfil.SpanKind() != trace.SpanKindInternal {
		t.Errorf("roots/list kind = %v, want INTERNAL", fulfil.SpanKind())
	}
	if fulfil.Parent().SpanID() != call.SpanContext().SpanID() {
		t.Errorf("roots/list parent = %s, want the call's span %s", fulfil.Parent().SpanID(), call.SpanContext().SpanID())
	}
	if got := attr(fulfil.Attributes(), telemetry.KeyServerName); got != "ts" {
		t.Errorf("roots/list: mcpactor.server.name = %q, want ts", got)
	}

	pts := te.points(t, messages.MethodToolsCall)
	var n uint64
	for _, p := range pts {
		n += p.Count
	}
	if n != 1 {
		t.Errorf("tools/call duration points: %d, want 1 for one logical call", n)
	}
}

// TestDiscoverSessionEraVersion: when the probe finds the session protocol,
// its span records no protocol version: the connection then uses the one
// initialize settles, recorded on the initialize span.
func TestDiscoverSessionEraVersion(t *testing.T) {
	te := newTracedEnv(t)
	connect(t, testserver.Options{}, te.env, nil)
	discover := te.one(t, messages.MethodServerDiscover)
	if got := attr(discover.Attributes(), telemetry.KeyMCPProtocolVersion); got != "" {
		t.Errorf("server/discover: mcp.protocol.version = %q, want none", got)
	}
	if got := attr(te.one(t, messages.MethodInitialize).Attributes(), telemetry.KeyMCPProtocolVersion); got != testserver.LatestProtocolVersion {
		t.Errorf("initialize: mcp.protocol.version = %q", got)
	}
}
