package telemetry

import (
	"context"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor/messages"
)

// A request issued before its connection's handshake ended is started
// with what was known then (a stdio-looking Peer); SetPeer gives its span
// and metric point the connection's attributes once they are known.
func TestSetPeer(t *testing.T) {
	r := newRig(t, Options{})
	_, op := r.tel.Start(context.Background(), &Request{Peer: StdioPeer("weather"), Method: messages.MethodToolsList})
	op.Queued(QueueHandshake)
	op.SetPeer(httpPeer)
	op.Written()
	op.End(nil, false)
	op.SetPeer(stdioPeer) // after End: ignored
	want := map[string]any{
		"mcp.method.name": "tools/list", "mcp.protocol.version": "2025-11-25",
		"network.transport": "tcp", "network.protocol.name": "http", "network.protocol.version": "1.1",
		"server.address": "mcp.example.com", "server.port": int64(8443), "mcpactor.server.name": "weather",
	}
	span := attrs(r.ended(t).Attributes())
	delete(span, "mcpactor.queue.wait")
	withSession := map[string]any{"mcp.session.id": httpPeer.SessionID}
	for k, v := range want {
		withSession[k] = v
	}
	checkAttrs(t, "span", span, withSession)
	pts := r.histogram(t, MetricClientOperationDuration)
	if len(pts) != 1 || pts[0].Count != 1 {
		t.Fatalf("duration points = %+v", pts)
	}
	checkAttrs(t, "metric", setAttrs(pts[0].Attributes), want)
}

// A notification from the server gets a SERVER span parented on the trace
// context in its _meta, without a request id, with the resource it names,
// and a point of mcp.server.operation.duration.
func TestServerNotificationSpan(t *testing.T) {
	r := newRig(t, Options{})
	_, client := r.tel.Start(context.Background(), &Request{Peer: httpPeer, Method: messages.MethodResourcesSubscribe, ResourceURI: "file:///a.txt"})
	meta := client.Inject(nil)
	client.End(nil, false)
	ctx, op := r.tel.StartServer(context.Background(), &Request{Peer: httpPeer, Method: "notifications/resources/updated",
		Notification: true, ResourceURI: "file:///a.txt"}, meta)
	if !trace.SpanContextFromContext(ctx).IsValid() {
		t.Error("the handler's context holds no span")
	}
	op.End(nil, false)
	spans := r.sr.Ended()
	if len(spans) != 2 {
		t.Fatalf("ended spans = %d, want 2", len(spans))
	}
	s := spans[1]
	if s.SpanKind() != trace.SpanKindServer || s.Name() != "notifications/resources/updated" {
		t.Errorf("span = %v %q", s.SpanKind(), s.Name())
	}
	if s.Parent().SpanID() != spans[0].SpanContext().SpanID() || !s.Parent().IsRemote() {
		t.Errorf("parent = %v, want the remote %v", s.Parent().SpanID(), spans[0].SpanContext().SpanID())
	}
	checkAttrs(t, "span", attrs(s.Attributes()), map[string]any{
		"mcp.method.name": "notifications/resources/updated", "mcp.resource.uri": "file:///a.txt",
		"mcp.protocol.version": "2025-11-25", "mcp.session.id": httpPeer.SessionID,
		"network.transport": "tcp", "network.protocol.name": "http", "network.protocol.version": "1.1",
		"mcpactor.server.name": "weather",
	})
	pts := r.histogram(t, MetricServerOperationDuration)
	if len(pts) != 1 || pts[0].Count != 1 || setAttrs(pts[0].Attributes)["mcp.method.name"] != "notifications/resources/updated" {
		t.Errorf("server duration points = %+v", pts)
	}
}

// The cluster activation's generation and tenant are on spans, never on
// metric points; mcpactor.server.name stays the configured name.
func TestClusterAttributesSpanOnly(t *testing.T) {
	r := newRig(t, Options{})
	peer := stdioPeer
	peer.Server, peer.Generation, peer.Tenant = "weather", 12, "3f2a9c01"
	_, op := r.tel.Start(context.Background(), &Request{Peer: peer, Method: messages.MethodToolsCall, Target: "forecast"})
	op.End(nil, false)
	span := attrs(r.ended(t).Attributes())
	if span["mcpactor.cluster.generation"] != int64(12) || span["mcpactor.cluster.tenant"] != "3f2a9c01" || span["mcpactor.server.name"] != "weather" {
		t.Errorf("span = %v", span)
	}
	pts := r.histogram(t, MetricClientOperationDuration)
	m := setAttrs(pts[0].Attributes)
	for _, k := range []string{"mcpactor.cluster.generation", "mcpactor.cluster.tenant"} {
		if v, ok := m[k]; ok {
			t.Errorf("metric has %s = %v", k, v)
		}
	}
	if m["mcpactor.server.name"] != "weather" {
		t.Errorf("metric server name = %v", m["mcpactor.server.name"])
	}
}

// A connection's handshake under StartTask is one trace: the task's span
// is the root and the parent of each request.
func TestStartTaskParents(t *testing.T) {
	r := newRig(t, Options{})
	peer := httpPeer
	ctx, task := r.tel.StartTask(context.Background(), TaskConnect, &peer, "restart")
	for _, m := range []string{messages.MethodInitialize, messages.NotificationInitialized} {
		_, op := r.tel.Start(ctx, &Request{Peer: peer, Method: m, Notification: m == messages.NotificationInitialized})
		op.End(nil, false)
	}
	task.End(nil, false)
	spans := r.sr.Ended()
	if len(spans) != 3 {
		t.Fatalf("ended spans = %d, want 3", len(spans))
	}
	root := spans[2]
	if root.Name() != TaskConnect || root.SpanKind() != trace.SpanKindInternal || root.Parent().IsValid() {
		t.Fatalf("task span = %q %v parent %v", root.Name(), root.SpanKind(), root.Parent())
	}
	for _, s := range spans[:2] {
		if s.Parent().SpanID() != root.SpanContext().SpanID() || s.SpanContext().TraceID() != root.SpanContext().TraceID() {
			t.Errorf("%s: parent %v in trace %v, want the task's span", s.Name(), s.Parent().SpanID(), s.SpanContext().TraceID())
		}
	}
	got := attrs(root.Attributes())
	if got["mcpactor.task.reason"] != "restart" || got["mcpactor.server.name"] != "weather" || got["server.address"] != "mcp.example.com" {
		t.Errorf("task attributes = %v", got)
	}
	if pts := r.histogram(t, MetricClientOperationDuration); len(pts) != 2 {
		t.Errorf("duration points = %d, want the two requests' only", len(pts))
	}
}

// A call across the cluster: caller span → hop CLIENT span (forwarding
// member) → hop SERVER span (owner) → the owner's MCP CLIENT span, one
// trace, with the caller's baggage carried by the configured propagator.
func TestClusterHop(t *testing.T) {
	caller, owner := newRig(t, Options{}), newRig(t, Options{})
	// Fields come from a map: compare them sorted.
	if f, w := slices.Sorted(slices.Values(caller.tel.Propagator().Fields())), slices.Sorted(slices.Values(w3c.Fields())); !slices.Equal(f, w) {
		t.Errorf("Propagator fields = %v, want the configured %v", f, w)
	}
	if (*Telemetry)(nil).Propagator() != nil || New(Options{Disabled: true}).Propagator() != nil {
		t.Error("a nil or disabled Telemetry has a propagator")
	}
	member, _ := baggage.NewMember("tenant", "acme")
	bag, _ := baggage.New(member)
	ctx := baggage.ContextWithBaggage(context.Background(), bag)
	ctx, app := caller.tp.Tracer("app").Start(ctx, "handle request")

	h := &Hop{Peer: Peer{Server: "weather", Generation: 3}, Member: "m1", Owner: "m2"}
	_, hop, carrier := caller.tel.StartHop(ctx, h)
	if carrier["traceparent"] == "" || carrier["baggage"] != "tenant=acme" {
		t.Fatalf("carrier = %v, want traceparent and the baggage", carrier)
	}
	octx, ohop := owner.tel.StartHopServer(context.Background(), carrier, h)
	if baggage.FromContext(octx).Member("tenant").Value() != "acme" {
		t.Error("the baggage did not cross the hop")
	}
	_, call := owner.tel.Start(octx, &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "forecast"})
	if meta := call.Inject(nil); meta["baggage"] != "tenant=acme" {
		t.Errorf("the owner's request _meta = %v, want the caller's baggage", meta)
	}
	call.End(nil, false)
	ohop.End(nil, false)
	hop.End(nil, false)
	app.End()

	cs, os := caller.sr.Ended(), owner.sr.Ended()
	if len(cs) != 2 || len(os) != 2 {
		t.Fatalf("ended spans: caller %d, owner %d; want 2 and 2", len(cs), len(os))
	}
	chop, appSpan, ocall, oh := cs[0], cs[1], os[0], os[1]
	if chop.Name() != SpanClusterHop || chop.SpanKind() != trace.SpanKindClient || chop.Parent().SpanID() != appSpan.SpanContext().SpanID() {
		t.Errorf("caller hop = %q %v parent %v", chop.Name(), chop.SpanKind(), chop.Parent().SpanID())
	}
	if oh.Name() != SpanClusterHop || oh.SpanKind() != trace.SpanKindServer || oh.Parent().SpanID() != chop.SpanContext().SpanID() || !oh.Parent().IsRemote() {
		t.Errorf("owner hop = %q %v parent %v", oh.Name(), oh.SpanKind(), oh.Parent().SpanID())
	}
	if ocall.Parent().SpanID() != oh.SpanContext().SpanID() {
		t.Errorf("owner call parent = %v, want the owner's hop span", ocall.Parent().SpanID())
	}
	for _, s := range []trace.SpanContext{chop.SpanContext(), oh.SpanContext(), ocall.SpanContext()} {
		if s.TraceID() != appSpan.SpanContext().TraceID() {
			t.Errorf("span %v in trace %v, want %v", s.SpanID(), s.TraceID(), appSpan.SpanContext().TraceID())
		}
	}
	checkAttrs(t, "owner hop", attrs(oh.Attributes()), map[string]any{
		"mcpactor.server.name": "weather", "mcpactor.cluster.generation": int64(3),
		"mcpactor.cluster.member": "m1", "mcpactor.cluster.owner": "m2",
	})
}
