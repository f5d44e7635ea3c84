package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/baggage"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

// cancelParams is what the transport marshals for notifications/cancelled.
func cancelParams(t *testing.T, id int64, reason string) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(messages.CancelledParams{RequestID: messages.Int64ID(id), Reason: reason})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestCancellingSpan: notifications/cancelled gets a CLIENT span of its
// own, a child of the request it cancels, ended at once, and its trace
// context in params._meta.
func TestCancellingSpan(t *testing.T) {
	r := newRig(t, Options{})
	_, op := r.tel.Start(context.Background(), &Request{Peer: httpPeer, Method: messages.MethodToolsCall, Target: "slow"})
	op.SetRequestID(messages.Int64ID(7))
	out := op.Cancelling("Request timeout after 300ms", cancelParams(t, 7, "Request timeout after 300ms"))
	if r.tel.OpenOps() != 1 {
		t.Errorf("OpenOps = %d, want 1 (the request; the notification's span has ended)", r.tel.OpenOps())
	}
	op.End(callerr.NewTimeout(&callerr.Error{}), false)

	spans := r.sr.Ended()
	if len(spans) != 2 {
		t.Fatalf("ended spans = %d, want 2", len(spans))
	}
	n, call := spans[0], spans[1]
	if n.Name() != messages.NotificationCancelled || n.SpanKind() != trace.SpanKindClient {
		t.Errorf("span = %q %v, want a CLIENT notifications/cancelled", n.Name(), n.SpanKind())
	}
	if n.Parent().SpanID() != call.SpanContext().SpanID() || n.SpanContext().TraceID() != call.SpanContext().TraceID() {
		t.Errorf("parent = %v, want the cancelled call %v", n.Parent().SpanID(), call.SpanContext().SpanID())
	}
	// Same connection attributes; no request id (a notification has none),
	// no tool attributes, no error.
	checkAttrs(t, "cancel span", attrs(n.Attributes()), map[string]any{
		"mcp.method.name": "notifications/cancelled", "mcp.protocol.version": "2025-11-25",
		"mcp.session.id": httpPeer.SessionID, "network.transport": "tcp", "network.protocol.name": "http",
		"network.protocol.version": "1.1", "server.address": "mcp.example.com", "server.port": int64(8443),
		"mcpactor.server.name": "weather",
	})
	if n.EndTime().Before(n.StartTime()) || n.EndTime().After(call.EndTime()) {
		t.Errorf("cancel span %v..%v not ended at once within the call %v..%v", n.StartTime(), n.EndTime(), call.StartTime(), call.EndTime())
	}
	if got := eventNames(call); !slices.Contains(got, EventCancelSent) {
		t.Errorf("call events = %v, want %s", got, EventCancelSent)
	}

	// The params keep their fields and carry the notification's span.
	var p messages.CancelledParams
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("params %s: %v", out, err)
	}
	if p.RequestID.String() != "7" || p.Reason != "Request timeout after 300ms" {
		t.Errorf("params = %s", out)
	}
	if p.Meta[messages.MetaKeyTraceparent] != traceparent(n.SpanContext()) {
		t.Errorf("_meta = %v, want traceparent %s", p.Meta, traceparent(n.SpanContext()))
	}

	// A duration point, as for any notification.
	var methods []string
	for _, pt := range r.histogram(t, MetricClientOperationDuration) {
		methods = append(methods, setAttrs(pt.Attributes)["mcp.method.name"].(string))
	}
	slices.Sort(methods)
	if !slices.Equal(methods, []string{"notifications/cancelled", "tools/call"}) {
		t.Errorf("duration points by method = %v", methods)
	}
}

// TestCancellingMergesMeta: a _meta already in the params is kept.
func TestCancellingMergesMeta(t *testing.T) {
	r := newRig(t, Options{})
	_, op := r.tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsList})
	in := json.RawMessage(`{"requestId":3,"_meta":{"io.example/k":"v","tracestate":"stale=1"}}`)
	out := op.Cancelling("gone", in)
	op.End(context.Canceled, false)
	var p messages.CancelledParams
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	n := r.sr.Ended()[0]
	if p.Meta["io.example/k"] != "v" || p.Meta[messages.MetaKeyTraceparent] != traceparent(n.SpanContext()) {
		t.Errorf("_meta = %v", p.Meta)
	}
	if _, ok := p.Meta[messages.MetaKeyTracestate]; ok {
		t.Errorf("stale tracestate kept: %v", p.Meta)
	}
}

// TestCancellingPropagationOnly: with no tracer but a propagator, the
// caller's trace context still reaches the notification.
func TestCancellingPropagationOnly(t *testing.T) {
	tel := New(Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider(), Propagator: w3c})
	_, op := tel.Start(remoteCtx, &Request{Peer: stdioPeer, Method: messages.MethodPing})
	out := op.Cancelling("gone", cancelParams(t, 1, "gone"))
	op.End(context.Canceled, false)
	var p messages.CancelledParams
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	if p.Meta[messages.MetaKeyTraceparent] != traceparent(remoteParent) {
		t.Errorf("_meta = %v, want the caller's trace context", p.Meta)
	}
	if tel.OpenOps() != 0 {
		t.Errorf("OpenOps = %d", tel.OpenOps())
	}
}

// TestCancellingNothingToRecord: a nil Op returns the very params it was
// given, without allocating (TestZeroCost covers the whole call).
func TestCancellingNothingToRecord(t *testing.T) {
	in := cancelParams(t, 1, "gone")
	for _, tel := range []*Telemetry{nil, New(Options{Disabled: true}),
		New(Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()})} {
		_, op := tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodPing})
		out := op.Cancelling("gone", in)
		if &out[0] != &in[0] || !bytes.Equal(out, in) {
			t.Errorf("params changed: %s", out)
		}
		if n := testing.AllocsPerRun(100, func() { _ = op.Cancelling("gone", in) }); n != 0 {
			t.Errorf("Cancelling allocated %v times", n)
		}
	}
}

// TestInjectParamsAppend: the common case (an object without _meta)
// appends the member; the result is the same JSON the general path makes.
func TestInjectParamsAppend(t *testing.T) {
	r := newRig(t, Options{})
	_, op := r.tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "t"})
	defer op.End(nil, false)
	tp := traceparent(op.SpanContext())
	for _, in := range []string{`{"name":"t"}`, ` { "name" : "t" , "arguments" : {"a":[1,{}]} } `, `{}`, `{ }`, `{"a":"_meta"}`, `{"arguments":{"_meta":1}}`} {
		out := op.InjectParams(json.RawMessage(in))
		var got, want map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s -> %s: %v", in, out, err)
		}
		_ = json.Unmarshal([]byte(in), &want)
		meta, _ := got["_meta"].(map[string]any)
		if meta[messages.MetaKeyTraceparent] != tp {
			t.Errorf("%s -> %s: no traceparent", in, out)
		}
		delete(got, "_meta")
		if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
			t.Errorf("%s -> %s: other members changed", in, out)
		}
	}
	// Not objects, or not valid: unchanged, as before.
	for _, in := range []string{`[1]`, `{"a":}`, `"s"`} {
		if out := op.InjectParams(json.RawMessage(in)); string(out) != in {
			t.Errorf("%s -> %s", in, out)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSetProtocolVersion: the version learnt after Start reaches the span
// and the duration metric; a nil or ended Op ignores it.
func TestSetProtocolVersion(t *testing.T) {
	r := newRig(t, Options{})
	unknown := StdioPeer("files") // before the handshake: no version yet
	_, op := r.tel.Start(context.Background(), &Request{Peer: unknown, Method: messages.MethodInitialize})
	op.SetProtocolVersion("")
	op.SetProtocolVersion(messages.Version20251125)
	var wg sync.WaitGroup
	wg.Go(func() { op.SetProtocolVersion(messages.Version20251125) }) // may race End
	op.End(nil, false)
	wg.Wait()
	op.SetProtocolVersion(messages.Version20250618) // ended: ignored
	var nilOp *Op
	nilOp.SetProtocolVersion(messages.Version20250618)

	s := r.ended(t)
	checkAttrs(t, "span", attrs(s.Attributes()), map[string]any{
		"mcp.method.name": "initialize", "mcp.protocol.version": "2025-11-25",
		"network.transport": "pipe", "mcpactor.server.name": "files",
	})
	pts := r.histogram(t, MetricClientOperationDuration)
	if len(pts) != 1 {
		t.Fatalf("points = %d", len(pts))
	}
	checkAttrs(t, "metric", setAttrs(pts[0].Attributes), map[string]any{
		"mcp.method.name": "initialize", "mcp.protocol.version": "2025-11-25",
		"network.transport": "pipe", "mcpactor.server.name": "files",
	})
}

// TestDetach: the trace context survives, the cancellation does not.
func TestDetach(t *testing.T) {
	bag, _ := baggage.Parse("tenant=acme")
	ctx, cancel := context.WithCancel(baggage.ContextWithBaggage(remoteCtx, bag))
	cancel()
	d := Detach(ctx)
	if d.Err() != nil || d.Done() != nil {
		t.Error("the detached context can be cancelled")
	}
	if sc := trace.SpanContextFromContext(d); sc.TraceID() != remoteParent.TraceID() || sc.SpanID() != remoteParent.SpanID() {
		t.Errorf("span context = %v", sc)
	}
	if baggage.FromContext(d).Member("tenant").Value() != "acme" {
		t.Error("baggage lost")
	}
	r := newRig(t, Options{})
	_, op := r.tel.Start(d, &Request{Peer: stdioPeer, Method: messages.MethodInitialize})
	op.End(nil, false)
	if s := r.ended(t); s.Parent().SpanID() != remoteParent.SpanID() {
		t.Errorf("initialize parent = %v, want the caller's span", s.Parent().SpanID())
	}
	if n := testing.AllocsPerRun(100, func() { _ = Detach(context.Background()) }); n != 0 {
		t.Errorf("Detach with nothing to carry: %v allocations", n)
	}
}
