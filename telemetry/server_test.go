package telemetry

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

// remoteParent is the trace context an MCP server would put in _meta.
var remoteParent = trace.NewSpanContext(trace.SpanContextConfig{
	TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
	SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
	TraceFlags: trace.FlagsSampled,
})

func TestServerSpanRemoteParent(t *testing.T) {
	r := newRig(t, Options{})
	// The ambient span: the transport's read loop, say.
	ambientCtx, ambient := r.tp.Tracer("transport").Start(context.Background(), "read")
	meta := messages.Meta{
		messages.MetaKeyTraceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		messages.MetaKeyTracestate:  "rojo=00f067aa0ba902b7",
		messages.MetaKeyBaggage:     "userId=alice",
	}
	ctx, op := r.tel.StartServer(ambientCtx, &Request{Peer: stdioPeer, Method: "sampling/createMessage", ID: messages.StringID("srv-1")}, meta)
	if got := baggage.FromContext(ctx).Member("userId").Value(); got != "alice" {
		t.Errorf("baggage userId = %q, want alice", got)
	}
	if !trace.SpanFromContext(ctx).SpanContext().Equal(op.SpanContext()) {
		t.Error("the returned context does not hold the server span")
	}
	op.End(&messages.Error{Code: -1, Message: "User rejected sampling request"}, false)
	ambient.End()

	s := r.sr.Ended()[0]
	if s.Name() != "sampling/createMessage" || s.SpanKind() != trace.SpanKindServer {
		t.Errorf("span = %q %v", s.Name(), s.SpanKind())
	}
	if s.Parent().SpanID() != remoteParent.SpanID() || s.SpanContext().TraceID() != remoteParent.TraceID() || !s.Parent().IsRemote() {
		t.Errorf("parent = %v (remote %v), want the remote %v", s.Parent().SpanID(), s.Parent().IsRemote(), remoteParent.SpanID())
	}
	if s.Parent().TraceState().Get("rojo") != "00f067aa0ba902b7" {
		t.Errorf("tracestate = %q", s.Parent().TraceState())
	}
	if len(s.Links()) != 1 || s.Links()[0].SpanContext.SpanID() != ambient.SpanContext().SpanID() {
		t.Errorf("links = %+v, want the ambient span", s.Links())
	}
	checkAttrs(t, "span", attrs(s.Attributes()), map[string]any{
		"mcp.method.name": "sampling/createMessage", "jsonrpc.request.id": "srv-1", "mcp.protocol.version": "2025-06-18",
		"network.transport": "pipe", "mcpactor.server.name": "files",
		"error.type": "-1", "rpc.response.status_code": "-1",
	})
	if s.Status().Code != codes.Error || s.Status().Description != "User rejected sampling request" {
		t.Errorf("status = %+v", s.Status())
	}
	pts := r.histogram(t, MetricServerOperationDuration)
	if len(pts) != 1 || !slices.Equal(pts[0].Bounds, durationBuckets) {
		t.Fatalf("server duration points = %+v", pts)
	}
	checkAttrs(t, "metric", setAttrs(pts[0].Attributes), map[string]any{
		"mcp.method.name": "sampling/createMessage", "mcp.protocol.version": "2025-06-18", "network.transport": "pipe",
		"mcpactor.server.name": "files", "error.type": "-1", "rpc.response.status_code": "-1",
	})
	if _, ok := findMetric(r.collect(t), MetricClientOperationDuration); ok {
		t.Error("a server op recorded a client duration")
	}
}

func TestServerSpanWithoutMeta(t *testing.T) {
	r := newRig(t, Options{})
	ambientCtx, ambient := r.tp.Tracer("transport").Start(context.Background(), "read")
	_, op := r.tel.StartServer(ambientCtx, &Request{Peer: httpPeer, Method: messages.MethodPing, ID: messages.Int64ID(0)}, messages.Meta{"progressToken": 1})
	op.End(nil, false)
	ambient.End()
	s := r.sr.Ended()[0]
	if s.Parent().SpanID() != ambient.SpanContext().SpanID() || len(s.Links()) != 0 {
		t.Errorf("parent = %v links = %v: want the ambient span as parent, no link", s.Parent().SpanID(), s.Links())
	}
	got := attrs(s.Attributes())
	if _, ok := got["server.address"]; ok {
		t.Error("server.address on a SERVER span")
	}
	if got["mcp.session.id"] != httpPeer.SessionID || got["jsonrpc.request.id"] != "0" {
		t.Errorf("attributes = %v", got)
	}
	if s.Status().Code != codes.Unset {
		t.Errorf("status = %v", s.Status())
	}
}

// TestServerSpanCallerFault: on a SERVER span (a server's request we
// answer), the codes that say the server sent something we could not serve
// are not errors: rpc.response.status_code is recorded, error.type and the
// ERROR status are not. Other codes are errors. On a CLIENT span every code
// is an error (TestErrorType). The MCP semantic conventions,
// rpc.response.status_code of mcp.server.status.attributes in
// https://github.com/open-telemetry/semantic-conventions-genai/blob/main/model/mcp/common.yaml
func TestServerSpanCallerFault(t *testing.T) {
	for _, tc := range []struct {
		code    int64
		isError bool
	}{
		{messages.CodeParseError, false},
		{messages.CodeInvalidRequest, false},
		{messages.CodeMethodNotFound, false},
		{messages.CodeInvalidParams, false},
		{messages.CodeResourceNotFound, false},
		{messages.CodeInternalError, true},
		{-32000, true},
		{-32099, true},
		{-1, true}, // user rejected a sampling request
		{messages.CodeURLElicitationRequired, true},
	} {
		r := newRig(t, Options{})
		_, op := r.tel.StartServer(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodRootsList, ID: messages.Int64ID(1)}, nil)
		op.End(&messages.Error{Code: tc.code, Message: "no"}, false)
		s := r.ended(t)
		code := strconv.FormatInt(tc.code, 10)
		got := attrs(s.Attributes())
		if got["rpc.response.status_code"] != code {
			t.Errorf("%d: rpc.response.status_code = %v", tc.code, got["rpc.response.status_code"])
		}
		errType, hasType := got["error.type"]
		switch {
		case tc.isError && (errType != code || s.Status().Code != codes.Error || s.Status().Description != "no"):
			t.Errorf("%d: error.type = %v, status = %+v; want an error", tc.code, errType, s.Status())
		case !tc.isError && (hasType || s.Status().Code != codes.Unset):
			t.Errorf("%d: error.type = %v, status = %+v; want no error", tc.code, errType, s.Status())
		}
		if CallerFault(tc.code) == tc.isError {
			t.Errorf("CallerFault(%d) = %v", tc.code, CallerFault(tc.code))
		}
		pts := r.histogram(t, MetricServerOperationDuration)
		m := setAttrs(pts[0].Attributes)
		if m["rpc.response.status_code"] != code {
			t.Errorf("%d: metric rpc.response.status_code = %v", tc.code, m["rpc.response.status_code"])
		}
		if _, ok := m["error.type"]; ok != tc.isError {
			t.Errorf("%d: metric error.type = %v, want present = %v", tc.code, m["error.type"], tc.isError)
		}
	}
	// Timeouts, cancellations and transport failures stay errors.
	r := newRig(t, Options{})
	_, op := r.tel.StartServer(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodSamplingCreateMessage, ID: messages.Int64ID(2)}, nil)
	op.End(context.Canceled, false)
	if s := r.ended(t); attrs(s.Attributes())["error.type"] != "cancelled" || s.Status().Code != codes.Error {
		t.Errorf("cancelled server op: %v %v", attrs(s.Attributes()), s.Status())
	}
}

func TestInjectExtractRoundTrip(t *testing.T) {
	r := newRig(t, Options{})
	bag, _ := baggage.Parse("tenant=acme")
	ctx := baggage.ContextWithBaggage(context.Background(), bag)
	_, op := r.tel.Start(ctx, &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "t"})
	defer op.End(nil, false)

	// nil meta: a new map.
	meta := op.Inject(nil)
	tp, _ := meta[messages.MetaKeyTraceparent].(string)
	if tp != traceparent(op.SpanContext()) {
		t.Fatalf("traceparent = %q, want %q", tp, traceparent(op.SpanContext()))
	}
	if meta[messages.MetaKeyBaggage] != "tenant=acme" {
		t.Errorf("baggage = %v", meta[messages.MetaKeyBaggage])
	}
	// It extracts back to the same span context.
	back := trace.SpanContextFromContext(w3c.Extract(context.Background(), propagation.MapCarrier{"traceparent": tp}))
	if back.TraceID() != op.SpanContext().TraceID() || back.SpanID() != op.SpanContext().SpanID() || !back.IsSampled() {
		t.Errorf("extracted %v, want %v", back, op.SpanContext())
	}
	// The server side of the same package extracts it as its parent.
	srv := newRig(t, Options{})
	_, sop := srv.tel.StartServer(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodPing}, meta)
	sop.End(nil, false)
	if p := srv.ended(t).Parent(); p.SpanID() != op.SpanContext().SpanID() || p.TraceID() != op.SpanContext().TraceID() {
		t.Errorf("server parent = %v, want %v", p, op.SpanContext())
	}

	// A caller's meta is copied, not modified, and keeps its other keys.
	callers := messages.Meta{messages.MetaKeyProgressToken: 5, messages.MetaKeyTracestate: "stale=1"}
	before := maps.Clone(callers)
	got := op.Inject(callers)
	if !reflect.DeepEqual(callers, before) {
		t.Errorf("caller's meta modified: %v", callers)
	}
	if got[messages.MetaKeyProgressToken] != 5 || got[messages.MetaKeyTraceparent] != tp {
		t.Errorf("injected meta = %v", got)
	}
	if _, ok := got[messages.MetaKeyTracestate]; ok {
		t.Errorf("stale tracestate kept: %v", got)
	}
}

func TestInjectNothing(t *testing.T) {
	var nilOp *Op
	meta := messages.Meta{"k": "v"}
	if got := nilOp.Inject(meta); reflect.ValueOf(got).UnsafePointer() != reflect.ValueOf(meta).UnsafePointer() {
		t.Error("nil Op: a different map")
	}
	if nilOp.Inject(nil) != nil {
		t.Error("nil Op: Inject(nil) is not nil")
	}
	// A no-op propagator injects nothing: meta comes back as it was.
	r := newRig(t, Options{Propagator: propagation.NewCompositeTextMapPropagator()})
	_, op := r.tel.Start(context.Background(), &Request{Method: messages.MethodPing})
	defer op.End(nil, false)
	if got := op.Inject(meta); reflect.ValueOf(got).UnsafePointer() != reflect.ValueOf(meta).UnsafePointer() {
		t.Error("no-op propagator: a different map")
	}
	if op.Inject(nil) != nil {
		t.Error("no-op propagator: Inject(nil) is not nil")
	}
	raw := json.RawMessage(`{"a":1}`)
	if got := op.InjectParams(raw); string(got) != string(raw) {
		t.Errorf("InjectParams = %s", got)
	}
}

func TestInjectParams(t *testing.T) {
	r := newRig(t, Options{})
	_, op := r.tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "t"})
	defer op.End(nil, false)
	want := traceparent(op.SpanContext())

	decode := func(raw json.RawMessage) map[string]any {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		return m
	}
	got := decode(op.InjectParams(json.RawMessage(`{"name":"t","arguments":{"a":1}}`)))
	if got["name"] != "t" || got["arguments"].(map[string]any)["a"] != 1.0 {
		t.Errorf("params changed: %v", got)
	}
	if got["_meta"].(map[string]any)["traceparent"] != want {
		t.Errorf("_meta = %v", got["_meta"])
	}
	got = decode(op.InjectParams(json.RawMessage(`{"name":"t","_meta":{"progressToken":"p1","tracestate":"old=1"}}`)))
	m := got["_meta"].(map[string]any)
	if m["progressToken"] != "p1" || m["traceparent"] != want {
		t.Errorf("_meta = %v", m)
	}
	if _, ok := m["tracestate"]; ok {
		t.Errorf("stale tracestate kept: %v", m)
	}
	for _, empty := range []string{"", "null", " "} {
		got = decode(op.InjectParams(json.RawMessage(empty)))
		if got["_meta"].(map[string]any)["traceparent"] != want {
			t.Errorf("params %q: %v", empty, got)
		}
	}
	if got := op.InjectParams(json.RawMessage(`[1,2]`)); string(got) != `[1,2]` {
		t.Errorf("non-object params changed: %s", got)
	}
}

func TestSessionEnded(t *testing.T) {
	r := newRig(t, Options{})
	start := time.Now().Add(-3 * time.Second)
	r.tel.SessionEnded(&httpPeer, start, callerr.NewTransportClosed(&callerr.Error{}))
	stateless := httpPeer
	stateless.ProtocolVersion = messages.Version20260728
	r.tel.SessionEnded(&stateless, start, nil)
	pts := r.histogram(t, MetricClientSessionDuration)
	if len(pts) != 1 {
		t.Fatalf("session points = %d, want 1 (none for 2026-07-28)", len(pts))
	}
	if pts[0].Sum < 3 || !slices.Equal(pts[0].Bounds, durationBuckets) {
		t.Errorf("point = %+v", pts[0])
	}
	checkAttrs(t, "session", setAttrs(pts[0].Attributes), map[string]any{
		"error.type": "transport_closed", "mcp.protocol.version": "2025-11-25", "network.transport": "tcp",
		"network.protocol.name": "http", "network.protocol.version": "1.1", "server.address": "mcp.example.com",
		"server.port": int64(8443), "mcpactor.server.name": "weather",
	})
	// A clean Close: the runtime passes a nil error, and no error.type is
	// recorded (error.type is conditionally required "if and only if
	// session ends with an error").
	r.tel.SessionEnded(&stdioPeer, start, nil)
	clean := 0
	for _, p := range r.histogram(t, MetricClientSessionDuration) {
		if setAttrs(p.Attributes)["mcpactor.server.name"] != "files" {
			continue
		}
		clean++
		checkAttrs(t, "clean session", setAttrs(p.Attributes), map[string]any{
			"mcp.protocol.version": "2025-06-18", "network.transport": "pipe", "mcpactor.server.name": "files",
		})
	}
	if clean != 1 {
		t.Errorf("clean session points = %d, want 1", clean)
	}
	if !SessionEra("") || !SessionEra(messages.Version20241105) || SessionEra(messages.Version20260728) || SessionEra("2027-01-01") {
		t.Error("SessionEra")
	}
}

func TestRuntimeMetrics(t *testing.T) {
	r := newRig(t, Options{})
	r.tel.InFlight("a", 1)
	r.tel.InFlight("a", 1)
	r.tel.InFlight("b", 1)
	r.tel.InFlight("a", -1)
	r.tel.Dropped("a", DropMalformed, 2)
	r.tel.Dropped("a", DropLateResponse, 1)
	r.tel.Dropped("a", DropMalformed, 1)
	r.tel.Dropped("a", DropUnknownID, 0) // nothing
	r.tel.Restarted("b", "crash")
	r.tel.QueueWait("a", QueueHandshake, 20*time.Millisecond)
	unregister := r.tel.RegisterMailboxDepth(func(observe func(string, int64)) {
		observe("a", 4)
		observe("b", 0)
	})

	rm := r.collect(t)
	values := func(name string) map[string]int64 {
		t.Helper()
		m, ok := findMetric(rm, name)
		if !ok {
			t.Fatalf("metric %s not recorded", name)
		}
		return int64Points(t, m.Data)
	}
	if got := values(MetricInFlight); got["a"] != 1 || got["b"] != 1 {
		t.Errorf("in flight = %v", got)
	}
	if got := values(MetricFramesDropped); got["a/malformed"] != 3 || got["a/late_response"] != 1 || len(got) != 2 {
		t.Errorf("dropped = %v", got)
	}
	if got := values(MetricRestarts); got["b/crash"] != 1 {
		t.Errorf("restarts = %v", got)
	}
	if got := values(MetricMailboxDepth); got["a"] != 4 || got["b"] != 0 || len(got) != 2 {
		t.Errorf("mailbox depth = %v", got)
	}
	if _, ok := findMetric(rm, MetricQueueWait); !ok {
		t.Error("queue wait not recorded")
	}
	unregister()
	if m, ok := findMetric(r.collect(t), MetricMailboxDepth); ok && len(int64Points(t, m.Data)) != 0 {
		t.Errorf("mailbox depth observed after unregister: %+v", m.Data)
	}
}

// int64Points flattens int64 sums and gauges to "server[/reason]" keys.
func int64Points(t *testing.T, data metricdata.Aggregation) map[string]int64 {
	t.Helper()
	var dps []metricdata.DataPoint[int64]
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		dps = d.DataPoints
	case metricdata.Gauge[int64]:
		dps = d.DataPoints
	default:
		t.Fatalf("unexpected aggregation %T", data)
	}
	out := map[string]int64{}
	for _, p := range dps {
		m := setAttrs(p.Attributes)
		k, _ := m["mcpactor.server.name"].(string)
		for _, extra := range []string{"mcpactor.drop.reason", "mcpactor.restart.reason"} {
			if v, ok := m[extra].(string); ok {
				k += "/" + v
			}
		}
		out[k] += p.Value
	}
	return out
}

func TestPeers(t *testing.T) {
	if p := StdioPeer("files"); p != (Peer{Server: "files", NetworkTransport: "pipe"}) {
		t.Errorf("StdioPeer = %+v", p)
	}
	for endpoint, want := range map[string]Peer{
		"https://mcp.example.com/mcp": {Server: "s", NetworkTransport: "tcp", NetworkProtocolName: "http", ServerAddress: "mcp.example.com", ServerPort: 443},
		"http://127.0.0.1:8080/mcp":   {Server: "s", NetworkTransport: "tcp", NetworkProtocolName: "http", ServerAddress: "127.0.0.1", ServerPort: 8080},
		"http://[::1]/mcp":            {Server: "s", NetworkTransport: "tcp", NetworkProtocolName: "http", ServerAddress: "::1", ServerPort: 80},
		"://bad":                      {Server: "s", NetworkTransport: "tcp", NetworkProtocolName: "http"},
	} {
		if got := HTTPPeer("s", endpoint); got != want {
			t.Errorf("HTTPPeer(%q) = %+v, want %+v", endpoint, got, want)
		}
	}
}
