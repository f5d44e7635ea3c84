// Package telemetry is the OpenTelemetry instrumentation of the MCP client
// runtime: a CLIENT span and an mcp.client.operation.duration point per
// outgoing request or notification, a SERVER span per server-to-client
// request we answer, W3C trace context in params._meta, and the runtime's own
// counters and gauges. Names follow the OpenTelemetry semantic conventions
// for MCP
// (https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/mcp.md);
// docs/telemetry.md lists everything emitted.
//
// The transport and client actors own the calls: they create one Telemetry
// per runtime (New), call Start when a caller issues a request, Inject the
// returned Op into the request's _meta, report what happens to it (Queued,
// Written, Progress, Cancelling, SetProtocolVersion, Event) and End it
// exactly once when it resolves, fails, times out, is cancelled or its
// transport closes.
//
// By default the global providers are used (no-ops unless the application
// installs real ones), and then nothing is allocated: Start returns a nil
// *Op, and every method of a nil *Op and of a nil *Telemetry does nothing.
//
// This package depends on the OpenTelemetry API only. Exporters and SDK
// providers configured from the OTEL_* environment variables are in
// package otelenv (telemetry/otelenv), for the programs that want them.
package telemetry

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Options configure a Telemetry. The zero value uses the global providers
// and propagator.
type Options struct {
	// TracerProvider makes the spans. Nil means the global one
	// (otel.GetTracerProvider), looked up on every call, so a provider the
	// application installs after New is used from then on.
	TracerProvider trace.TracerProvider
	// MeterProvider makes the metric instruments. Nil means the global one;
	// instruments made before the application installs a real provider
	// forward to it once it does.
	MeterProvider metric.MeterProvider
	// Propagator injects and extracts the trace context in _meta. Nil means
	// the global one (otel.GetTextMapPropagator), looked up on every call.
	Propagator propagation.TextMapPropagator
	// Disabled switches all instrumentation off: no spans, no metrics, no
	// propagation.
	Disabled bool
	// RecordToolArguments records gen_ai.tool.call.arguments and
	// gen_ai.tool.call.result on tools/call spans. Off by default: they may
	// hold sensitive data.
	RecordToolArguments bool
	// ReuseExecuteToolSpan makes a tools/call add its MCP attributes and
	// events to the GenAI execute_tool span already in the caller's context
	// instead of starting a CLIENT span of its own (see
	// MarkExecuteToolSpan for how such a span is recognised).
	ReuseExecuteToolSpan bool
}

// Telemetry instruments one MCP client. It is safe for concurrent use. A nil
// *Telemetry behaves as one made with Options.Disabled.
type Telemetry struct {
	disabled   bool
	recordArgs bool
	reuseTool  bool

	tracer       trace.Tracer
	tracerGlobal bool // liveness follows otel.GetTracerProvider()
	tracerOff    bool // an explicit no-op provider

	prop propagation.TextMapPropagator // nil: the global one

	meterGlobal bool
	meterOff    bool

	clientDur  metric.Float64Histogram
	serverDur  metric.Float64Histogram
	sessionDur metric.Float64Histogram
	queueWait  metric.Float64Histogram
	inFlight   metric.Int64UpDownCounter
	dropped    metric.Int64Counter
	restarts   metric.Int64Counter
	mailbox    metric.Int64ObservableGauge
	reg        metric.Registration

	open atomic.Int64 // Ops started and not yet ended

	mu         sync.RWMutex
	serverOpts map[string]metric.AddOption    // mcpactor.server.name, per server
	dropOpts   map[[2]string]metric.AddOption // server, reason
	depthFns   map[uint64]func(observe func(server string, depth int64))
	nextDepth  uint64
}

// New makes a Telemetry. Instruments are created here, once.
func New(opts Options) *Telemetry {
	t := &Telemetry{
		disabled:   opts.Disabled,
		recordArgs: opts.RecordToolArguments,
		reuseTool:  opts.ReuseExecuteToolSpan,
		prop:       opts.Propagator,
	}
	if t.disabled {
		return t
	}
	tracerOpts := []trace.TracerOption{trace.WithInstrumentationVersion(ScopeVersion), trace.WithSchemaURL(SchemaURL)}
	if opts.TracerProvider == nil {
		t.tracerGlobal = true
		t.tracer = otel.Tracer(ScopeName, tracerOpts...)
	} else {
		t.tracerOff = isNoopTracerProvider(opts.TracerProvider)
		t.tracer = opts.TracerProvider.Tracer(ScopeName, tracerOpts...)
	}
	mp := opts.MeterProvider
	if mp == nil {
		t.meterGlobal = true
		mp = otel.GetMeterProvider()
	} else {
		t.meterOff = isNoopMeterProvider(mp)
	}
	if !t.meterOff {
		t.makeInstruments(mp.Meter(ScopeName, metric.WithInstrumentationVersion(ScopeVersion), metric.WithSchemaURL(SchemaURL)))
	}
	return t
}

func (t *Telemetry) makeInstruments(m metric.Meter) {
	// Instrument errors are reported to the global error handler by the SDK
	// and the returned instrument is then a working no-op: nothing to do.
	t.clientDur = secondsHistogram(m, MetricClientOperationDuration, durationBuckets,
		"Time from sending an MCP request or notification until its answer, failure, timeout or cancellation, seen by the client.")
	t.serverDur = secondsHistogram(m, MetricServerOperationDuration, durationBuckets,
		"Time from receiving a server-to-client MCP request until our answer is written.")
	t.sessionDur = secondsHistogram(m, MetricClientSessionDuration, durationBuckets,
		"Time from the start of an MCP session (initialize) until it ends, seen by the client.")
	t.queueWait = secondsHistogram(m, MetricQueueWait, queueWaitBuckets,
		"Time a request waited before it could be written: for the handshake or for a concurrency slot.")
	t.inFlight, _ = m.Int64UpDownCounter(MetricInFlight,
		metric.WithUnit("{request}"),
		metric.WithDescription("Requests sent to a server and not yet resolved."))
	t.dropped, _ = m.Int64Counter(MetricFramesDropped,
		metric.WithUnit("{frame}"),
		metric.WithDescription("Inbound frames dropped by the transport, by reason."))
	t.restarts, _ = m.Int64Counter(MetricRestarts,
		metric.WithUnit("{restart}"),
		metric.WithDescription("Restarts of a server connection."))
	t.mailbox, _ = m.Int64ObservableGauge(MetricMailboxDepth,
		metric.WithUnit("{message}"),
		metric.WithDescription("Messages waiting in a transport actor's mailbox."))
	t.depthFns = make(map[uint64]func(func(string, int64)))
	t.reg, _ = m.RegisterCallback(t.observeDepth, t.mailbox)
}

// secondsHistogram makes one of the duration histograms: the semantic
// conventions record durations in seconds ("s") with explicit bucket
// boundaries, so that every duration instrument is built alike.
func secondsHistogram(m metric.Meter, name string, buckets []float64, description string) metric.Float64Histogram {
	h, _ := m.Float64Histogram(name,
		metric.WithUnit("s"),
		metric.WithDescription(description),
		metric.WithExplicitBucketBoundaries(buckets...))
	return h
}

// Close unregisters the mailbox-depth callback from the meter. Spans and
// other instruments keep working; Close is for tests and for clients that
// are thrown away while the process goes on.
func (t *Telemetry) Close() error {
	if t == nil || t.reg == nil {
		return nil
	}
	return t.reg.Unregister()
}

// RecordsToolArguments reports whether tools/call arguments should be
// passed in Request.Arguments (Options.RecordToolArguments): the caller can
// then skip encoding them when nobody will record them.
func (t *Telemetry) RecordsToolArguments() bool {
	return t != nil && !t.disabled && t.recordArgs
}

// OpenOps reports how many Ops were started and not yet ended. Tests use it
// to check that every span ends (it counts only live Ops: nothing is counted
// while telemetry costs nothing).
func (t *Telemetry) OpenOps() int64 {
	if t == nil {
		return 0
	}
	return t.open.Load()
}

// tracing reports whether spans may be recorded now.
func (t *Telemetry) tracing() bool {
	if t.disabled || t.tracerOff {
		return false
	}
	if t.tracerGlobal {
		return !globalTracer.noop(otel.GetTracerProvider(), isNoopTracerProvider)
	}
	return true
}

// metering reports whether metric points may be recorded now.
func (t *Telemetry) metering() bool {
	if t.disabled || t.meterOff || t.clientDur == nil {
		return false
	}
	if t.meterGlobal {
		return !globalMeter.noop(otel.GetMeterProvider(), isNoopMeterProvider)
	}
	return true
}

// propagator returns the propagator to use now.
func (t *Telemetry) propagator() propagation.TextMapPropagator {
	if t.prop != nil {
		return t.prop
	}
	return otel.GetTextMapPropagator()
}

// propagating reports whether the propagator could write anything.
func (t *Telemetry) propagating() bool {
	if t.disabled {
		return false
	}
	if t.prop != nil {
		return true
	}
	return !globalPropagator.noop(otel.GetTextMapPropagator(), isGlobalDefault)
}

const globalPkg = "go.opentelemetry.io/otel/internal/global"

// isGlobalDefault reports whether v is one of the otel package's own
// placeholder providers, in place until the application installs a real
// one. Those have no delegate then (once a real provider is installed the
// otel getters return that one instead), so they are no-ops. Neither
// reflect.TypeOf nor PkgPath allocates.
func isGlobalDefault(v any) bool {
	rt := reflect.TypeOf(v)
	if rt == nil {
		return true
	}
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	return rt.PkgPath() == globalPkg
}

// isNoopTracerProvider reports whether tp, a trace.TracerProvider, records
// nothing.
func isNoopTracerProvider(tp any) bool {
	switch tp.(type) {
	case nil, tracenoop.TracerProvider, *tracenoop.TracerProvider:
		return true
	}
	if isGlobalDefault(tp) {
		return true
	}
	// trace.NewNoopTracerProvider (deprecated) returns an unexported type.
	rt := reflect.TypeOf(tp)
	return rt.PkgPath() == "go.opentelemetry.io/otel/trace" && rt.Name() == "noopTracerProvider"
}

// isNoopMeterProvider reports whether mp, a metric.MeterProvider, records
// nothing.
func isNoopMeterProvider(mp any) bool {
	switch mp.(type) {
	case nil, metricnoop.MeterProvider, *metricnoop.MeterProvider:
		return true
	}
	return isGlobalDefault(mp)
}

// --- runtime instruments ---

// serverOpt returns the cached measurement option {mcpactor.server.name}.
func (t *Telemetry) serverOpt(server string) metric.AddOption {
	t.mu.RLock()
	o, ok := t.serverOpts[server]
	t.mu.RUnlock()
	if ok {
		return o
	}
	o = metric.WithAttributeSet(attribute.NewSet(KeyServerName.String(server)))
	t.mu.Lock()
	if t.serverOpts == nil {
		t.serverOpts = make(map[string]metric.AddOption)
	}
	t.serverOpts[server] = o
	t.mu.Unlock()
	return o
}

// InFlight adds delta to mcpactor.client.requests.in_flight of server: +1
// when a request is handed to the transport, -1 when it resolves however it
// ends.
func (t *Telemetry) InFlight(server string, delta int64) {
	if t == nil || !t.metering() {
		return
	}
	t.inFlight.Add(context.Background(), delta, t.serverOpt(server))
}

// Dropped counts n inbound frames of server that the transport dropped, in
// mcpactor.transport.frames.dropped with mcpactor.drop.reason = kind (one of
// the Drop* constants).
func (t *Telemetry) Dropped(server, kind string, n int64) {
	if t == nil || n <= 0 || !t.metering() {
		return
	}
	key := [2]string{server, kind}
	t.mu.RLock()
	o, ok := t.dropOpts[key]
	t.mu.RUnlock()
	if !ok {
		o = metric.WithAttributeSet(attribute.NewSet(KeyServerName.String(server), KeyDropReason.String(kind)))
		t.mu.Lock()
		if t.dropOpts == nil {
			t.dropOpts = make(map[[2]string]metric.AddOption)
		}
		t.dropOpts[key] = o
		t.mu.Unlock()
	}
	t.dropped.Add(context.Background(), n, o)
}

// Restarted counts one restart of server's connection in
// mcpactor.client.restarts, with mcpactor.restart.reason = reason (for
// example "crash", "session_expired", "reconnect").
func (t *Telemetry) Restarted(server, reason string) {
	if t == nil || !t.metering() {
		return
	}
	t.restarts.Add(context.Background(), 1,
		metric.WithAttributes(KeyServerName.String(server), KeyRestartReason.String(reason)))
}

// QueueWait records in mcpactor.client.queue.wait.duration that a request
// to server waited d for reason (QueueHandshake or QueueConcurrency). Ops
// record their own waits (Op.Queued, Op.Dequeued); this is for waits
// measured without an Op.
func (t *Telemetry) QueueWait(server, reason string, d time.Duration) {
	if t == nil || !t.metering() {
		return
	}
	t.queueWait.Record(context.Background(), d.Seconds(),
		metric.WithAttributes(KeyServerName.String(server), KeyQueueReason.String(reason)))
}

// RegisterMailboxDepth registers f as a source of
// mcpactor.transport.mailbox.depth: at each collection f is called and
// reports the depth of each server's mailbox through observe. f must not
// block. The returned func unregisters f.
func (t *Telemetry) RegisterMailboxDepth(f func(observe func(server string, depth int64))) (unregister func()) {
	if t == nil || t.depthFns == nil || f == nil {
		return func() {}
	}
	t.mu.Lock()
	id := t.nextDepth
	t.nextDepth++
	t.depthFns[id] = f
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		delete(t.depthFns, id)
		t.mu.Unlock()
	}
}

func (t *Telemetry) observeDepth(_ context.Context, o metric.Observer) error {
	t.mu.RLock()
	fns := make([]func(func(string, int64)), 0, len(t.depthFns))
	for _, f := range t.depthFns {
		fns = append(fns, f)
	}
	t.mu.RUnlock()
	observe := func(server string, depth int64) {
		o.ObserveInt64(t.mailbox, depth, metric.WithAttributes(KeyServerName.String(server)))
	}
	for _, f := range fns {
		f(observe)
	}
	return nil
}

// SessionEnded records mcp.client.session.duration for a session with the
// peer p that began at start (when initialize was sent) and ended now, with
// error.type when err is not nil (classified as for End). Sessions exist
// only in the session era: nothing is recorded for a peer whose
// ProtocolVersion is 2026-07-28 or later.
func (t *Telemetry) SessionEnded(p *Peer, start time.Time, err error) {
	if t == nil || p == nil || !SessionEra(p.ProtocolVersion) || !t.metering() {
		return
	}
	errType := classify(err, false, nil).errType
	var buf [12]attribute.KeyValue
	kv := buf[:0]
	kv = appendPeerMetricAttrs(kv, p, true)
	if errType != "" {
		kv = append(kv, KeyErrorType.String(errType))
	}
	t.sessionDur.Record(context.Background(), time.Since(start).Seconds(), metric.WithAttributes(kv...))
}
