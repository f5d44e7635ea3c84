package telemetry

import (
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
)

// callSequence is what the runtime does around one tools/call (and one
// ping it answers), written as the integration will write it: including
// the notifications/cancelled the transport sends for it (Cancelling).
func callSequence(tel *Telemetry, ctx context.Context, meta messages.Meta) {
	tel.InFlight("files", 1)
	cctx, op := tel.Start(ctx, &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "get-weather"})
	_ = cctx
	_ = op.Inject(meta)
	op.Queued(QueueConcurrency)
	op.SetRequestID(messages.Int64ID(42))
	op.Written()
	total := 2.0
	op.Progress(1, &total, "half way")
	op.SetProtocolVersion(messages.Version20251125)
	_ = op.Cancelling("timeout", cancelled)
	op.End(errTimedOut, false) // the runtime's error exists anyway
	op.LateResponse()
	tel.InFlight("files", -1)
	tel.Dropped("files", DropLateResponse, 1)

	sctx, sop := tel.StartServer(ctx, &Request{Peer: stdioPeer, Method: messages.MethodPing, ID: messages.Int64ID(0)}, meta)
	_ = sctx
	sop.End(nil, false)
}

// cancelled is the notifications/cancelled params the transport would
// have marshalled already (their cost is the transport's, not ours).
var cancelled = json.RawMessage(`{"requestId":42,"reason":"timeout"}`)

var errTimedOut error = callerr.NewTimeout(&callerr.Error{Server: "files", Method: messages.MethodToolsCall})

// remoteCtx holds a sampled span context, as a caller inside a traced
// request would.
var remoteCtx = trace.ContextWithRemoteSpanContext(context.Background(), remoteParent)

func allocs(tel *Telemetry, ctx context.Context, meta messages.Meta) float64 {
	return testing.AllocsPerRun(200, func() { callSequence(tel, ctx, meta) })
}

// TestZeroCost: with no-op providers a call allocates nothing, exactly as
// with instrumentation switched off.
func TestZeroCost(t *testing.T) {
	meta := messages.Meta{messages.MetaKeyProgressToken: 1}
	disabled := New(Options{Disabled: true})
	var nilTel *Telemetry
	noop := New(Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()})

	for _, tc := range []struct {
		name string
		tel  *Telemetry
	}{{"nil", nilTel}, {"disabled", disabled}, {"noop providers", noop}} {
		for _, ctx := range []context.Context{context.Background(), remoteCtx} {
			if n := allocs(tc.tel, ctx, meta); n != 0 {
				t.Errorf("%s: %v allocations per call, want 0", tc.name, n)
			}
			if n := allocs(tc.tel, ctx, nil); n != 0 {
				t.Errorf("%s, nil meta: %v allocations per call, want 0", tc.name, n)
			}
		}
	}
	if _, op := noop.Start(remoteCtx, &Request{Method: messages.MethodPing}); op != nil {
		t.Error("Start returned an Op with no-op providers")
	}
}

// TestZeroCostPristineGlobals is the library default: the global providers
// as the otel package starts them, in a fresh process.
func TestZeroCostPristineGlobals(t *testing.T) {
	if !harness.InChild(t, childEnv) {
		return
	}
	if !isGlobalDefault(otel.GetTracerProvider()) || !isGlobalDefault(otel.GetMeterProvider()) || !isGlobalDefault(otel.GetTextMapPropagator()) {
		t.Fatal("the child's global providers are not the defaults")
	}
	tel := New(Options{})
	defer tel.Close()
	disabled := New(Options{Disabled: true})
	for _, ctx := range []context.Context{context.Background(), remoteCtx} {
		for _, meta := range []messages.Meta{nil, {messages.MetaKeyProgressToken: 1}} {
			got, off := allocs(tel, ctx, meta), allocs(disabled, ctx, meta)
			if got != 0 || got > off {
				t.Errorf("default providers: %v allocations per call (disabled: %v), want 0", got, off)
			}
		}
	}
}

// TestGlobalLateInstall: a Telemetry made before the application installs
// its providers uses them from then on.
func TestGlobalLateInstall(t *testing.T) {
	if !harness.InChild(t, childEnv) {
		return
	}
	tel := New(Options{})
	defer tel.Close()
	if _, op := tel.Start(context.Background(), &Request{Method: messages.MethodPing}); op != nil {
		t.Fatal("an Op before any provider is installed")
	}
	if !tel.Idle(context.Background()) || !tel.Idle(remoteCtx) {
		t.Error("not Idle before any provider is installed")
	}

	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	mr := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(mr))
	defer tp.Shutdown(context.Background())
	defer mp.Shutdown(context.Background())
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	if tel.Idle(context.Background()) {
		t.Error("Idle once providers are installed")
	}

	_, op := tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "late"})
	meta := op.Inject(nil)
	op.End(nil, false)
	tel.InFlight("files", 1)
	if len(sr.Ended()) != 1 || sr.Ended()[0].Name() != "tools/call late" {
		t.Fatalf("spans = %v", sr.Ended())
	}
	if meta[messages.MetaKeyTraceparent] != traceparent(sr.Ended()[0].SpanContext()) {
		t.Errorf("meta = %v", meta)
	}
	var rm metricdata.ResourceMetrics
	if err := mr.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{MetricClientOperationDuration, MetricInFlight} {
		if _, ok := findMetric(rm, name); !ok {
			t.Errorf("%s not recorded through the global provider", name)
		}
	}

	// Back to no-op providers: nothing is allocated again.
	otel.SetTracerProvider(tracenoop.NewTracerProvider())
	otel.SetMeterProvider(metricnoop.NewMeterProvider())
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator())
	if n := allocs(tel, context.Background(), nil); n != 0 {
		t.Errorf("global no-op providers: %v allocations per call", n)
	}
	if !tel.Idle(context.Background()) {
		t.Error("not Idle with no-op providers installed")
	}
}

// TestPropagationOnly: with a propagator but no tracer (say, trace context
// arriving from an HTTP framework), the caller's context is still passed on.
func TestPropagationOnly(t *testing.T) {
	tel := New(Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider(), Propagator: w3c})
	_, op := tel.Start(remoteCtx, &Request{Method: messages.MethodPing})
	if op == nil {
		t.Fatal("no Op to propagate the caller's context")
	}
	if tel.Idle(remoteCtx) || !tel.Idle(context.Background()) {
		t.Error("Idle: want false with a caller's trace context to propagate, true without")
	}
	if !(*Telemetry)(nil).Idle(remoteCtx) || !New(Options{Disabled: true}).Idle(remoteCtx) {
		t.Error("a nil or disabled Telemetry is not Idle")
	}
	meta := op.Inject(nil)
	op.End(nil, false)
	if meta[messages.MetaKeyTraceparent] != traceparent(remoteParent) {
		t.Errorf("meta = %v, want the caller's trace context", meta)
	}
	if tel.OpenOps() != 0 {
		t.Errorf("OpenOps = %d", tel.OpenOps())
	}
	// A server request's trace context reaches the handler's context.
	ctx, sop := tel.StartServer(context.Background(), &Request{Method: messages.MethodPing},
		messages.Meta{messages.MetaKeyTraceparent: traceparent(remoteParent)})
	if sop != nil {
		t.Error("a server Op with nothing to record")
	}
	if sc := trace.SpanContextFromContext(ctx); sc.SpanID() != remoteParent.SpanID() {
		t.Errorf("handler context = %v", sc)
	}
	// Without a caller context there is nothing to do.
	if _, op := tel.Start(context.Background(), &Request{Method: messages.MethodPing}); op != nil {
		t.Error("an Op with nothing to propagate")
	}
}

func BenchmarkCallDefaultProviders(b *testing.B) {
	tel := New(Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()})
	b.ReportAllocs()
	for b.Loop() {
		callSequence(tel, context.Background(), nil)
	}
}

func BenchmarkCallRecording(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sdktrace.NewSimpleSpanProcessor(tracetest.NewNoopExporter())))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer tp.Shutdown(context.Background())
	defer mp.Shutdown(context.Background())
	tel := New(Options{TracerProvider: tp, MeterProvider: mp, Propagator: w3c})
	b.ReportAllocs()
	for b.Loop() {
		callSequence(tel, context.Background(), nil)
	}
}
