package cluster

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// traceContext carries the caller's span to the owner in the request
// (W3C Trace Context: traceparent, tracestate), whatever global
// propagator the application installed, so that the owner's spans (the
// runtime's tools/call span and below) join the caller's trace.
var traceContext = propagation.TraceContext{}

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

// endSpan ends span with err's outcome.
func endSpan(span trace.Span, err error) {
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

func injectTrace(ctx context.Context) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil // TraceContext injects nothing then: skip the map
	}
	carrier := propagation.MapCarrier{}
	traceContext.Inject(ctx, carrier)
	if len(carrier) == 0 {
		return nil
	}
	return carrier
}

func extractTrace(ctx context.Context, carrier map[string]string) context.Context {
	if len(carrier) == 0 {
		return ctx
	}
	return traceContext.Extract(ctx, propagation.MapCarrier(carrier))
}
