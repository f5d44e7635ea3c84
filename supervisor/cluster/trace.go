package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"go.opentelemetry.io/otel"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"

	"github.com/mcpactor/mcpactor/telemetry"
)

// hopDefault carries the caller's span and baggage to the owner (W3C
// Trace Context and Baggage) when the application installed no
// propagator: OpenTelemetry's global default propagates nothing, and a
// hop that dropped the trace would split every cross-member call in two.
var hopDefault = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// hopPropagator is how the hop carries trace context and baggage when
// Config.Runtime.Telemetry names no propagator: the global one at the
// time of the call, else hopDefault. The owner extracts with its own, so
// members must agree, as the services of one trace always must.
type hopPropagator struct{}

func (hopPropagator) current() propagation.TextMapPropagator {
	if p := otel.GetTextMapPropagator(); len(p.Fields()) > 0 {
		return p
	}
	return hopDefault
}

func (h hopPropagator) Inject(ctx context.Context, c propagation.TextMapCarrier) {
	h.current().Inject(ctx, c)
}

func (h hopPropagator) Extract(ctx context.Context, c propagation.TextMapCarrier) context.Context {
	return h.current().Extract(ctx, c)
}

func (h hopPropagator) Fields() []string { return h.current().Fields() }

// newHopTelemetry makes the member's telemetry of the hop: the spans
// telemetry.StartHop and StartHopServer make, from the runtime's tracer
// provider (the global one when nil; none when Disabled), carried by
// its propagator (hopPropagator when nil). The hop records no metric:
// its meter is a no-op, so that no instrument is made twice.
func newHopTelemetry(opts telemetry.Options) *telemetry.Telemetry {
	if opts.Propagator == nil {
		opts.Propagator = hopPropagator{}
	}
	opts.MeterProvider = metricnoop.NewMeterProvider()
	return telemetry.New(opts)
}

// hopPeer describes id's server on the hop's spans: the server as the
// user named it, and a digest of the tenant (which may be a person's
// address), never the tenant itself.
func hopPeer(id Identity) telemetry.Peer {
	p := telemetry.Peer{Server: id.Server}
	if id.Tenant != "" {
		p.Tenant = tenantDigest(id.Tenant)
	}
	return p
}

// tenantDigest is the short digest of a tenant that names its
// activations (clientName) and its spans.
func tenantDigest(tenant string) string {
	d := sha256.Sum256([]byte(tenant))
	return hex.EncodeToString(d[:4])
}

// spanError is err as the hop's span describes it: error texts name the
// identity as server@tenant; the span names the server alone, as its
// attributes do. Its kind (errors.Is, As) is err's, for error.type.
type spanError struct {
	err  error
	text string
}

func (e *spanError) Error() string { return e.text }
func (e *spanError) Unwrap() error { return e.err }

// forSpan is err with id's tenant taken out of its text.
func forSpan(err error, id Identity) error {
	if err == nil || id.Tenant == "" {
		return err
	}
	text := strings.ReplaceAll(err.Error(), id.String(), id.Server)
	text = strings.ReplaceAll(text, id.Tenant, "<tenant>")
	return &spanError{err: err, text: text}
}

// endHop ends a hop's Op with err's outcome, without the tenant.
func endHop(op *telemetry.Op, err error, id Identity) {
	op.End(forSpan(err, id), false)
}
