package cluster

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor/telemetry"
)

// The hop carries trace context and baggage with the runtime's configured
// propagator, and with W3C Trace Context and Baggage when none is
// installed (issue 36, item 7): a tenant's baggage set by the caller
// reaches the owner's context.
func TestHopCarriesBaggage(t *testing.T) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled,
	})
	member, _ := baggage.NewMember("tenant", "acme")
	bag, _ := baggage.New(member)
	ctx := baggage.ContextWithBaggage(trace.ContextWithSpanContext(context.Background(), sc), bag)
	hop := &telemetry.Hop{Peer: telemetry.Peer{Server: "mail"}, Member: "m1"}

	for _, c := range []struct {
		name string
		prop propagation.TextMapPropagator
	}{
		{"no propagator installed", nil},
		{"configured", propagation.NewCompositeTextMapPropagator(propagation.Baggage{}, propagation.TraceContext{})},
	} {
		t.Run(c.name, func(t *testing.T) {
			tel := newHopTelemetry(telemetry.Options{Propagator: c.prop})
			_, op, carrier := tel.StartHop(ctx, hop)
			defer op.End(nil, false)
			got, sop := tel.StartHopServer(context.Background(), carrier, hop)
			defer sop.End(nil, false)
			if v := baggage.FromContext(got).Member("tenant").Value(); v != "acme" {
				t.Errorf("baggage after the hop: tenant=%q (carrier %v), want acme", v, carrier)
			}
			if gotSC := trace.SpanContextFromContext(got); gotSC.TraceID() != sc.TraceID() || gotSC.SpanID() != sc.SpanID() {
				t.Errorf("span context after the hop: %v, want the caller's", gotSC)
			}
		})
	}
	// Baggage alone, with no span, still crosses.
	tel := newHopTelemetry(telemetry.Options{})
	alone := baggage.ContextWithBaggage(context.Background(), bag)
	_, _, carrier := tel.StartHop(alone, hop)
	got, _ := tel.StartHopServer(context.Background(), carrier, hop)
	if v := baggage.FromContext(got).Member("tenant").Value(); v != "acme" {
		t.Errorf("baggage without a span after the hop: %q (carrier %v)", v, carrier)
	}
}

// The hop's span status names the server, never the tenant the error
// text names, and its tenant attribute is a digest (issue 36;
// docs/cluster.md).
func TestHopSpanNamesNoTenant(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tel := newHopTelemetry(telemetry.Options{TracerProvider: tp})
	id := Identity{Server: "mail", Tenant: "alice@example.com"}
	_, op, _ := tel.StartHop(context.Background(), &telemetry.Hop{Peer: hopPeer(id), Member: "m1"})
	endHop(op, fmt.Errorf("cluster: %s tools/call: member m1: owner lost", id), id)
	s := rec.Ended()[0]
	got := s.Status().Description
	if strings.Contains(got, "alice") || !strings.Contains(got, "mail tools/call") {
		t.Errorf("status %q: want the server named and no tenant", got)
	}
	for _, kv := range s.Attributes() {
		if strings.Contains(kv.Value.String(), "alice") {
			t.Errorf("attribute %s = %q names the tenant", kv.Key, kv.Value.String())
		}
	}
}
