package cluster

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// hopDefault carries the caller's span and baggage to the owner (W3C
// Trace Context and Baggage) when the application installed no
// propagator: OpenTelemetry's global default propagates nothing, and a
// hop that dropped the trace would split every cross-member call in two.
var hopDefault = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// propagator is how the hop carries trace context and baggage: the
// runtime's configured propagator (Config.Runtime.Telemetry.Propagator),
// else the global one, else hopDefault. The owner extracts with its own,
// so members must agree, as the services of one trace always must.
func (m *Member) propagator() propagation.TextMapPropagator {
	if p := m.cfg.Runtime.Telemetry.Propagator; p != nil {
		return p
	}
	if p := otel.GetTextMapPropagator(); len(p.Fields()) > 0 {
		return p
	}
	return hopDefault
}

// tracerName is the instrumentation scope of the cluster's spans.
const tracerName = "github.com/mcpactor/mcpactor/supervisor/cluster"

// tracer makes the member's spans: the hop, as the caller's CLIENT span
// ("cluster tools/call") and the owner's SERVER span ("cluster serve
// tools/call"), between the caller's span and the owner runtime's
// spans, from Config.Runtime.Telemetry's provider (the global one when
// nil; none when Disabled). Their attributes name the server and the
// members, never a tenant (it may be a person's address).
func (m *Member) tracer() trace.Tracer {
	t := m.cfg.Runtime.Telemetry
	switch {
	case t.Disabled:
		return noop.NewTracerProvider().Tracer(tracerName)
	case t.TracerProvider != nil:
		return t.TracerProvider.Tracer(tracerName)
	default:
		return otel.Tracer(tracerName)
	}
}

// startHop starts the caller's span of a request to id's owner.
func (m *Member) startHop(ctx context.Context, id Identity, method string) (context.Context, trace.Span) {
	return m.tracer().Start(ctx, "cluster "+method, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("mcpactor.cluster.server", id.Server), attribute.String("mcpactor.cluster.member", m.cfg.Name)))
}

// startServe starts the owner's span of a request from another member.
func (m *Member) startServe(ctx context.Context, req *request) (context.Context, trace.Span) {
	return m.tracer().Start(ctx, "cluster serve "+req.Method, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("mcpactor.cluster.server", req.Server), attribute.String("mcpactor.cluster.member", m.cfg.Name),
			attribute.String("mcpactor.cluster.caller", req.From)))
}

// endSpan ends the hop's span with err's outcome. Error texts name the
// identity as server@tenant; the span names the server alone, as its
// attributes do (a tenant may be a person's address).
func endSpan(span trace.Span, err error, id Identity) {
	if err != nil {
		text := err.Error()
		if id.Tenant != "" {
			text = strings.ReplaceAll(text, id.String(), id.Server)
			text = strings.ReplaceAll(text, id.Tenant, "<tenant>")
		}
		span.SetStatus(codes.Error, text)
	}
	span.End()
}

// injectTrace returns what the hop's request carries of ctx's trace and
// baggage; nil when there is neither.
func (m *Member) injectTrace(ctx context.Context) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() && baggage.FromContext(ctx).Len() == 0 {
		return nil // nothing to carry: skip the map
	}
	carrier := propagation.MapCarrier{}
	m.propagator().Inject(ctx, carrier)
	if len(carrier) == 0 {
		return nil
	}
	return carrier
}

// extractTrace is ctx with the caller's trace and baggage from carrier.
func (m *Member) extractTrace(ctx context.Context, carrier map[string]string) context.Context {
	if len(carrier) == 0 {
		return ctx
	}
	return m.propagator().Extract(ctx, propagation.MapCarrier(carrier))
}
