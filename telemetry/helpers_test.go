package telemetry

import (
	"context"
	"sort"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// rig is a Telemetry wired to an in-memory span recorder and a manual
// metric reader.
type rig struct {
	tel *Telemetry
	tp  *sdktrace.TracerProvider
	sr  *tracetest.SpanRecorder
	mr  *sdkmetric.ManualReader
}

var w3c = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

func newRig(t *testing.T, opts Options) *rig {
	t.Helper()
	r := &rig{sr: tracetest.NewSpanRecorder(), mr: sdkmetric.NewManualReader()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.sr))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.mr))
	opts.TracerProvider = r.tp
	opts.MeterProvider = mp
	if opts.Propagator == nil {
		opts.Propagator = w3c
	}
	r.tel = New(opts)
	t.Cleanup(func() {
		_ = r.tel.Close()
		_ = r.tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	return r
}

// ended returns the single ended span, failing otherwise.
func (r *rig) ended(t *testing.T) sdktrace.ReadOnlySpan {
	t.Helper()
	spans := r.sr.Ended()
	if len(spans) != 1 {
		t.Fatalf("ended spans = %d, want 1", len(spans))
	}
	return spans[0]
}

func (r *rig) collect(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.mr.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

func findMetric(rm metricdata.ResourceMetrics, name string) (metricdata.Metrics, bool) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m, true
			}
		}
	}
	return metricdata.Metrics{}, false
}

func (r *rig) histogram(t *testing.T, name string) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	m, ok := findMetric(r.collect(t), name)
	if !ok {
		t.Fatalf("metric %s not recorded", name)
	}
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("metric %s is %T, want a float64 histogram", name, m.Data)
	}
	if m.Unit != "s" {
		t.Errorf("%s unit = %q, want s", name, m.Unit)
	}
	return h.DataPoints
}

// attrs renders attributes as a map of plain values for comparison.
func attrs(kvs []attribute.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

func setAttrs(s attribute.Set) map[string]any { return attrs(s.ToSlice()) }

func checkAttrs(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		g, gok := got[k]
		w, wok := want[k]
		switch {
		case gok && !wok:
			t.Errorf("%s: unexpected attribute %s = %v", what, k, g)
		case !gok && wok:
			t.Errorf("%s: missing attribute %s (want %v)", what, k, w)
		case g != w:
			t.Errorf("%s: %s = %#v, want %#v", what, k, g, w)
		}
	}
}

func eventNames(s sdktrace.ReadOnlySpan) []string {
	var names []string
	for _, e := range s.Events() {
		names = append(names, e.Name)
	}
	return names
}

const childEnv = "MCPACTOR_TELEMETRY_TEST_CHILD"
