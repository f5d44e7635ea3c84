package telemetry

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/mcpactor/mcpactor/messages"
)

// clearEnv blanks every variable SetupFromEnv or the exporters read.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OTEL_") {
			t.Setenv(k, "")
		}
	}
	for _, k := range []string{envSDKDisabled, envTracesExporter, envMetricsExporter, envPropagators,
		envOTLPEndpoint, envOTLPTracesEndpoint, envOTLPMetricsEndpoint, envOTLPProtocol} {
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
	p, err := NewProvidersFromEnv(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if p.TracerProvider == nil || p.MeterProvider != nil {
		t.Fatalf("providers = %+v, want a tracer provider only", p)
	}
	tel := New(Options{TracerProvider: p.TracerProvider, Propagator: p.Propagator})
	for _, target := range []string{"get-weather", "get-time"} {
		_, op := tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: target})
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
	p, err := NewProvidersFromEnv(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if p.TracerProvider != nil || p.MeterProvider != nil {
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
	if p, err = NewProvidersFromEnv(context.Background(), ""); err != nil || p.TracerProvider != nil || p.MeterProvider != nil {
		t.Errorf("unset env: providers = %+v, %v", p, err)
	}
	// OTEL_SDK_DISABLED turns the environment's exporters off.
	t.Setenv(envTracesExporter, "console")
	t.Setenv(envSDKDisabled, "true")
	if p, err = NewProvidersFromEnv(context.Background(), ""); err != nil || p.TracerProvider != nil {
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
		if _, err := NewProvidersFromEnv(context.Background(), ""); err == nil || !strings.Contains(err.Error(), tc.value) {
			t.Errorf("%s=%s: err = %v", tc.key, tc.value, err)
		}
	}
	clearEnv(t)
	t.Setenv(envTracesExporter, "otlp")
	t.Setenv(envOTLPProtocol, "http/json")
	if _, err := NewProvidersFromEnv(context.Background(), ""); err == nil {
		t.Error("http/json accepted")
	}
	clearEnv(t)
	if _, err := NewProvidersFromEnv(context.Background(), filepath.Join(t.TempDir(), "no", "such", "dir", "t.jsonl")); err == nil {
		t.Error("unwritable trace file accepted")
	}
}

func TestConsoleExporters(t *testing.T) {
	clearEnv(t)
	var buf lockedBuffer
	old := consoleWriter
	consoleWriter = &buf
	defer func() { consoleWriter = old }()
	t.Setenv(envTracesExporter, "console")
	t.Setenv(envMetricsExporter, "console")
	t.Setenv(envPropagators, "tracecontext")
	p, err := NewProvidersFromEnv(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	tel := New(Options{TracerProvider: p.TracerProvider, MeterProvider: p.MeterProvider, Propagator: p.Propagator})
	_, op := tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodPing})
	if meta := op.Inject(nil); len(meta) != 1 {
		t.Errorf("meta = %v, want traceparent only", meta)
	}
	op.End(nil, false)
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, `"Name":"ping"`) || !strings.Contains(out, MetricClientOperationDuration) {
		t.Errorf("console output lacks the span or the metric:\n%s", out)
	}
}

// lockedBuffer is a bytes.Buffer for concurrent writers, as os.Stderr is.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestOTLPHTTP: OTEL_EXPORTER_OTLP_ENDPOINT alone sends both signals to a
// collector (here a local stand-in).
func TestOTLPHTTP(t *testing.T) {
	clearEnv(t)
	var mu sync.Mutex
	paths := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	t.Setenv(envOTLPEndpoint, srv.URL)
	p, err := NewProvidersFromEnv(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if p.TracerProvider == nil || p.MeterProvider == nil {
		t.Fatalf("providers = %+v, want both", p)
	}
	tel := New(Options{TracerProvider: p.TracerProvider, MeterProvider: p.MeterProvider})
	_, op := tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsList})
	op.End(nil, false)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	srv.CloseClientConnections()
	mu.Lock()
	defer mu.Unlock()
	if paths["/v1/traces"] == 0 || paths["/v1/metrics"] == 0 {
		t.Errorf("collector requests = %v, want /v1/traces and /v1/metrics", paths)
	}
}

func TestOTLPGRPCBuilds(t *testing.T) {
	clearEnv(t)
	t.Setenv(envTracesExporter, "otlp")
	t.Setenv(envMetricsExporter, "none")
	t.Setenv(envOTLPProtocol, "grpc")
	t.Setenv(envOTLPEndpoint, "http://127.0.0.1:1") // nothing listens; nothing is sent
	p, err := NewProvidersFromEnv(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if p.TracerProvider == nil || p.MeterProvider != nil {
		t.Fatalf("providers = %+v", p)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
	// The metric side builds its gRPC exporter the same way.
	t.Setenv(envOTLPMetricsProtocol, "grpc")
	exp, err := metricExporter(context.Background(), "otlp")
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
	if _, err := NewProvidersFromEnv(context.Background(), filepath.Join(t.TempDir(), "t.jsonl")); err == nil {
		t.Fatal("no error")
	}
}

// TestSetupFromEnvInstallsGlobals runs in its own process: it installs the
// global providers.
func TestSetupFromEnvInstallsGlobals(t *testing.T) {
	if !inChild(t) {
		return
	}
	clearEnv(t)
	t.Setenv(envTracesExporter, "none")
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	tel := New(Options{}) // before setup, as a library would be
	shutdown, err := SetupFromEnv(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if isNoopTracerProvider(otel.GetTracerProvider()) {
		t.Fatal("no global tracer provider installed")
	}
	if !isGlobalDefault(otel.GetMeterProvider()) {
		t.Error("a meter provider installed without a metric exporter")
	}
	if isGlobalDefault(otel.GetTextMapPropagator()) {
		t.Error("no global propagator installed")
	}
	_, op := tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "demo"})
	meta := op.Inject(nil)
	op.End(nil, false)
	if _, ok := meta[messages.MetaKeyTraceparent]; !ok {
		t.Errorf("meta = %v", meta)
	}
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := readSpanLines(t, path)
	if len(lines) != 1 || lines[0].Name != "tools/call demo" {
		t.Fatalf("lines = %+v", lines)
	}
}

func TestSetupFromEnvError(t *testing.T) {
	clearEnv(t)
	t.Setenv(envTracesExporter, "jaeger")
	shutdown, err := SetupFromEnv(context.Background(), "")
	if err == nil {
		t.Fatal("no error")
	}
	if shutdown == nil || shutdown(context.Background()) != nil {
		t.Error("shutdown must be a usable no-op on error")
	}
}
