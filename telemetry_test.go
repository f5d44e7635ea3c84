package mcpactor_test

// Telemetry (telemetry/): the spans of a client, closed transports,
// trace context reaching the server, zero cost when nobody listens, opt-in
// tool arguments, and the HTTP protocol version.

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// traced is a runtime whose telemetry records into memory.
type traced struct {
	spans   *tracetest.SpanRecorder
	tp      *sdktrace.TracerProvider
	metrics *sdkmetric.ManualReader
	rt      *mcpactor.Runtime
}

func newTraced(t *testing.T, opts mcpactor.Options) *traced {
	t.Helper()
	return newTracedOpts(t, opts, nil)
}

// newTracedWith is newTraced with default Options and tune applied to the
// telemetry options.
func newTracedWith(t *testing.T, tune func(*telemetry.Options)) *traced {
	t.Helper()
	return newTracedOpts(t, mcpactor.Options{}, tune)
}

func newTracedOpts(t *testing.T, opts mcpactor.Options, tune func(*telemetry.Options)) *traced {
	t.Helper()
	tr := &traced{spans: tracetest.NewSpanRecorder(), metrics: sdkmetric.NewManualReader()}
	tr.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tr.spans))
	opts.Telemetry = telemetry.Options{
		TracerProvider: tr.tp,
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(tr.metrics)),
		Propagator:     propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
	}
	if tune != nil {
		tune(&opts.Telemetry)
	}
	tr.rt = startRuntime(t, opts)
	return tr
}

// span returns the one ended span named name, failing if there is not
// exactly one.
func (tr *traced) span(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range tr.spans.Ended() {
		if s.Name() == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one ended span %q, got %d (ended: %s)", name, len(found), tr.names())
	}
	return found[0]
}

func (tr *traced) names() string {
	var names []string
	for _, s := range tr.spans.Ended() {
		names = append(names, s.Name())
	}
	return strings.Join(names, ", ")
}

// allEnded fails unless every span started has ended exactly once.
func (tr *traced) allEnded(t *testing.T) {
	t.Helper()
	started, ended := tr.spans.Started(), tr.spans.Ended()
	if len(started) != len(ended) {
		t.Errorf("%d spans started, %d ended", len(started), len(ended))
	}
	seen := map[trace.SpanID]bool{}
	for _, s := range ended {
		if seen[s.SpanContext().SpanID()] {
			t.Errorf("span %q ended twice", s.Name())
		}
		seen[s.SpanContext().SpanID()] = true
	}
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]string {
	m := map[attribute.Key]string{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value.String()
	}
	return m
}

func wantAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[string]string) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		if got[attribute.Key(k)] != v {
			t.Errorf("span %q: %s = %q, want %q (all: %v)", s.Name(), k, got[attribute.Key(k)], v, got)
		}
	}
}

func TestTelemetryClientSpans(t *testing.T) {
	var sampled sync.WaitGroup
	sampled.Add(1)
	tr := newTraced(t, mcpactor.Options{Handlers: mcpactor.Handlers{
		Sampling: func(ctx context.Context, server string, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			defer sampled.Done()
			return &messages.CreateMessageResult{Role: messages.RoleAssistant, Content: messages.TextContent("hi"), Model: "test"}, nil
		},
	}})
	ctx := waitCtx(t)
	c, err := tr.rt.Connect(ctx, "ts", mcptest.Stdio("everyday"))
	if err != nil {
		t.Fatal(err)
	}
	caller, parent := tr.tp.Tracer("test").Start(ctx, "caller")

	callOK(t, c, "echo", map[string]any{"message": "hi"})
	if _, err := c.CallTool(caller, "echo", map[string]any{"message": "parented"}); err != nil {
		t.Fatal(err)
	}
	parent.End()
	if _, err := c.CallTool(ctx, "rpc-error", map[string]any{"code": -32099, "message": "nope"}); err == nil {
		t.Fatal("rpc-error: want an error")
	}
	if res, err := c.CallTool(ctx, "fail", map[string]any{"message": "tool broke"}); err != nil || !res.IsError {
		t.Fatalf("fail: %v %+v", err, res)
	}
	if _, err := c.CallToolWith(ctx, "sleep", map[string]any{"ms": 5000}, mcpactor.CallOptions{Timeout: 100 * time.Millisecond}); !errors.Is(err, mcpactor.ErrTimeout) {
		t.Fatalf("sleep: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := c.CallTool(cctx, "sleep", map[string]any{"ms": 5000}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled sleep: %v", err)
	}
	remote := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	res, err := c.CallTool(ctx, "ask-client", map[string]any{"method": "sampling/createMessage", "params": map[string]any{
		"_meta":    map[string]any{"traceparent": remote},
		"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "q"}}}, "maxTokens": 5,
	}})
	if err != nil || res.IsError {
		t.Fatalf("ask-client sampling: %v %+v", err, res)
	}
	sampled.Wait()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	tr.rt.Stop(ctx)

	var calls []sdktrace.ReadOnlySpan
	for _, s := range tr.spans.Ended() {
		if s.Name() == "tools/call echo" {
			calls = append(calls, s)
		}
	}
	if len(calls) != 2 {
		t.Fatalf("want 2 echo spans, got %d (%s)", len(calls), tr.names())
	}
	for _, s := range calls {
		if s.SpanKind() != trace.SpanKindClient || s.Status().Code == codes.Error {
			t.Errorf("echo span: kind %v status %v", s.SpanKind(), s.Status())
		}
		wantAttrs(t, s, map[string]string{
			"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
			"mcp.protocol.version": "2025-11-25", "network.transport": "pipe", "mcpactor.server.name": "ts",
		})
		if attrs(s)["jsonrpc.request.id"] == "" {
			t.Errorf("echo span without jsonrpc.request.id")
		}
		if !harness.HasEvent(s, "mcpactor.written") {
			t.Errorf("echo span without a written event: %v", s.Events())
		}
	}
	if calls[1].Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("second echo span is not a child of the caller's span")
	}

	rpc := tr.span(t, "tools/call rpc-error")
	wantAttrs(t, rpc, map[string]string{"error.type": "-32099", "rpc.response.status_code": "-32099"})
	if rpc.Status().Code != codes.Error || !strings.Contains(rpc.Status().Description, "nope") {
		t.Errorf("rpc-error status = %v", rpc.Status())
	}
	wantAttrs(t, tr.span(t, "tools/call fail"), map[string]string{"error.type": "tool_error"})

	var sleeps []sdktrace.ReadOnlySpan
	for _, s := range tr.spans.Ended() {
		if s.Name() == "tools/call sleep" {
			sleeps = append(sleeps, s)
		}
	}
	if len(sleeps) != 2 {
		t.Fatalf("want 2 sleep spans, got %d", len(sleeps))
	}
	wantAttrs(t, sleeps[0], map[string]string{"error.type": "timeout"})
	wantAttrs(t, sleeps[1], map[string]string{"error.type": "cancelled"})
	for _, s := range sleeps {
		if !harness.HasEvent(s, "mcpactor.cancel_sent") {
			t.Errorf("%s (%s) has no cancel_sent event", s.Name(), attrs(s)["error.type"])
		}
	}

	server := tr.span(t, "sampling/createMessage")
	if server.SpanKind() != trace.SpanKindServer {
		t.Errorf("sampling span kind = %v", server.SpanKind())
	}
	if got := server.Parent().TraceID().String(); got != "0af7651916cd43dd8448eb211c80319c" || !server.Parent().IsRemote() {
		t.Errorf("sampling span parent = %v, want the server's remote trace context", server.Parent())
	}
	tr.span(t, "initialize")
	tr.allEnded(t)

	// Metrics: every operation recorded with the convention's buckets.
	var rm metricdata.ResourceMetrics
	if err := tr.metrics.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			found[m.Name] = true
			if m.Name == "mcp.client.operation.duration" {
				h := m.Data.(metricdata.Histogram[float64])
				if b := h.DataPoints[0].Bounds; len(b) != 14 || b[0] != 0.01 || b[13] != 300 {
					t.Errorf("operation duration buckets = %v", b)
				}
			}
		}
	}
	for _, name := range []string{"mcp.client.operation.duration", "mcp.server.operation.duration", "mcp.client.session.duration"} {
		if !found[name] {
			t.Errorf("metric %s not recorded", name)
		}
	}
}

// A crash with calls in flight ends every span with transport_closed.
func TestTelemetryTransportClosed(t *testing.T) {
	tr := newTraced(t, mcpactor.Options{})
	ctx := waitCtx(t)
	c, err := tr.rt.Connect(ctx, "crashy", mcptest.Stdio("everyday"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 3)
	for range 3 {
		go func() {
			_, err := c.CallTool(ctx, "sleep", map[string]any{"ms": 10000})
			done <- err
		}()
	}
	harness.WaitFor(t, "3 calls in flight", func() bool { return c.InFlight() == 3 })
	if _, err := c.CallTool(ctx, "crash", map[string]any{"code": 2}); !errors.Is(err, mcpactor.ErrTransportClosed) {
		t.Fatalf("crash: %v", err)
	}
	for range 3 {
		if err := <-done; !errors.Is(err, mcpactor.ErrTransportClosed) {
			t.Errorf("in-flight sleep: %v", err)
		}
	}
	c.Close(ctx)
	tr.rt.Stop(ctx)
	n := 0
	for _, s := range tr.spans.Ended() {
		if strings.HasPrefix(s.Name(), "tools/call") {
			wantAttrs(t, s, map[string]string{"error.type": "transport_closed"})
			n++
		}
	}
	if n != 4 {
		t.Errorf("want 4 tools/call spans, got %d", n)
	}
	tr.allEnded(t)
}

// The trace context of the client span arrives in params._meta.
func TestTelemetryTraceContextReachesServer(t *testing.T) {
	tr := newTraced(t, mcpactor.Options{})
	ctx := waitCtx(t)
	c, err := tr.rt.Connect(ctx, "ts", mcptest.Stdio("everyday"))
	if err != nil {
		t.Fatal(err)
	}
	res := callOK(t, c, "trace-meta", nil)
	c.Close(ctx)
	tr.rt.Stop(ctx)
	span := tr.span(t, "tools/call trace-meta")
	want := "00-" + span.SpanContext().TraceID().String() + "-" + span.SpanContext().SpanID().String() + "-01"
	if !strings.Contains(resultText(res), `"traceparent":"`+want+`"`) {
		t.Errorf("server saw _meta %s, want traceparent %s", resultText(res), want)
	}
}

// With the default (no-op) global providers, telemetry costs nothing: a
// call allocates no more than with telemetry switched off.
func TestTelemetryZeroCostWhenNobodyListens(t *testing.T) {
	measure := func(opts mcpactor.Options) float64 {
		rt := startRuntime(t, opts)
		ctx := waitCtx(t)
		c, err := rt.Connect(ctx, "ts", mcptest.Stdio("everyday"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		args := map[string]any{"message": "x"}
		best := -1.0
		for range 3 { // the least of three: background allocations only add
			n := testing.AllocsPerRun(300, func() {
				if _, err := c.CallTool(ctx, "echo", args); err != nil {
					t.Fatal(err)
				}
			})
			if best < 0 || n < best {
				best = n
			}
		}
		return best
	}
	off := measure(mcpactor.Options{Telemetry: telemetry.Options{Disabled: true}})
	noop := measure(mcpactor.Options{})
	t.Logf("allocations per CallTool: telemetry off %.0f, no-op providers %.0f", off, noop)
	// AllocsPerRun counts the whole process's allocations, the transport
	// actor's and reader's included, and how calls batch into reads and
	// writes varies from run to run: one allocation per call either way
	// is that noise, not telemetry.
	if noop > off+1 {
		t.Errorf("no-op telemetry allocates %.0f per call, more than %.0f with telemetry off", noop, off)
	}
}

// Tool arguments and results are recorded only when asked for (they may be
// sensitive: docs/telemetry.md, "Span attributes", where both are
// opt-in).
func TestTelemetryToolArgumentsOptIn(t *testing.T) {
	for _, record := range []bool{false, true} {
		tr := newTracedWith(t, func(o *telemetry.Options) { o.RecordToolArguments = record })
		ctx := waitCtx(t)
		c, err := tr.rt.Connect(ctx, "ts", mcptest.Stdio("everyday"))
		if err != nil {
			t.Fatal(err)
		}
		callOK(t, c, "echo", map[string]any{"message": "secret"})
		c.Close(ctx)
		got := attrs(tr.span(t, "tools/call echo"))
		args, result := got["gen_ai.tool.call.arguments"], got["gen_ai.tool.call.result"]
		if record && (!strings.Contains(args, "secret") || !strings.Contains(result, "secret")) {
			t.Errorf("opted in: arguments %q, result %q", args, result)
		}
		if !record && (args != "" || result != "") {
			t.Errorf("not opted in, yet recorded arguments %q, result %q", args, result)
		}
	}
}

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
