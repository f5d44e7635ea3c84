package cluster

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// traceContext carries the caller's span to the owner in the request
// (W3C Trace Context: traceparent, tracestate), whatever global
// propagator the application installed, so that the owner's spans (the
// runtime's tools/call span and below) join the caller's trace.
var traceContext = propagation.TraceContext{}

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
