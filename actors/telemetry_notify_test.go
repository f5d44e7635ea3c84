package actors_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
)

// TestNotificationServerSpan: a notification from the server gets a SERVER
// span, parented on the trace context in its params._meta, which the
// handler's context holds (baggage too); the span ends after the handler
// returns, and mcp.server.operation.duration has its one point. They used
// to get no span, and their _meta was dropped.
func TestNotificationServerSpan(t *testing.T) {
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	te := newTracedEnv(t)
	type seen struct {
		sc      trace.SpanContext
		member  string
		spansAt int // ended notification spans when the handler ran
	}
	got := make(chan seen, 1)
	te.env.Handlers.NotificationContext = func(ctx context.Context, _ string, n actors.Notification) {
		if n.Method != messages.NotificationMessage {
			return
		}
		got <- seen{sc: trace.SpanContextFromContext(ctx), member: baggage.FromContext(ctx).Member("tenant").Value(),
			spansAt: len(te.named(messages.NotificationMessage))}
	}
	s := connect(t, testserver.Options{}, te.env, nil)
	params := map[string]any{"level": "info", "data": "hello", "_meta": map[string]any{
		"traceparent": "00-" + traceID + "-" + spanID + "-01",
		"baggage":     "tenant=acme",
	}}
	if _, err := s.c.CallTool(harness.Context(t), "notify", map[string]any{"method": messages.NotificationMessage, "params": params}); err != nil {
		t.Fatalf("notify: %v", err)
	}
	var h seen
	select {
	case h = <-got:
	case <-time.After(harness.Bound):
		t.Fatal("the handler never got the notification")
	}
	if h.spansAt != 0 {
		t.Errorf("the span had ended before the handler ran")
	}
	if h.member != "acme" {
		t.Errorf("baggage tenant = %q in the handler's context, want acme", h.member)
	}

	sp := waitSpan(t, te, messages.NotificationMessage)
	if sp.SpanKind() != trace.SpanKindServer {
		t.Errorf("kind = %v, want SERVER", sp.SpanKind())
	}
	if sp.Parent().TraceID().String() != traceID || sp.Parent().SpanID().String() != spanID || !sp.Parent().IsRemote() {
		t.Errorf("parent = %s/%s remote=%v, want %s/%s from _meta", sp.Parent().TraceID(), sp.Parent().SpanID(), sp.Parent().IsRemote(), traceID, spanID)
	}
	if h.sc.SpanID() != sp.SpanContext().SpanID() {
		t.Errorf("the handler's context holds span %s, want the notification's %s", h.sc.SpanID(), sp.SpanContext().SpanID())
	}
	kv := sp.Attributes()
	for k, v := range map[string]string{
		string(telemetry.KeyMCPMethodName):      messages.NotificationMessage,
		string(telemetry.KeyServerName):         "ts",
		string(telemetry.KeyNetworkTransport):   telemetry.TransportPipe,
		string(telemetry.KeyMCPProtocolVersion): testserver.LatestProtocolVersion,
		string(telemetry.KeyJSONRPCRequestID):   "",
		string(telemetry.KeyErrorType):          "",
	} {
		if got := attr(kv, attribute.Key(k)); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	pts := te.histogram(t, telemetry.MetricServerOperationDuration, messages.NotificationMessage)
	if len(pts) != 1 || pts[0].Count != 1 {
		t.Errorf("mcp.server.operation.duration points for the notification: %+v, want one of count 1", pts)
	}
	if n := te.env.Instruments.OpenOps(); n != 0 {
		t.Errorf("%d Ops left open", n)
	}
}

// waitSpan waits for the one span called name to end: a notification's
// ends on the subscriber's goroutine, after its handler.
func waitSpan(t *testing.T, te *tracedEnv, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	deadline := time.Now().Add(harness.Bound)
	for len(te.named(name)) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return te.one(t, name)
}
