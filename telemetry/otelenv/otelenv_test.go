package otelenv

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/goleak"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var stdioPeer = telemetry.Peer{Server: "files", ProtocolVersion: messages.Version20250618, NetworkTransport: telemetry.TransportPipe}

// clearEnv blanks every variable New or the exporters read.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OTEL_") {
			t.Setenv(k, "")
		}
	}
	for _, k := range []string{envSDKDisabled, envTracesExporter, envMetricsExporter, envPropagators,
		envOTLPEndpoint, envOTLPTracesEndpoint, envOTLPMetricsEndpoint, envOTLPProtocol,
		envOTLPTracesProtocol, envOTLPMetricsProtocol, envOTLPInsecure, envOTLPTracesInsecure, envOTLPMetricsInsecure} {
		t.Setenv(k, "")
	}
}

// spanLine is the part of a stdouttrace JSON line the tests read.
type spanLine struct {
	Name        string
	SpanKind    int
	SpanContext struct{ TraceID, SpanID string }
	Attributes  []struct {
		Key   string
		Value struct{ Type, Value any }
	}
}

func readSpanLines(t *testing.T, path string) []spanLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []spanLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s spanLine
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("line %q is not one JSON object: %v", sc.Text(), err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTraceFileJSONLines(t *testing.T) {
	clearEnv(t)
	t.Setenv(envTracesExporter, "none") // the file still gets spans
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	p, err := New(context.Background(), Options{TraceFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if p.TracerProvider == nil || p.MeterProvider != nil {
		t.Fatalf("providers = %+v, want a tracer provider only", p)
	}
	if got := p.Describe(); got != "traces: file "+path+" (JSON lines)" {
		t.Errorf("Describe = %q", got)
	}
	tel := telemetry.New(telemetry.Options{TracerProvider: p.TracerProvider, Propagator: p.Propagator})
	for _, target := range []string{"get-weather", "get-time"} {
		_, op := tel.Start(context.Background(), &telemetry.Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: target})
		op.End(nil, false)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Errorf("second Shutdown: %v", err)
	}
	lines := readSpanLines(t, path)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want one per span (2)", len(lines))
	}
	if lines[0].Name != "tools/call get-weather" || lines[1].Name != "tools/call get-time" {
		t.Errorf("names = %q, %q", lines[0].Name, lines[1].Name)
	}
	if lines[0].SpanKind != 3 { // trace.SpanKindClient
		t.Errorf("kind = %d, want 3 (client)", lines[0].SpanKind)
	}
	found := false
	for _, a := range lines[0].Attributes {
		if a.Key == "mcp.method.name" && a.Value.Value == "tools/call" {
			found = true
		}
	}
	if !found {
		t.Errorf("mcp.method.name missing from %+v", lines[0].Attributes)
	}
}

func TestProvidersNone(t *testing.T) {
	clearEnv(t)
	t.Setenv(envTracesExporter, "none")
	t.Setenv(envMetricsExporter, "none")
	t.Setenv(envOTLPEndpoint, "http://127.0.0.1:4318") // "none" wins
	p, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.TracerProvider != nil || p.MeterProvider != nil || p.Describe() != "none" {
		t.Errorf("providers = %+v, want none", p)
	}
	if p.Propagator == nil || len(p.Propagator.Fields()) != 3 {
		t.Errorf("propagator fields = %v, want traceparent, tracestate, baggage", p.Propagator.Fields())
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}

	// Nothing set at all: no exporter either (no collector is assumed).
	clearEnv(t)
	if p, err = New(context.Background(), Options{}); err != nil || p.TracerProvider != nil || p.MeterProvider != nil {
		t.Errorf("unset env: providers = %+v, %v", p, err)
	}
	// OTEL_SDK_DISABLED turns the environment's exporters off.
	t.Setenv(envTracesExporter, "console")
	t.Setenv(envSDKDisabled, "true")
	if p, err = New(context.Background(), Options{}); err != nil || p.TracerProvider != nil {
		t.Errorf("OTEL_SDK_DISABLED: providers = %+v, %v", p, err)
	}
}

func TestProvidersBadEnv(t *testing.T) {
	for _, tc := range []struct{ key, value string }{
		{envTracesExporter, "zipkin"},
		{envMetricsExporter, "prometheus"},
		{envPropagators, "b3"},
	} {
		clearEnv(t)
		t.Setenv(tc.key, tc.value)
		if _, err := New(context.Background(), Options{}); err == nil || !strings.Contains(err.Error(), tc.value) {
			t.Errorf("%s=%s: err = %v", tc.key, tc.value, err)
		}
	}
	clearEnv(t)
	t.Setenv(envTracesExporter, "otlp")
	t.Setenv(envOTLPProtocol, "http/json")
	if _, err := New(context.Background(), Options{}); err == nil {
		t.Error("http/json accepted")
	}
	clearEnv(t)
	if _, err := New(context.Background(), Options{TraceFile: filepath.Join(t.TempDir(), "no", "such", "dir", "t.jsonl")}); err == nil {
		t.Error("unwritable trace file accepted")
	}
}

func TestConsoleExporters(t *testing.T) {
	clearEnv(t)
	var buf harness.Log
	old := consoleWriter
	consoleWriter = &buf
	defer func() { consoleWriter = old }()
	t.Setenv(envTracesExporter, "console")
	t.Setenv(envMetricsExporter, "console")
	t.Setenv(envPropagators, "tracecontext")
	p, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Describe(); got != "traces: console (stderr); metrics: console (stderr)" {
		t.Errorf("Describe = %q", got)
	}
	tel := telemetry.New(telemetry.Options{TracerProvider: p.TracerProvider, MeterProvider: p.MeterProvider, Propagator: p.Propagator})
	_, op := tel.Start(context.Background(), &telemetry.Request{Peer: stdioPeer, Method: messages.MethodPing})
	if meta := op.Inject(nil); len(meta) != 1 {
		t.Errorf("meta = %v, want traceparent only", meta)
	}
	op.End(nil, false)
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, `"Name":"ping"`) || !strings.Contains(out, telemetry.MetricClientOperationDuration) {
		t.Errorf("console output lacks the span or the metric:\n%s", out)
	}
}

// collector is a stand-in OTLP/HTTP collector that counts requests by path.
type collector struct {
	srv   *httptest.Server
	mu    sync.Mutex
	paths map[string]int
}

func newCollector(t *testing.T) *collector {
	c := &collector{paths: map[string]int{}}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.paths[r.URL.Path]++
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *collector) got() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paths
}

// exportOne sends one span and one metric point through p and shuts it
// down (flushing both).
func exportOne(t *testing.T, p *Providers) {
	t.Helper()
	tel := telemetry.New(telemetry.Options{TracerProvider: p.TracerProvider, MeterProvider: p.MeterProvider})
	_, op := tel.Start(context.Background(), &telemetry.Request{Peer: stdioPeer, Method: messages.MethodToolsList})
	op.End(nil, false)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	_ = tel.Close()
}

// wantOTLPHTTP checks that p describes both signals as sent over OTLP
// http/protobuf (plain HTTP) to c, the endpoint taken from source, and
// that a span and a metric point exported through p reach c.
func wantOTLPHTTP(t *testing.T, p *Providers, c *collector, source string) {
	t.Helper()
	want := "traces: otlp http/protobuf to " + c.srv.URL + "/v1/traces (" + source + "); " +
		"metrics: otlp http/protobuf to " + c.srv.URL + "/v1/metrics (" + source + ")"
	if got := p.Describe(); got != want {
		t.Errorf("Describe = %q\nwant %q", got, want)
	}
	exportOne(t, p)
	c.srv.CloseClientConnections()
	if paths := c.got(); paths["/v1/traces"] == 0 || paths["/v1/metrics"] == 0 {
		t.Errorf("collector requests = %v, want /v1/traces and /v1/metrics over plain HTTP", paths)
	}
}

// TestOTLPHTTP: OTEL_EXPORTER_OTLP_ENDPOINT alone sends both signals to a
// collector (here a local stand-in).
func TestOTLPHTTP(t *testing.T) {
	clearEnv(t)
	c := newCollector(t)
	t.Setenv(envOTLPEndpoint, c.srv.URL)
	p, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.TracerProvider == nil || p.MeterProvider == nil {
		t.Fatalf("providers = %+v, want both", p)
	}
	wantOTLPHTTP(t, p, c, "OTEL_EXPORTER_OTLP_ENDPOINT")
}

// TestOTLPHTTPDefaultEndpoint: OTEL_TRACES_EXPORTER=otlp with no endpoint
// reaches a local Collector over plain HTTP (the exporter's own default,
// https, would not). The default address is redirected to a test listener.
func TestOTLPHTTPDefaultEndpoint(t *testing.T) {
	if defaultHTTPEndpoint != "localhost:4318" || defaultGRPCEndpoint != "localhost:4317" {
		t.Fatalf("defaults = %s, %s", defaultHTTPEndpoint, defaultGRPCEndpoint)
	}
	clearEnv(t)
	c := newCollector(t)
	old := defaultHTTPEndpoint
	defaultHTTPEndpoint = strings.TrimPrefix(c.srv.URL, "http://")
	defer func() { defaultHTTPEndpoint = old }()
	t.Setenv(envTracesExporter, "otlp")
	t.Setenv(envMetricsExporter, "otlp")
	p, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantOTLPHTTP(t, p, c, "default endpoint")
}

// TestOTLPGRPCDefaultEndpoint: with protocol grpc and no endpoint, the
// exporter connects to the default address without TLS: the first bytes
// on the wire are the HTTP/2 preface of cleartext gRPC, not a TLS hello.
func TestOTLPGRPCDefaultEndpoint(t *testing.T) {
	clearEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	first := make(chan []byte, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			first <- nil
			return
		}
		defer conn.Close()
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		b := make([]byte, 24)
		n, _ := io.ReadFull(conn, b)
		first <- b[:n]
	}()
	// Our listener speaks no gRPC: the failing export is bounded
	// (grpcTraces), so Shutdown ends it and leaves no goroutine behind.
	p := grpcTraces(t, ln.Addr().String())
	if want := "traces: otlp grpc to " + ln.Addr().String() + " without TLS (default endpoint)"; p.Describe() != want {
		t.Errorf("Describe = %q, want %q", p.Describe(), want)
	}
	tel := telemetry.New(telemetry.Options{TracerProvider: p.TracerProvider})
	_, op := tel.Start(context.Background(), &telemetry.Request{Peer: stdioPeer, Method: messages.MethodPing})
	op.End(nil, false)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = p.Shutdown(ctx) // the export fails
	select {
	case b := <-first:
		if !bytes.HasPrefix(b, []byte("PRI * HTTP/2.0")) {
			t.Errorf("first bytes = %q, want the cleartext HTTP/2 preface", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the exporter never connected to the default endpoint")
	}
}

func TestOTLPGRPCBuilds(t *testing.T) {
	clearEnv(t)
	t.Setenv(envTracesExporter, "otlp")
	t.Setenv(envMetricsExporter, "none")
	t.Setenv(envOTLPProtocol, "grpc")
	t.Setenv(envOTLPEndpoint, "http://127.0.0.1:1") // nothing listens; nothing is sent
	p, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.TracerProvider == nil || p.MeterProvider != nil {
		t.Fatalf("providers = %+v", p)
	}
	if want := "traces: otlp grpc to http://127.0.0.1:1 (OTEL_EXPORTER_OTLP_ENDPOINT)"; p.Describe() != want {
		t.Errorf("Describe = %q, want %q", p.Describe(), want)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
	// The metric side builds its gRPC exporter the same way.
	t.Setenv(envOTLPMetricsProtocol, "grpc")
	exp, _, err := metrics.exporter(context.Background(), "otlp")
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
}

// TestErrorAfterExporterBuilt: an error found after an exporter was made
// stops that exporter (goleak checks its goroutines are gone).
func TestErrorAfterExporterBuilt(t *testing.T) {
	clearEnv(t)
	t.Setenv(envTracesExporter, "otlp")
	t.Setenv(envOTLPProtocol, "grpc")
	t.Setenv(envOTLPEndpoint, "http://127.0.0.1:1")
	t.Setenv(envMetricsExporter, "prometheus")
	if _, err := New(context.Background(), Options{TraceFile: filepath.Join(t.TempDir(), "t.jsonl")}); err == nil {
		t.Fatal("no error")
	}
}

// TestSetupInstallsGlobals runs in its own process: it installs the global
// providers and error handler.
func TestSetupInstallsGlobals(t *testing.T) {
	if !harness.InChild(t, childEnv) {
		return
	}
	clearEnv(t)
	t.Setenv(envTracesExporter, "none")
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	tel := telemetry.New(telemetry.Options{}) // before setup, as a library would be
	var handled []error
	p, err := Setup(context.Background(), Options{TraceFile: path, OnError: func(err error) { handled = append(handled, err) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := otel.GetTracerProvider().(*sdktrace.TracerProvider); !ok {
		t.Fatalf("global tracer provider = %T, want the SDK's", otel.GetTracerProvider())
	}
	if _, ok := otel.GetMeterProvider().(*sdkmetric.MeterProvider); ok {
		t.Error("a meter provider installed without a metric exporter")
	}
	if len(otel.GetTextMapPropagator().Fields()) == 0 {
		t.Error("no global propagator installed")
	}
	otel.Handle(errors.New("export failed"))
	if len(handled) != 1 || handled[0].Error() != "export failed" {
		t.Errorf("error handler got %v", handled)
	}
	_, op := tel.Start(context.Background(), &telemetry.Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "demo"})
	meta := op.Inject(nil)
	op.End(nil, false)
	if _, ok := meta[messages.MetaKeyTraceparent]; !ok {
		t.Errorf("meta = %v", meta)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := readSpanLines(t, path)
	if len(lines) != 1 || lines[0].Name != "tools/call demo" {
		t.Fatalf("lines = %+v", lines)
	}
}

func TestSetupError(t *testing.T) {
	clearEnv(t)
	t.Setenv(envTracesExporter, "jaeger")
	p, err := Setup(context.Background(), Options{})
	if err == nil {
		t.Fatal("no error")
	}
	if p != nil || p.Shutdown(context.Background()) != nil || p.Describe() != "none" {
		t.Error("a failed Setup must return a nil *Providers whose methods are no-ops")
	}
}

const childEnv = "MCPACTOR_OTELENV_TEST_CHILD"

// TestShutdownNamesWhatWasUnreachable checks that a flush to a gRPC
// endpoint nobody listens on ends with the shutdown's context, within a
// generous bound of it, and says in one line which exporter could not be
// reached, not only "context deadline exceeded".
func TestShutdownNamesWhatWasUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens there now
	// The exporter's own retries outlive a Shutdown that ran out of time
	// (the SDK does not stop them): grpcTraces bounds them, for goleak.
	p := grpcTraces(t, addr)
	tel := telemetry.New(telemetry.Options{TracerProvider: p.TracerProvider})
	_, op := tel.Start(context.Background(), &telemetry.Request{Peer: stdioPeer, Method: messages.MethodPing})
	op.End(nil, false)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = p.Shutdown(ctx)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Shutdown took %v with a 500ms context", took)
	}
	if err == nil || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "nothing answered") ||
		!errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Shutdown: %v, want one line naming %s as unreachable", err, addr)
	}
	// The SDK leaves the export's retries running past a Shutdown that ran
	// out of time, until OTEL_EXPORTER_OTLP_TIMEOUT: wait for them here,
	// so that goleak judges the package, not this test's leftovers.
	deadline := time.Now().Add(10 * time.Second)
	for goleak.Find() != nil && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
}

// grpcTraces builds providers that export traces over OTLP gRPC to addr
// (as the default endpoint), each export, retries included, bounded by 1 s.
func grpcTraces(t *testing.T, addr string) *Providers {
	t.Helper()
	old := defaultGRPCEndpoint
	defaultGRPCEndpoint = addr
	t.Cleanup(func() { defaultGRPCEndpoint = old })
	t.Setenv(envTracesExporter, "otlp")
	t.Setenv(envOTLPProtocol, "grpc")
	t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1000")
	p, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
