package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/redact"
	"github.com/mcpactor/mcpactor/messages"
)

// Peer describes the server end of one connection. The runtime keeps one
// per connection and copies it into each Request.
type Peer struct {
	// Server is the configured server name (mcpactor.server.name).
	Server string
	// ProtocolVersion is the negotiated MCP version (mcp.protocol.version),
	// "" before the handshake has settled it.
	ProtocolVersion string
	// SessionID is the MCP session id (mcp.session.id): the
	// Mcp-Session-Id of Streamable HTTP. It is never recorded for a
	// stateless (2026-07-28 or later) ProtocolVersion.
	SessionID string
	// NetworkTransport is network.transport: TransportPipe for stdio,
	// TransportTCP for HTTP.
	NetworkTransport string
	// NetworkProtocolName and NetworkProtocolVersion are
	// network.protocol.name ("http") and network.protocol.version ("1.1",
	// "2") for the HTTP transports; empty for stdio.
	NetworkProtocolName    string
	NetworkProtocolVersion string
	// ServerAddress and ServerPort are server.address and server.port of
	// an HTTP server; empty and 0 for stdio.
	ServerAddress string
	ServerPort    int
	// Generation and Tenant say, in cluster mode, which activation of the
	// server the connection belongs to: mcpactor.cluster.generation (when
	// > 0) and mcpactor.cluster.tenant (when set; pass a digest, not an
	// address). They go on spans only, never on metric points, whose
	// series would otherwise grow with every failover and tenant; Server
	// stays the configured name.
	Generation int64
	Tenant     string
	// Mask masks the server's configured credentials (its env and header
	// values, its URL's secrets) in what a span records of text that may
	// carry them: the status description (an error's text, a JSON-RPC
	// error's message), progress messages, event reasons, the resource
	// URI, and the tool arguments and result when they are recorded. nil
	// masks the credentials of URLs only.
	Mask *redact.Masker
}

// Request describes one outgoing request or notification (Start), one
// server-to-client request we answer (StartServer), or one local fulfilment
// of an input request (StartInternal).
type Request struct {
	Peer
	// Method is mcp.method.name.
	Method string
	// Target is the tool name of a tools/call (gen_ai.tool.name) or the
	// prompt name of a prompts/get (gen_ai.prompt.name); it is appended to
	// the span name. It is ignored for other methods, to keep span names
	// low-cardinality.
	Target string
	// ResourceURI is mcp.resource.uri of resources/read,
	// resources/subscribe and resources/unsubscribe (spans only).
	ResourceURI string
	// ID is the JSON-RPC id when it is known at start; Op.SetRequestID sets
	// it later. Notifications have none.
	ID messages.ID
	// Notification marks a notification: no id, and the Op ends once the
	// message is written (or acknowledged, over HTTP).
	Notification bool
	// Arguments are the tools/call arguments, recorded as
	// gen_ai.tool.call.arguments only with Options.RecordToolArguments.
	// Check Op.RecordsToolArguments before encoding them.
	Arguments json.RawMessage
}

// SessionEra reports whether protocolVersion negotiates a session (every
// version before 2026-07-28). An unknown version ("") counts as session era:
// it is what a connection reports before its initialize completes.
func SessionEra(protocolVersion string) bool {
	return protocolVersion == "" || protocolVersion < messages.Version20260728
}

// Op is one instrumented operation: its span (if tracing is on), its start
// time (for the duration metric) and the context carrying its span. A nil
// *Op is valid and does nothing: Start returns nil when nobody listens.
//
// Every method is safe for concurrent use. End is the only required call;
// it takes effect once, and the other methods do nothing after it (except
// LateResponse).
type Op struct {
	t         *Telemetry
	ctx       context.Context // holds span (or the caller's span)
	span      trace.Span      // nil when not tracing
	kind      trace.SpanKind
	recording bool // span is recording: attributes and events are kept
	owned     bool // we started span and end it (false: a reused execute_tool span)
	metrics   bool // record the duration histogram at End
	start     time.Time
	ended     atomic.Bool

	mu          sync.Mutex
	req         Request // Arguments dropped
	queuedAt    time.Time
	queueReason string
	waitedFor   time.Duration // the sum of the Op's queue waits so far
	sentAt      time.Time     // the first Written; zero until then
	result      json.RawMessage
}

// Start begins the CLIENT span of an outgoing request or notification and
// notes its start time for mcp.client.operation.duration. Call it when the
// caller issues the request, before it may be queued (waits show as the
// EventQueued/EventDequeued events inside the span), and pass the returned
// context on. The notifications/cancelled sent for the request gets its
// own CLIENT span, a child of this one, from Op.Cancelling.
//
// The returned *Op is nil when telemetry is disabled or nobody listens (no-op
// providers and nothing to propagate); its methods accept that.
func (t *Telemetry) Start(ctx context.Context, r *Request) (context.Context, *Op) {
	if t == nil || t.disabled || r == nil {
		return ctx, nil
	}
	tracing, metering := t.tracing(), t.metering()
	if !tracing && !metering && !t.passThrough(ctx) {
		return ctx, nil
	}
	if r.Method == messages.MethodServerDiscover && r.ProtocolVersion != "" {
		// The probe offers a version; which one the connection then
		// uses (that one, another, or the session era's) is known
		// only after it, from SetProtocolVersion.
		rr := *r
		rr.ProtocolVersion = ""
		r = &rr
	}
	o := t.newOp(r, trace.SpanKindClient, metering)
	if tracing {
		if t.reuseTool && r.Method == messages.MethodToolsCall {
			if s := trace.SpanFromContext(ctx); s.IsRecording() && isExecuteToolSpan(ctx, s) {
				o.span, o.recording = s, true
				o.span.SetAttributes(t.clientAttrs(r)...)
				o.ctx = ctx
				return ctx, o
			}
		}
		ctx, o.span = t.tracer.Start(ctx, spanName(r),
			trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(o.start))
		o.owned = true
		if o.recording = o.span.IsRecording(); o.recording {
			o.span.SetAttributes(t.clientAttrs(r)...)
		}
	}
	o.ctx = ctx
	return ctx, o
}

// StartServer begins the SERVER span of a server-to-client request we answer
// (sampling/createMessage, elicitation/create, roots/list, ping), from its
// receipt until our answer is sent, and notes the start time for
// mcp.server.operation.duration. The span's parent is the trace context the
// server put in the request's _meta (meta), if any, with a link to the
// span of ctx; otherwise the span of ctx. The returned context carries the
// new span (and the baggage from meta): pass it to the handler.
//
// End the Op when the answer is written; pass the JSON-RPC error we
// answered with (a *messages.Error), if any.
func (t *Telemetry) StartServer(ctx context.Context, r *Request, meta messages.Meta) (context.Context, *Op) {
	if t == nil || t.disabled || r == nil {
		return ctx, nil
	}
	tracing, metering := t.tracing(), t.metering()
	remote := hasTraceKeys(meta) && (tracing || t.propagating())
	if !tracing && !metering {
		if remote {
			// Nobody records, but the handler's own requests should
			// continue the server's trace.
			ctx = t.propagator().Extract(ctx, &metaCarrier{src: meta})
		}
		return ctx, nil
	}
	o := t.newOp(r, trace.SpanKindServer, metering)
	if tracing {
		pctx := ctx
		opts := make([]trace.SpanStartOption, 0, 3)
		opts = append(opts, trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(o.start))
		if remote {
			ambient := trace.SpanContextFromContext(ctx)
			pctx = t.propagator().Extract(ctx, &metaCarrier{src: meta})
			if parent := trace.SpanContextFromContext(pctx); ambient.IsValid() && !parent.Equal(ambient) {
				opts = append(opts, trace.WithLinks(trace.Link{SpanContext: ambient}))
			}
		}
		ctx, o.span = t.tracer.Start(pctx, spanName(r), opts...)
		o.owned = true
		if o.recording = o.span.IsRecording(); o.recording {
			o.span.SetAttributes(t.serverAttrs(r)...)
		}
	} else if remote {
		ctx = t.propagator().Extract(ctx, &metaCarrier{src: meta})
	}
	o.ctx = ctx
	return ctx, o
}

// StartInternal begins an INTERNAL span named after r.Method, a child of the
// span in ctx: the local fulfilment of an input request (sampling,
// elicitation, roots) that a 2026-07-28 multi round-trip round asked for.
// Pass the context returned by Start for that round. No metric is recorded.
func (t *Telemetry) StartInternal(ctx context.Context, r *Request) (context.Context, *Op) {
	if t == nil || t.disabled || r == nil || !t.tracing() {
		return ctx, nil
	}
	o := t.newOp(r, trace.SpanKindInternal, false)
	ctx, o.span = t.tracer.Start(ctx, r.Method,
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(o.start))
	o.owned = true
	if o.recording = o.span.IsRecording(); o.recording {
		var buf [4]attribute.KeyValue
		kv := append(buf[:0], KeyMCPMethodName.String(r.Method), KeyServerName.String(r.Server))
		if r.ID.IsValid() {
			kv = append(kv, KeyJSONRPCRequestID.String(r.ID.String()))
		}
		o.span.SetAttributes(kv...)
	}
	o.ctx = ctx
	return ctx, o
}

func (t *Telemetry) newOp(r *Request, kind trace.SpanKind, metering bool) *Op {
	o := &Op{t: t, kind: kind, metrics: metering, start: time.Now(), req: *r}
	o.req.Arguments = nil
	t.open.Add(1)
	return o
}

// passThrough reports whether ctx holds a trace context or baggage that a
// configured propagator would forward even though nothing is recorded.
func (t *Telemetry) passThrough(ctx context.Context) bool {
	return t.propagating() && carriesTrace(ctx)
}

// carriesTrace reports whether ctx holds a valid span context or baggage.
// It is a frame of its own, never inlined: the span context and the
// baggage it reads make a large frame, which passThrough (and Idle, under
// a caller's every tools/call) would otherwise hold even when nothing
// propagates and they are not read.
//
//go:noinline
func carriesTrace(ctx context.Context) bool {
	return trace.SpanContextFromContext(ctx).IsValid() || baggage.FromContext(ctx).Len() > 0
}

// Idle reports whether Start(ctx, r) would return ctx and no Op, whatever r
// is: telemetry disabled, or nothing recorded and nothing in ctx to
// propagate. A caller that has yet to build its Request can skip it then.
// It is cheap and shallow (a few small frames): the providers' verdicts
// are read from memory (globalVerdict), and ctx is looked into only when
// a propagator could forward what it holds. docs/architecture.md ("One
// CallTool, end to end") says why a call checks it first.
func (t *Telemetry) Idle(ctx context.Context) bool {
	if t == nil || t.disabled {
		return true
	}
	return !t.tracing() && !t.metering() && !t.passThrough(ctx)
}

// target returns the tool or prompt name r is about, if any.
func target(r *Request) (key attribute.Key, name string) {
	if r.Target == "" {
		return "", ""
	}
	switch r.Method {
	case messages.MethodToolsCall:
		return KeyGenAIToolName, r.Target
	case messages.MethodPromptsGet:
		return KeyGenAIPromptName, r.Target
	}
	return "", ""
}

// spanName is "{mcp.method.name} {target}" or "{mcp.method.name}".
func spanName(r *Request) string {
	if _, name := target(r); name != "" {
		return r.Method + " " + name
	}
	return r.Method
}

// clientAttrs are the attributes of a CLIENT span (or of a reused
// execute_tool span).
func (t *Telemetry) clientAttrs(r *Request) []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, 18)
	kv = appendOpAttrs(kv, r)
	kv = appendSpanOnlyAttrs(kv, &r.Peer)
	if r.ResourceURI != "" {
		kv = append(kv, KeyMCPResourceURI.String(r.Mask.Text(r.ResourceURI)))
	}
	if r.SessionID != "" && SessionEra(r.ProtocolVersion) {
		kv = append(kv, KeyMCPSessionID.String(r.SessionID))
	}
	if r.ID.IsValid() && !r.Notification {
		kv = append(kv, KeyJSONRPCRequestID.String(r.ID.String()))
	}
	kv = appendPeerMetricAttrs(kv, &r.Peer, true)
	if t.recordArgs && r.Method == messages.MethodToolsCall && len(r.Arguments) > 0 {
		if v := jsonValue(r.Arguments, r.Mask); v.Type() != attribute.EMPTY {
			kv = append(kv, attribute.KeyValue{Key: KeyGenAIToolCallArguments, Value: v})
		}
	}
	return kv
}

// serverAttrs are the attributes of a SERVER span.
func (t *Telemetry) serverAttrs(r *Request) []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, 14)
	kv = appendOpAttrs(kv, r)
	if r.ResourceURI != "" {
		// notifications/resources/updated names its resource.
		kv = append(kv, KeyMCPResourceURI.String(r.Mask.Text(r.ResourceURI)))
	}
	kv = appendSpanOnlyAttrs(kv, &r.Peer)
	if r.SessionID != "" && SessionEra(r.ProtocolVersion) {
		kv = append(kv, KeyMCPSessionID.String(r.SessionID))
	}
	if r.ID.IsValid() && !r.Notification {
		kv = append(kv, KeyJSONRPCRequestID.String(r.ID.String()))
	}
	return appendPeerMetricAttrs(kv, &r.Peer, false)
}

// appendOpAttrs appends mcp.method.name and the tool or prompt attributes,
// common to spans and duration metrics.
func appendOpAttrs(kv []attribute.KeyValue, r *Request) []attribute.KeyValue {
	kv = append(kv, KeyMCPMethodName.String(r.Method))
	if key, name := target(r); name != "" {
		kv = append(kv, key.String(name))
	}
	if r.Method == messages.MethodToolsCall {
		kv = append(kv, KeyGenAIOperationName.String(OperationExecuteTool))
	}
	return kv
}

// appendSpanOnlyAttrs appends the attributes of p that spans carry and
// metric points never do: the cluster activation's generation and tenant.
func appendSpanOnlyAttrs(kv []attribute.KeyValue, p *Peer) []attribute.KeyValue {
	if p.Generation > 0 {
		kv = append(kv, KeyClusterGeneration.Int64(p.Generation))
	}
	if p.Tenant != "" {
		kv = append(kv, KeyClusterTenant.String(p.Tenant))
	}
	return kv
}

// appendPeerMetricAttrs appends the connection attributes: protocol
// version, network.*, server.* (when withServer) and mcpactor.server.name.
func appendPeerMetricAttrs(kv []attribute.KeyValue, p *Peer, withServer bool) []attribute.KeyValue {
	if p.ProtocolVersion != "" {
		kv = append(kv, KeyMCPProtocolVersion.String(p.ProtocolVersion))
	}
	if p.NetworkTransport != "" {
		kv = append(kv, KeyNetworkTransport.String(p.NetworkTransport))
	}
	if p.NetworkProtocolName != "" {
		kv = append(kv, KeyNetworkProtocolName.String(p.NetworkProtocolName))
	}
	if p.NetworkProtocolVersion != "" {
		kv = append(kv, KeyNetworkProtocolVersion.String(p.NetworkProtocolVersion))
	}
	if withServer && p.ServerAddress != "" {
		kv = append(kv, KeyServerAddress.String(p.ServerAddress))
		if p.ServerPort > 0 {
			kv = append(kv, KeyServerPort.Int(p.ServerPort))
		}
	}
	if p.Server != "" {
		kv = append(kv, KeyServerName.String(p.Server))
	}
	return kv
}

// live reports whether events may be added now.
func (o *Op) live() bool {
	return o != nil && o.recording && !o.ended.Load()
}

// Context returns the context holding the Op's span (the one Start
// returned); context.Background() for a nil Op.
func (o *Op) Context() context.Context {
	if o == nil {
		return context.Background()
	}
	return o.ctx
}

// SpanContext returns the span context of the Op's span (invalid when not
// tracing).
func (o *Op) SpanContext() trace.SpanContext {
	if o == nil || o.span == nil {
		return trace.SpanContext{}
	}
	return o.span.SpanContext()
}

// RecordsToolArguments reports whether the Op records the tool arguments
// and result (Options.RecordToolArguments, and the span is recording), so
// the caller encodes them only then.
func (o *Op) RecordsToolArguments() bool {
	return o.live() && o.t.recordArgs && o.req.Method == messages.MethodToolsCall
}

// SetRequestID records the JSON-RPC id once the transport has assigned it
// (jsonrpc.request.id). A request sent again under the same Op (an HTTP
// session-expiry replay, a 2026-07-28 re-issue) gets a new id: the span's
// jsonrpc.request.id becomes the new one, the one its answer carries, and
// event EventResent keeps the earlier one (its jsonrpc.request.id), so
// that both ids the server saw lead to the span.
func (o *Op) SetRequestID(id messages.ID) {
	if o == nil || !id.IsValid() || o.ended.Load() {
		return
	}
	o.mu.Lock()
	prev := o.req.ID
	o.req.ID = id
	o.mu.Unlock()
	if o.live() {
		if prev.IsValid() && prev != id {
			o.span.AddEvent(EventResent, trace.WithAttributes(KeyJSONRPCRequestID.String(prev.String())))
		}
		o.span.SetAttributes(KeyJSONRPCRequestID.String(id.String()))
	}
}

// SetToolResult keeps the raw result of a tools/call for
// gen_ai.tool.call.result, recorded at End when the call succeeded (no
// error and no isError) and only with Options.RecordToolArguments.
func (o *Op) SetToolResult(result json.RawMessage) {
	if !o.RecordsToolArguments() || len(result) == 0 {
		return
	}
	o.mu.Lock()
	o.result = result
	o.mu.Unlock()
}

// Queued records that the request waits before it can be written, for
// reason (QueueHandshake or QueueConcurrency): event EventQueued. The wait
// ends at Dequeued, Written or End and is recorded in
// mcpactor.client.queue.wait.duration. A second Queued ends the first wait.
func (o *Op) Queued(reason string) {
	if o == nil || o.ended.Load() {
		return
	}
	now := time.Now()
	o.mu.Lock()
	prevAt, prevReason := o.queuedAt, o.queueReason
	o.queuedAt, o.queueReason = now, reason
	if !prevAt.IsZero() {
		o.waitedFor += now.Sub(prevAt)
	}
	o.mu.Unlock()
	if !prevAt.IsZero() {
		o.waited(prevReason, now.Sub(prevAt), true)
	}
	if o.live() {
		o.span.AddEvent(EventQueued, trace.WithTimestamp(now),
			trace.WithAttributes(KeyQueueReason.String(reason)))
	}
}

// Dequeued ends a wait begun by Queued: event EventDequeued with the wait
// in seconds, and a point in mcpactor.client.queue.wait.duration. It does
// nothing when the Op is not queued.
func (o *Op) Dequeued() {
	if o == nil || o.ended.Load() {
		return
	}
	o.dequeue(true)
}

func (o *Op) dequeue(event bool) {
	o.mu.Lock()
	at, reason := o.queuedAt, o.queueReason
	o.queuedAt, o.queueReason = time.Time{}, ""
	var d time.Duration
	if !at.IsZero() {
		d = time.Since(at)
		o.waitedFor += d
	}
	o.mu.Unlock()
	if !at.IsZero() {
		o.waited(reason, d, event)
	}
}

func (o *Op) waited(reason string, d time.Duration, event bool) {
	if event && o.live() {
		o.span.AddEvent(EventDequeued, trace.WithAttributes(
			KeyQueueReason.String(reason), KeyQueueWait.Float64(d.Seconds())))
	}
	if o.metrics {
		o.t.queueWait.Record(o.ctx, d.Seconds(), metric.WithAttributes(
			KeyServerName.String(o.req.Server), KeyQueueReason.String(reason)))
	}
}

// Written records that the request (or notification) is on the wire:
// event EventWritten. It ends a pending queue wait first. The first
// Written is the request's send, from which
// mcp.client.operation.duration is measured.
func (o *Op) Written() {
	if o == nil || o.ended.Load() {
		return
	}
	o.dequeue(true)
	now := time.Now()
	o.mu.Lock()
	if o.sentAt.IsZero() {
		o.sentAt = now
	}
	o.mu.Unlock()
	if o.live() {
		o.span.AddEvent(EventWritten, trace.WithTimestamp(now))
	}
}

// Progress records one notifications/progress for the request: event
// EventProgress with its progress, total (when known) and message (when
// not empty).
func (o *Op) Progress(progress float64, total *float64, message string) {
	if !o.live() {
		return
	}
	var buf [3]attribute.KeyValue
	kv := append(buf[:0], KeyProgressValue.Float64(progress))
	if total != nil {
		kv = append(kv, KeyProgressTotal.Float64(*total))
	}
	if message != "" {
		kv = append(kv, KeyProgressMessage.String(o.req.Mask.Text(message)))
	}
	o.span.AddEvent(EventProgress, trace.WithAttributes(kv...))
}

// Cancelling is called right before notifications/cancelled is queued for
// the request (the transport calls it in its actor, so it is cheap and
// never blocks), with the reason and the notification's params. It adds
// event EventCancelSent to the request's span and gives the notification
// a CLIENT span of its own, as every outgoing notification has: named
// notifications/cancelled, with the request's connection attributes, a
// child of the request's span, and ended at once (nobody waits for a
// notification). It returns params with that span's trace context in
// _meta (the configured propagators; with W3C, traceparent, tracestate and
// baggage, unprefixed), so the server can tie the cancellation to the
// request it cancels. It also records mcp.client.operation.duration for
// the notification, as for any other.
//
// A nil Op returns params as they are, allocating nothing.
func (o *Op) Cancelling(reason string, params json.RawMessage) json.RawMessage {
	if o == nil {
		return params
	}
	if o.live() {
		o.span.AddEvent(EventCancelSent, trace.WithAttributes(KeyCancelReason.String(o.req.Mask.Text(reason))))
	}
	o.mu.Lock()
	peer := o.req.Peer
	o.mu.Unlock()
	// The request's context: its span is the parent (the caller's span
	// when it reused an execute_tool span; the caller's trace context
	// alone when only propagating).
	_, n := o.t.Start(o.ctx, &Request{Peer: peer, Method: messages.NotificationCancelled, Notification: true})
	if n == nil {
		return params
	}
	params = n.InjectParams(params)
	n.End(nil, false)
	return params
}

// SetProtocolVersion records the negotiated protocol version
// (mcp.protocol.version) once it is known: on the initialize span when its
// answer settles it, and on requests that were issued before the handshake
// ended. It also goes on the Op's duration metric point. It does nothing on
// a nil or ended Op, or for "".
//
// On server/discover, the probe of a connection whose protocol is not known,
// the version offered is not recorded at Start: the connection may go on
// with another version, or with the session era's initialize. Only a
// version given here, the one the connection then uses, is recorded.
func (o *Op) SetProtocolVersion(v string) {
	if o == nil {
		return
	}
	o.setPeerString(&o.req.ProtocolVersion, KeyMCPProtocolVersion, v)
}

// SetPeer replaces the Op's description of the server once the
// connection is known: a request issued before its connection's handshake
// ended was started with what was known then, and the connection's Peer
// (its transport, address, port, session id, versions) is known after.
// The span's connection attributes are overwritten and the duration metric
// point takes the new ones. p.Mask nil keeps the Op's masker. On
// server/discover the version is not taken (see SetProtocolVersion). It
// does nothing on a nil or ended Op.
func (o *Op) SetPeer(p Peer) {
	if o == nil || o.ended.Load() {
		return
	}
	o.mu.Lock()
	if p.Mask == nil {
		p.Mask = o.req.Mask
	}
	if o.req.Method == messages.MethodServerDiscover {
		p.ProtocolVersion = o.req.ProtocolVersion
	}
	o.req.Peer = p
	o.mu.Unlock()
	if o.live() {
		var buf [16]attribute.KeyValue
		kv := appendSpanOnlyAttrs(buf[:0], &p)
		if p.SessionID != "" && SessionEra(p.ProtocolVersion) && o.kind != trace.SpanKindInternal {
			kv = append(kv, KeyMCPSessionID.String(p.SessionID))
		}
		kv = appendPeerMetricAttrs(kv, &p, o.kind == trace.SpanKindClient)
		o.span.SetAttributes(kv...)
	}
}

// SetNetworkProtocolVersion records network.protocol.version ("1.0",
// "1.1", "2", "3"; see HTTPProtocolVersion) once the transport knows it:
// an HTTP request learns it from its response, as HTTP/2 is negotiated per
// connection (ALPN). It goes on the span and on the Op's duration metric
// point. It does nothing on a nil or ended Op, or for "".
func (o *Op) SetNetworkProtocolVersion(v string) {
	if o == nil {
		return
	}
	o.setPeerString(&o.req.NetworkProtocolVersion, KeyNetworkProtocolVersion, v)
}

// setPeerString sets field, one of o.req's, to v under o.mu and puts v
// on the span as key; it does nothing on an ended Op, or for "".
func (o *Op) setPeerString(field *string, key attribute.Key, v string) {
	if v == "" || o.ended.Load() {
		return
	}
	o.mu.Lock()
	*field = v
	o.mu.Unlock()
	if o.live() {
		o.span.SetAttributes(key.String(v))
	}
}

// Retry records that the request is sent again (attempt counts from 1):
// event EventRetry.
func (o *Op) Retry(attempt int, reason string) {
	if !o.live() {
		return
	}
	o.span.AddEvent(EventRetry, trace.WithAttributes(
		KeyRetryAttempt.Int(attempt), KeyRetryReason.String(o.req.Mask.Text(reason))))
}

// Resume records that the response stream of the request is resumed (for
// example an SSE stream re-opened with Last-Event-ID): event EventResume.
func (o *Op) Resume(reason string) {
	if !o.live() {
		return
	}
	o.span.AddEvent(EventResume, trace.WithAttributes(KeyRetryReason.String(o.req.Mask.Text(reason))))
}

// Reinitialize records that the session had to be initialized again before
// the request could go on (for example an expired HTTP session): event
// EventReinitialize.
func (o *Op) Reinitialize(reason string) {
	if !o.live() {
		return
	}
	o.span.AddEvent(EventReinitialize, trace.WithAttributes(KeyRetryReason.String(o.req.Mask.Text(reason))))
}

// Event adds any other event to the span. The variadic attributes cost an
// allocation at the call site even when nothing records: keep Event off hot
// paths and prefer the dedicated methods.
func (o *Op) Event(name string, attrs ...attribute.KeyValue) {
	if !o.live() {
		return
	}
	masked := attrs
	for i, a := range attrs {
		if a.Value.Type() != attribute.STRING {
			continue
		}
		if v := o.req.Mask.Text(a.Value.AsString()); v != a.Value.AsString() {
			if &masked[0] == &attrs[0] {
				masked = slices.Clone(attrs) // never the caller's
			}
			masked[i].Value = attribute.StringValue(v)
		}
	}
	o.span.AddEvent(name, trace.WithAttributes(masked...))
}

// LateResponse records that a response for this request arrived after the
// request was retired (timed out or cancelled) and was ignored. While the
// span is still open this is event EventLateResponse on it; once it has
// ended (the usual case), a zero-length INTERNAL span SpanLateResponse,
// child of the request's span, carries the event. The transport counts the
// frame with Dropped(server, DropLateResponse, 1) as well, Op or not.
func (o *Op) LateResponse() {
	if o == nil || o.span == nil || !o.recording {
		return
	}
	if o.span.IsRecording() && (!o.owned || !o.ended.Load()) {
		o.span.AddEvent(EventLateResponse)
		return
	}
	if !o.t.tracing() {
		return
	}
	o.mu.Lock()
	id := o.req.ID
	o.mu.Unlock()
	pctx := trace.ContextWithSpanContext(context.Background(), o.span.SpanContext())
	_, s := o.t.tracer.Start(pctx, SpanLateResponse, trace.WithSpanKind(trace.SpanKindInternal))
	if s.IsRecording() {
		kv := []attribute.KeyValue{KeyMCPMethodName.String(o.req.Method), KeyServerName.String(o.req.Server)}
		if id.IsValid() {
			kv = append(kv, KeyJSONRPCRequestID.String(id.String()))
		}
		s.SetAttributes(kv...)
		s.AddEvent(EventLateResponse)
	}
	s.End()
}

// End ends the operation, exactly once: later calls do nothing. err is how
// it failed (nil on success); toolError is true when a tools/call result has
// isError. It sets error.type (and rpc.response.status_code for a JSON-RPC
// error) and the ERROR status on the span, ends the span (unless it is a
// reused execute_tool span, which its owner ends), and records
// mcp.client.operation.duration (CLIENT) or mcp.server.operation.duration
// (SERVER).
//
// error.type is the JSON-RPC code as a string for a *callerr.RPCError, a
// *messages.Error or an HTTP error status whose body held a JSON-RPC
// error; the HTTP status as a string for another error status or a
// session that expired;
// "tool_error" for toolError; "timeout" when errors.Is(err,
// errkind.ErrTimeout) or errors.Is(err, context.DeadlineExceeded);
// "cancelled" for context.Canceled or a call cancelled;
// "transport_closed" when errors.Is(err, errkind.ErrTransportClosed);
// "_OTHER" otherwise.
//
// On a SERVER Op (a request the server made of us), the codes that say the
// requester sent something we could not serve (-32700, -32600, -32601,
// -32602, -32002) are not errors: rpc.response.status_code is recorded,
// error.type and the ERROR status are not (see CallerFault).
func (o *Op) End(err error, toolError bool) {
	if o == nil || !o.ended.CompareAndSwap(false, true) {
		return
	}
	o.t.open.Add(-1)
	now := time.Now()
	o.dequeue(false)
	out := classify(err, toolError, o.req.Mask)
	if o.kind == trace.SpanKindServer && out.hasCode && CallerFault(out.num) {
		out.errType, out.desc = "", ""
	}
	// The span's and the metric's work are functions of their own: their
	// frames (attribute arrays) would otherwise be part of End's, and End
	// runs on the caller's goroutine, whose stack then grows past 4 KiB
	// for every call in flight, recording or not.
	if o.span != nil {
		o.endSpan(out, now)
	}
	if o.metrics {
		o.recordDuration(out, now)
	}
}

// EndExpected ends the operation, exactly once, like End, for a request
// whose failure is an answer the runtime asked for, not a fault: the
// server/discover probe, which a session-era server refuses (method not
// found, an HTTP 400 or 404 before initialize, silence) and so tells the
// runtime to speak initialize. A JSON-RPC code is recorded as
// rpc.response.status_code; neither error.type nor the ERROR status is
// set, so a dashboard of failed requests does not count one per
// connection to every session-era server. verdict (the era the probe
// found) is recorded as mcpactor.probe.verdict.
func (o *Op) EndExpected(err error, verdict string) {
	if o == nil || !o.ended.CompareAndSwap(false, true) {
		return
	}
	o.t.open.Add(-1)
	now := time.Now()
	o.dequeue(false)
	out := classify(err, false, nil)
	out.errType, out.desc = "", ""
	if o.span != nil {
		if o.recording {
			o.span.SetAttributes(KeyProbeVerdict.String(verdict))
		}
		o.endSpan(out, now)
	}
	if o.metrics {
		o.recordDuration(out, now)
	}
}

// endSpan sets the span's outcome, if it records, and ends it, if it is
// ours.
func (o *Op) endSpan(out outcome, now time.Time) {
	if o.recording {
		o.mu.Lock()
		waited := o.waitedFor
		o.mu.Unlock()
		if waited > 0 {
			// The waits are in the span (which starts when the caller
			// issues the request) but not in the duration metric (which
			// starts at the send): their sum, for a query.
			o.span.SetAttributes(KeyQueueWait.Float64(waited.Seconds()))
		}
		switch {
		case out.errType != "":
			if out.hasCode {
				o.span.SetAttributes(KeyErrorType.String(out.errType), KeyRPCResponseStatusCode.String(out.code))
			} else {
				o.span.SetAttributes(KeyErrorType.String(out.errType))
			}
			o.span.SetStatus(codes.Error, out.desc)
		case out.hasCode:
			o.span.SetAttributes(KeyRPCResponseStatusCode.String(out.code))
		case o.t.recordArgs && o.req.Method == messages.MethodToolsCall:
			o.mu.Lock()
			result := o.result
			o.result = nil
			o.mu.Unlock()
			if len(result) > 0 {
				if v := jsonValue(result, o.req.Mask); v.Type() != attribute.EMPTY {
					o.span.SetAttributes(attribute.KeyValue{Key: KeyGenAIToolCallResult, Value: v})
				}
			}
		}
	}
	if o.owned {
		o.span.End(trace.WithTimestamp(now))
	}
}

// recordDuration records the operation's duration on its histogram.
func (o *Op) recordDuration(out outcome, now time.Time) {
	var hist metric.Float64Histogram
	switch o.kind {
	case trace.SpanKindClient:
		hist = o.t.clientDur
	case trace.SpanKindServer:
		hist = o.t.serverDur
	default:
		return
	}
	// The request as it is now: SetRequestID and SetProtocolVersion may
	// have changed it since Start.
	o.mu.Lock()
	req := o.req
	from := o.sentFrom()
	o.mu.Unlock()
	var buf [14]attribute.KeyValue
	kv := appendOpAttrs(buf[:0], &req)
	kv = appendPeerMetricAttrs(kv, &req.Peer, o.kind == trace.SpanKindClient)
	if out.errType != "" {
		kv = append(kv, KeyErrorType.String(out.errType))
	}
	if out.hasCode {
		kv = append(kv, KeyRPCResponseStatusCode.String(out.code))
	}
	hist.Record(o.ctx, max(now.Sub(from), 0).Seconds(), metric.WithAttributes(kv...))
}

// sentFrom is when the operation's duration starts, o.mu held. The
// conventions measure mcp.client.operation.duration "from the time it was
// sent" (model/mcp/metrics.yaml): the first Written. An Op that never
// reported a write (a notification, a request that failed while queued)
// is measured from Start without its queue waits. A SERVER Op starts at
// receipt, which is Start.
func (o *Op) sentFrom() time.Time {
	if o.kind != trace.SpanKindClient {
		return o.start
	}
	if !o.sentAt.IsZero() {
		return o.sentAt
	}
	return o.start.Add(o.waitedFor)
}

// CallerFault reports whether a JSON-RPC error code we answer a server's
// request with means that the server sent a request we could not serve
// rather than that we failed: -32700 (parse error), -32600 (invalid
// request), -32601 (method not found), -32602 (invalid params) and -32002
// (resource not found). The MCP semantic conventions say these SHOULD NOT be
// considered errors on the receiver's (SERVER) side, and any other code
// SHOULD; on the sender's (CLIENT) side every code is an error
// (rpc.response.status_code in
// https://github.com/open-telemetry/semantic-conventions-genai/blob/main/model/mcp/common.yaml,
// rendered in docs/gen-ai/mcp.md of the same repository).
func CallerFault(code int64) bool {
	switch code {
	case messages.CodeParseError, messages.CodeInvalidRequest, messages.CodeMethodNotFound,
		messages.CodeInvalidParams, messages.CodeResourceNotFound:
		return true
	}
	return false
}

// ErrorType returns the error.type End would record for err and toolError
// on a CLIENT span ("" for success).
func ErrorType(err error, toolError bool) string {
	return classify(err, toolError, nil).errType
}

// outcome is how an operation ended, as the conventions describe it.
type outcome struct {
	errType string // error.type; "" for success
	code    string // rpc.response.status_code, when hasCode
	num     int64  // the JSON-RPC code, when hasCode
	hasCode bool
	desc    string // the span status description
}

// classify maps an outcome to error.type, the JSON-RPC code (if any) and
// the status description. The description is shown wherever spans are:
// m masks the server's credentials in it, whether the runtime or the
// server (a JSON-RPC error's message) wrote them, and the credentials of
// any URL it quotes.
func classify(err error, toolError bool, m *redact.Masker) outcome {
	if err == nil {
		if toolError {
			return outcome{errType: ErrorTypeToolError, desc: "tool result has isError"}
		}
		return outcome{}
	}
	var rpcErr *callerr.RPCError
	if errors.As(err, &rpcErr) {
		c := strconv.FormatInt(rpcErr.Code, 10)
		return outcome{errType: c, code: c, num: rpcErr.Code, hasCode: true, desc: m.Text(rpcErr.Message)}
	}
	var wireErr *messages.Error
	if errors.As(err, &wireErr) {
		c := strconv.FormatInt(wireErr.Code, 10)
		return outcome{errType: c, code: c, num: wireErr.Code, hasCode: true, desc: m.Text(wireErr.Message)}
	}
	if status := callerr.HTTPStatus(err); status != nil {
		return httpOutcome(status.Status, status.RPC, err, m)
	}
	if expired := callerr.SessionExpired(err); expired != nil && expired.Status > 0 {
		return httpOutcome(expired.Status, nil, err, m)
	}
	desc := m.Text(err.Error())
	switch {
	case toolError:
		return outcome{errType: ErrorTypeToolError, desc: desc}
	case errors.Is(err, errkind.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		// A caller's deadline is a timeout too, even when the runtime
		// reports it as a cancellation (its Kind is the context's
		// error).
		return outcome{errType: ErrorTypeTimeout, desc: desc}
	case errors.Is(err, context.Canceled), callerr.Canceled(err) != nil:
		return outcome{errType: ErrorTypeCancelled, desc: desc}
	case errors.Is(err, errkind.ErrTransportClosed):
		return outcome{errType: ErrorTypeTransportClosed, desc: desc}
	}
	return outcome{errType: ErrorTypeOther, desc: desc}
}

// httpOutcome is the outcome of an HTTP answer with an error status. A
// JSON-RPC error in its body is recorded as any other JSON-RPC error (the
// code is error.type and rpc.response.status_code, its message the
// status description: model/mcp/common.yaml). Without one, error.type is
// the HTTP status code as a string, as HTTP instrumentations record it
// (error.type in
// https://github.com/open-telemetry/semantic-conventions/blob/v1.43.0/docs/registry/attributes/error.md
// and the HTTP spans' conventions), not "_OTHER".
func httpOutcome(status int, rpc *messages.Error, err error, m *redact.Masker) outcome {
	if rpc != nil {
		c := strconv.FormatInt(rpc.Code, 10)
		desc := rpc.Message
		if desc == "" {
			desc = err.Error()
		}
		return outcome{errType: c, code: c, num: rpc.Code, hasCode: true, desc: m.Text(desc)}
	}
	return outcome{errType: strconv.Itoa(status), desc: m.Text(err.Error())}
}
