package actors_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/telemetry"
)

// tracedEnv is an Env whose telemetry records into memory: a span
// recorder and a manual metric reader.
type tracedEnv struct {
	env     actors.Env
	spans   *tracetest.SpanRecorder
	metrics *sdkmetric.ManualReader
}

func newTracedEnv(t *testing.T) *tracedEnv {
	t.Helper()
	te := &tracedEnv{spans: tracetest.NewSpanRecorder(), metrics: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(te.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(te.metrics))
	tel := telemetry.New(telemetry.Options{TracerProvider: tp, MeterProvider: mp,
		Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})})
	te.env = actors.Env{Instruments: tel}
	t.Cleanup(func() {
		_ = tel.Close()
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	return te
}

// named returns the ended spans called name.
func (te *tracedEnv) named(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range te.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// one returns the one ended span called name, failing otherwise.
func (te *tracedEnv) one(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	found := te.named(name)
	if len(found) != 1 {
		var all []string
		for _, s := range te.spans.Ended() {
			all = append(all, s.Name())
		}
		t.Fatalf("want one ended span %q, got %d (ended: %s)", name, len(found), strings.Join(all, ", "))
	}
	return found[0]
}

// points returns the data points of the client duration histogram whose
// mcp.method.name is method.
func (te *tracedEnv) points(t *testing.T, method string) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	return te.histogram(t, telemetry.MetricClientOperationDuration, method)
}

// histogram returns the data points of the duration histogram name whose
// mcp.method.name is method.
func (te *tracedEnv) histogram(t *testing.T, name, method string) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := te.metrics.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var out []metricdata.HistogramDataPoint[float64]
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				if v, ok := dp.Attributes.Value(telemetry.KeyMCPMethodName); ok && v.AsString() == method {
					out = append(out, dp)
				}
			}
		}
	}
	return out
}

// attr returns the value of key among kv, "" when absent.
func attr(kv []attribute.KeyValue, key attribute.Key) string {
	for _, a := range kv {
		if a.Key == key {
			return a.Value.String()
		}
	}
	return ""
}

// httpServer serves the test server with opts over Streamable HTTP on a
// loopback port until the test ends, and returns its configuration.
func httpServer(t *testing.T, opts testserver.Options) actors.Spec {
	t.Helper()
	h := testserver.NewHTTPHandler(opts, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.CloseClientConnections()
		ts.Close()
	})
	var cfg actors.Spec
	cfg.HTTP.URL = ts.URL + testserver.HTTPPath
	return cfg
}
