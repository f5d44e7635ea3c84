package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// StartTask begins an INTERNAL span named task (TaskConnect, TaskRefresh,
// TaskKeepalive) for work the runtime does on its own: a connection's
// handshake and first lists, a manager's refresh or keepalive. Pass the
// returned context to the requests of that work, so that their CLIENT
// spans are its children and one connection (or one refresh) is one trace,
// not one root trace per request. ctx is the trace to join: the caller's
// (Connect, Manage), or context.Background() for a trace of its own.
// reason, if not "", is recorded as mcpactor.task.reason. End the Op with
// the work's error; no metric is recorded.
func (t *Telemetry) StartTask(ctx context.Context, task string, p *Peer, reason string) (context.Context, *Op) {
	if t == nil || t.disabled || p == nil || !t.tracing() {
		return ctx, nil
	}
	o := t.newOp(&Request{Peer: *p, Method: task}, trace.SpanKindInternal, false)
	ctx, o.span = t.tracer.Start(ctx, task, trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(o.start))
	o.owned = true
	if o.recording = o.span.IsRecording(); o.recording {
		var buf [12]attribute.KeyValue
		kv := appendSpanOnlyAttrs(buf[:0], p)
		kv = appendPeerMetricAttrs(kv, p, true)
		if reason != "" {
			kv = append(kv, KeyTaskReason.String(reason))
		}
		o.span.SetAttributes(kv...)
	}
	o.ctx = ctx
	return ctx, o
}

// Hop describes a call that one cluster member forwards to the member that
// owns the server.
type Hop struct {
	Peer          // the server, as the caller's member knows it
	Member string // the member forwarding the call
	Owner  string // the member that owns the server
}

// StartHop begins the CLIENT span SpanClusterHop of a call the member
// forwards, a child of the caller's span in ctx, and returns the context
// to send: its trace context and baggage, written by the configured
// propagator (Options.Propagator, else the global one; not a fixed W3C
// one, so that baggage crosses too), in carrier form for the hop's wire
// message. End the Op when the owner's answer comes. When nothing records
// the carrier still holds what the caller's context would propagate.
func (t *Telemetry) StartHop(ctx context.Context, h *Hop) (context.Context, *Op, map[string]string) {
	if t == nil || t.disabled || h == nil {
		return ctx, nil, nil
	}
	var o *Op
	if t.tracing() {
		o = t.newOp(&Request{Peer: h.Peer, Method: SpanClusterHop}, trace.SpanKindClient, false)
		ctx, o.span = t.tracer.Start(ctx, SpanClusterHop, trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(o.start))
		o.owned = true
		if o.recording = o.span.IsRecording(); o.recording {
			o.span.SetAttributes(hopAttrs(h)...)
		}
		o.ctx = ctx
	}
	return ctx, o, t.InjectMap(ctx)
}

// StartHopServer begins the SERVER span SpanClusterHop on the member that
// owns the server, for a call forwarded to it with carrier (what StartHop
// returned, sent along). Its parent is the forwarding member's hop span;
// the returned context carries it and the caller's baggage: pass it to the
// call, whose CLIENT span is then the hop's child.
func (t *Telemetry) StartHopServer(ctx context.Context, carrier map[string]string, h *Hop) (context.Context, *Op) {
	if t == nil || t.disabled || h == nil {
		return ctx, nil
	}
	ctx = t.ExtractMap(ctx, carrier)
	if !t.tracing() {
		return ctx, nil
	}
	o := t.newOp(&Request{Peer: h.Peer, Method: SpanClusterHop}, trace.SpanKindServer, false)
	ctx, o.span = t.tracer.Start(ctx, SpanClusterHop, trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(o.start))
	o.owned = true
	if o.recording = o.span.IsRecording(); o.recording {
		o.span.SetAttributes(hopAttrs(h)...)
	}
	o.ctx = ctx
	return ctx, o
}

// SetHopOwner records on a hop's span the member that owns the server
// (mcpactor.cluster.owner) and, when > 0, its activation's generation
// (mcpactor.cluster.generation), once the forwarding member knows them:
// it picks the owner after the span starts, and may pick again when
// ownership moves; the last call wins.
func (o *Op) SetHopOwner(owner string, generation int64) {
	if o == nil || !o.recording || o.ended.Load() {
		return
	}
	if owner != "" {
		o.span.SetAttributes(KeyClusterOwner.String(owner))
	}
	if generation > 0 {
		o.span.SetAttributes(KeyClusterGeneration.Int64(generation))
	}
}

func hopAttrs(h *Hop) []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, 6)
	kv = appendSpanOnlyAttrs(kv, &h.Peer)
	if h.Server != "" {
		kv = append(kv, KeyServerName.String(h.Server))
	}
	if h.Member != "" {
		kv = append(kv, KeyClusterMember.String(h.Member))
	}
	if h.Owner != "" {
		kv = append(kv, KeyClusterOwner.String(h.Owner))
	}
	return kv
}

// Propagator returns the propagator the Telemetry injects and extracts
// with: Options.Propagator, else the global one at the time of the call.
// Nil for a nil or disabled Telemetry.
func (t *Telemetry) Propagator() propagation.TextMapPropagator {
	if t == nil || t.disabled {
		return nil
	}
	return t.propagator()
}

// InjectMap returns the trace context and baggage of ctx as the configured
// propagator writes them, for a wire message other than MCP's _meta (the
// cluster's hop); nil when there is nothing to send.
func (t *Telemetry) InjectMap(ctx context.Context) map[string]string {
	if t == nil || !t.propagating() || !carriesTrace(ctx) {
		return nil
	}
	c := propagation.MapCarrier{}
	t.propagator().Inject(ctx, c)
	if len(c) == 0 {
		return nil
	}
	return c
}

// ExtractMap returns ctx with the trace context and baggage of carrier
// (InjectMap's map) as the remote parent.
func (t *Telemetry) ExtractMap(ctx context.Context, carrier map[string]string) context.Context {
	if t == nil || len(carrier) == 0 || !t.propagating() {
		return ctx
	}
	return t.propagator().Extract(ctx, propagation.MapCarrier(carrier))
}
