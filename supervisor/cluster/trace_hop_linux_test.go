//go:build linux

package cluster

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpactor/mcpactor/telemetry"
)

// childTrace records a member child's spans and metric points
// (memberSpec.Traced); the test reads them with the "spans" and
// "metric-servers" controls. Two members cannot share a test process:
// each start of protoactor's remote layer rewrites gRPC's process-wide
// logger, which the other's etcd client reads unsynchronised.
var childTrace traceRecorder

type traceRecorder struct {
	once sync.Once
	sr   *tracetest.SpanRecorder
	mr   *sdkmetric.ManualReader
	tp   *sdktrace.TracerProvider
	mp   *sdkmetric.MeterProvider
}

func (r *traceRecorder) providers() (*sdktrace.TracerProvider, *sdkmetric.MeterProvider) {
	r.once.Do(func() {
		r.sr, r.mr = tracetest.NewSpanRecorder(), sdkmetric.NewManualReader()
		r.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.sr))
		r.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.mr))
	})
	return r.tp, r.mp
}

// recordedSpan is an ended span as a child reports it.
type recordedSpan struct {
	Name   string            `json:"name"`
	Kind   string            `json:"kind"`
	Trace  string            `json:"trace"`
	Span   string            `json:"span"`
	Parent string            `json:"parent"`
	Remote bool              `json:"remote"`
	Attrs  map[string]string `json:"attrs"`
}

func spansOf(in []sdktrace.ReadOnlySpan) []recordedSpan {
	out := make([]recordedSpan, 0, len(in))
	for _, s := range in {
		rs := recordedSpan{Name: s.Name(), Kind: s.SpanKind().String(), Trace: s.SpanContext().TraceID().String(),
			Span: s.SpanContext().SpanID().String(), Parent: s.Parent().SpanID().String(), Remote: s.Parent().IsRemote(),
			Attrs: map[string]string{}}
		for _, kv := range s.Attributes() {
			rs.Attrs[string(kv.Key)] = kv.Value.String()
		}
		out = append(out, rs)
	}
	return out
}

// control answers "spans" (the ended spans) and "metric-servers" (the
// mcpactor.server.name of every metric point).
func (r *traceRecorder) control(op string) (string, error) {
	if r.sr == nil {
		return "null", nil
	}
	var v any
	switch op {
	case "spans":
		v = spansOf(r.sr.Ended())
	case "metric-servers":
		var rm metricdata.ResourceMetrics
		if err := r.mr.Collect(context.Background(), &rm); err != nil {
			return "", err
		}
		names := []string{}
		for _, sm := range rm.ScopeMetrics {
			for _, met := range sm.Metrics {
				for _, set := range metricSets(met) {
					if n, ok := set.Value(telemetry.KeyServerName); ok {
						names = append(names, met.Name+"="+n.AsString())
					}
				}
			}
		}
		v = names
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// metricSets returns the attribute sets of met's data points.
func metricSets(met metricdata.Metrics) []attribute.Set {
	var out []attribute.Set
	switch d := met.Data.(type) {
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Gauge[int64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	}
	return out
}

// findSpan returns the span of spans named name of kind, failing when
// there is not exactly one.
func findSpan(t *testing.T, where string, spans []recordedSpan, name, kind string) recordedSpan {
	t.Helper()
	var found []recordedSpan
	for _, s := range spans {
		if s.Name == name && s.Kind == kind {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: %d %s spans named %q, want 1 (of %d)", where, len(found), kind, name, len(spans))
	}
	return found[0]
}

// TestHopTraceParents: with recording tracers on the calling member and
// on the owner (another process), a tenant's call is one trace, each span
// the child of the one before: the caller's span, the hop's CLIENT span
// (caller), the hop's SERVER span (owner), the owner's MCP CLIENT span
// of tools/call. The owner's spans and metric points name the server as
// it is configured ("alpha"), not the activation's manager name
// ("alpha.<tenant digest>.<generation>") (issue 36, items 6 and 7).
func TestHopTraceParents(t *testing.T) {
	e := etcdFor(t)
	base := testSpec(t, e, 2*time.Second)
	ownerSpec := base
	ownerSpec.Name, ownerSpec.Traced = "owner", true
	owner := startMember(t, ownerSpec)

	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	callerSpec := base
	callerSpec.Name, callerSpec.CallOnly = "caller", true
	cfg := callerSpec.config()
	cfg.Runtime.Telemetry = telemetry.Options{TracerProvider: tp,
		Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})}
	caller := startLocal(t, "caller", cfg)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for len(caller.Members()) != 2 {
		if ctx.Err() != nil {
			t.Fatalf("the caller sees %v", caller.Members())
		}
		time.Sleep(20 * time.Millisecond)
	}

	actx, app := tp.Tracer("app").Start(ctx, "handle request")
	if _, err := caller.As("alice@example.com").CallTool(actx, "alpha", "echo", map[string]any{"message": "hi"}); err != nil {
		t.Fatal(err)
	}
	app.End()

	var ownerSpans []recordedSpan
	if r := owner.do(control{Op: "spans"}); r.Err != "" || json.Unmarshal([]byte(r.Text), &ownerSpans) != nil {
		t.Fatalf("owner spans: %+v", r)
	}
	callerSpans := spansOf(sr.Ended())
	appSpan := findSpan(t, "caller", callerSpans, "handle request", "internal")
	chop := findSpan(t, "caller", callerSpans, telemetry.SpanClusterHop, "client")
	ohop := findSpan(t, "owner", ownerSpans, telemetry.SpanClusterHop, "server")
	ocall := findSpan(t, "owner", ownerSpans, "tools/call echo", "client")
	chain := []recordedSpan{appSpan, chop, ohop, ocall}
	for i := 1; i < len(chain); i++ {
		parent, child := chain[i-1], chain[i]
		if child.Parent != parent.Span {
			t.Errorf("%s span %q: parent %s, want %q's %s", child.Kind, child.Name, child.Parent, parent.Name, parent.Span)
		}
		if child.Trace != appSpan.Trace {
			t.Errorf("%s span %q in trace %s, want %s", child.Kind, child.Name, child.Trace, appSpan.Trace)
		}
	}
	if !ohop.Remote {
		t.Error("the owner's hop span's parent is not remote")
	}
	for _, c := range []struct {
		where string
		span  recordedSpan
		key   attribute.Key
		want  string
	}{
		{"caller hop", chop, telemetry.KeyServerName, "alpha"},
		{"caller hop", chop, telemetry.KeyClusterMember, "caller"},
		{"caller hop", chop, telemetry.KeyClusterOwner, "owner"},
		{"owner hop", ohop, telemetry.KeyServerName, "alpha"},
		{"owner hop", ohop, telemetry.KeyClusterMember, "caller"},
		{"owner hop", ohop, telemetry.KeyClusterOwner, "owner"},
		{"owner hop", ohop, telemetry.KeyClusterTenant, tenantDigest("alice@example.com")},
		{"owner call", ocall, telemetry.KeyServerName, "alpha"},
	} {
		if got, ok := c.span.Attrs[string(c.key)]; !ok || got != c.want {
			t.Errorf("%s span: %s = %q (set %v), want %q", c.where, c.key, got, ok, c.want)
		}
	}
	if g, _ := strconv.Atoi(chop.Attrs[string(telemetry.KeyClusterGeneration)]); g <= 0 {
		t.Errorf("caller hop span: generation %q, want the owner activation's", chop.Attrs[string(telemetry.KeyClusterGeneration)])
	}
	for _, s := range append(callerSpans, ownerSpans...) {
		for k, v := range s.Attrs {
			if v == "alice@example.com" {
				t.Errorf("%s span %q: %s names the tenant", s.Kind, s.Name, k)
			}
		}
	}

	// Every metric point of the owner names the configured server.
	var points []string
	if r := owner.do(control{Op: "metric-servers"}); r.Err != "" || json.Unmarshal([]byte(r.Text), &points) != nil {
		t.Fatalf("owner metric points: %+v", r)
	}
	if len(points) == 0 {
		t.Error("the owner recorded no metric point naming a server")
	}
	for _, p := range points {
		if _, name, _ := cutLast(p, '='); name != "alpha" {
			t.Errorf("owner metric point %s: want the server named alpha", p)
		}
	}
}

// cutLast splits s around the last sep.
func cutLast(s string, sep byte) (before, after string, found bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
