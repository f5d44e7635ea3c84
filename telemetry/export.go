package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Environment variables read by SetupFromEnv (the OTLP exporters read the
// OTEL_EXPORTER_OTLP_* endpoint, header, timeout, compression and
// certificate variables themselves; the SDK reads OTEL_TRACES_SAMPLER*,
// OTEL_BSP_*, OTEL_METRIC_EXPORT_*, OTEL_RESOURCE_ATTRIBUTES and
// OTEL_SERVICE_NAME).
const (
	envSDKDisabled         = "OTEL_SDK_DISABLED"
	envTracesExporter      = "OTEL_TRACES_EXPORTER"
	envMetricsExporter     = "OTEL_METRICS_EXPORTER"
	envPropagators         = "OTEL_PROPAGATORS"
	envOTLPEndpoint        = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envOTLPTracesEndpoint  = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envOTLPMetricsEndpoint = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"
	envOTLPProtocol        = "OTEL_EXPORTER_OTLP_PROTOCOL"
	envOTLPTracesProtocol  = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	envOTLPMetricsProtocol = "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"
	defaultOTLPProtocol    = "http/protobuf"
)

// Providers are SDK providers built from the environment. A nil provider
// means that signal has no exporter; install nothing for it.
type Providers struct {
	TracerProvider *sdktrace.TracerProvider
	MeterProvider  *sdkmetric.MeterProvider
	Propagator     propagation.TextMapPropagator

	stoppers []func(context.Context) error // providers, stopped concurrently
	closers  []func(context.Context) error // then these (the trace file)
	shutdown sync.Once
	err      error
}

// Shutdown flushes and stops the providers and closes the trace file. It
// is safe to call more than once; later calls return the first result.
func (p *Providers) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	p.shutdown.Do(func() {
		// Concurrently, so that one exporter stuck on an unreachable
		// collector does not use up the others' time.
		errs := make([]error, len(p.stoppers), len(p.stoppers)+len(p.closers))
		var wg sync.WaitGroup
		for i, stop := range p.stoppers {
			wg.Go(func() { errs[i] = stop(ctx) })
		}
		wg.Wait()
		for _, c := range p.closers {
			errs = append(errs, c(ctx))
		}
		p.err = errors.Join(errs...)
	})
	return p.err
}

// SetupFromEnv installs the global TracerProvider, MeterProvider and
// propagator of a command-line program, from traceFile and the standard
// OTEL_* variables (see NewProvidersFromEnv), and returns the function that
// flushes and stops them: call it before the program exits.
//
// Only the signals that got an exporter are installed; the others stay the
// global no-ops, so the library still costs nothing for them.
func SetupFromEnv(ctx context.Context, traceFile string) (shutdown func(context.Context) error, err error) {
	p, err := NewProvidersFromEnv(ctx, traceFile)
	if err != nil {
		return func(context.Context) error { return nil }, err
	}
	if p.TracerProvider != nil {
		otel.SetTracerProvider(p.TracerProvider)
	}
	if p.MeterProvider != nil {
		otel.SetMeterProvider(p.MeterProvider)
	}
	if p.Propagator != nil {
		otel.SetTextMapPropagator(p.Propagator)
	}
	return p.Shutdown, nil
}

// NewProvidersFromEnv builds providers without installing them:
//
//   - traceFile != "": spans are written to that file (created or
//     truncated), one JSON object per span per line (the stdouttrace
//     format), in addition to any exporter chosen below.
//   - OTEL_TRACES_EXPORTER: comma-separated "otlp", "console" (JSON lines
//     on standard error, to keep standard output for the program) or
//     "none". When unset, "otlp" if OTEL_EXPORTER_OTLP_ENDPOINT or
//     OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, else none: a program run
//     without a collector does not try to reach one.
//   - OTEL_METRICS_EXPORTER: likewise "otlp", "console" or "none", with
//     OTEL_EXPORTER_OTLP_METRICS_ENDPOINT.
//   - OTEL_EXPORTER_OTLP_PROTOCOL (or the _TRACES_ / _METRICS_ variant):
//     "http/protobuf" (default) or "grpc".
//   - OTEL_PROPAGATORS: comma-separated "tracecontext", "baggage" or "none";
//     default "tracecontext,baggage". The propagator is set even when no
//     exporter is, so trace context still flows through the program.
//   - OTEL_SDK_DISABLED=true: no exporter from the environment (traceFile,
//     an explicit request, still applies).
//
// An unknown exporter, protocol or propagator name is an error.
func NewProvidersFromEnv(ctx context.Context, traceFile string) (_ *Providers, err error) {
	p := &Providers{}
	var (
		spanExporters []sdktrace.SpanExporter
		readers       []sdkmetric.Reader
	)
	defer func() {
		if err != nil && p.TracerProvider == nil && p.MeterProvider == nil {
			// Exporters not yet owned by a provider: stop them here.
			for _, e := range spanExporters {
				_ = e.Shutdown(context.Background())
			}
			for _, r := range readers {
				_ = r.Shutdown(context.Background())
			}
			_ = p.Shutdown(context.Background())
		}
	}()
	if p.Propagator, err = propagatorFromEnv(); err != nil {
		return nil, err
	}
	disabled := strings.EqualFold(strings.TrimSpace(os.Getenv(envSDKDisabled)), "true")

	if traceFile != "" {
		f, err := os.OpenFile(traceFile, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("telemetry: trace file: %w", err)
		}
		p.closers = append(p.closers, func(context.Context) error { return f.Close() })
		exp, err := stdouttrace.New(stdouttrace.WithWriter(f))
		if err != nil {
			return nil, err
		}
		spanExporters = append(spanExporters, exp)
	}
	if !disabled {
		names, err := exporterNames(envTracesExporter, envOTLPEndpoint, envOTLPTracesEndpoint)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			exp, err := spanExporter(ctx, name)
			if err != nil {
				return nil, err
			}
			spanExporters = append(spanExporters, exp)
		}
	}

	if !disabled {
		names, err := exporterNames(envMetricsExporter, envOTLPEndpoint, envOTLPMetricsEndpoint)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			exp, err := metricExporter(ctx, name)
			if err != nil {
				return nil, err
			}
			readers = append(readers, sdkmetric.NewPeriodicReader(exp))
		}
	}
	if len(spanExporters) == 0 && len(readers) == 0 {
		return p, nil
	}

	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", filepath.Base(os.Args[0]))),
		resource.WithFromEnv(),
	)
	if err != nil && res == nil {
		return nil, err
	}

	if len(spanExporters) > 0 {
		opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
		for _, e := range spanExporters {
			opts = append(opts, sdktrace.WithBatcher(e))
		}
		p.TracerProvider = sdktrace.NewTracerProvider(opts...)
		p.stoppers = append(p.stoppers, p.TracerProvider.Shutdown)
	}
	if len(readers) > 0 {
		opts := []sdkmetric.Option{sdkmetric.WithResource(res)}
		for _, r := range readers {
			opts = append(opts, sdkmetric.WithReader(r))
		}
		p.MeterProvider = sdkmetric.NewMeterProvider(opts...)
		p.stoppers = append(p.stoppers, p.MeterProvider.Shutdown)
	}
	return p, nil
}

// exporterNames reads a comma-separated OTEL_*_EXPORTER variable. Unset,
// it means "otlp" when an OTLP endpoint variable is set, else nothing.
func exporterNames(env string, endpointEnvs ...string) ([]string, error) {
	v, set := os.LookupEnv(env)
	if !set || strings.TrimSpace(v) == "" {
		for _, e := range endpointEnvs {
			if os.Getenv(e) != "" {
				return []string{"otlp"}, nil
			}
		}
		return nil, nil
	}
	var names []string
	for _, n := range strings.Split(v, ",") {
		n = strings.ToLower(strings.TrimSpace(n))
		switch n {
		case "":
		case "none":
			return nil, nil
		case "otlp", "console":
			names = append(names, n)
		default:
			return nil, fmt.Errorf("telemetry: %s=%q: unsupported exporter %q (want otlp, console or none)", env, v, n)
		}
	}
	return names, nil
}

func otlpProtocol(signalEnv string) (string, error) {
	proto := strings.TrimSpace(os.Getenv(signalEnv))
	if proto == "" {
		proto = strings.TrimSpace(os.Getenv(envOTLPProtocol))
	}
	if proto == "" {
		proto = defaultOTLPProtocol
	}
	switch proto {
	case "grpc", "http/protobuf":
		return proto, nil
	}
	return "", fmt.Errorf("telemetry: unsupported OTLP protocol %q (want http/protobuf or grpc)", proto)
}

func spanExporter(ctx context.Context, name string) (sdktrace.SpanExporter, error) {
	if name == "console" {
		return stdouttrace.New(stdouttrace.WithWriter(consoleWriter))
	}
	proto, err := otlpProtocol(envOTLPTracesProtocol)
	if err != nil {
		return nil, err
	}
	if proto == "grpc" {
		return otlptracegrpc.New(ctx)
	}
	return otlptracehttp.New(ctx)
}

func metricExporter(ctx context.Context, name string) (sdkmetric.Exporter, error) {
	if name == "console" {
		return stdoutmetric.New(stdoutmetric.WithWriter(consoleWriter))
	}
	proto, err := otlpProtocol(envOTLPMetricsProtocol)
	if err != nil {
		return nil, err
	}
	if proto == "grpc" {
		return otlpmetricgrpc.New(ctx)
	}
	return otlpmetrichttp.New(ctx)
}

// consoleWriter receives the "console" exporters' output.
var consoleWriter io.Writer = os.Stderr

func propagatorFromEnv() (propagation.TextMapPropagator, error) {
	v := os.Getenv(envPropagators)
	if strings.TrimSpace(v) == "" {
		return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}), nil
	}
	var ps []propagation.TextMapPropagator
	for _, n := range strings.Split(v, ",") {
		switch n = strings.ToLower(strings.TrimSpace(n)); n {
		case "":
		case "none":
			return propagation.NewCompositeTextMapPropagator(), nil
		case "tracecontext":
			ps = append(ps, propagation.TraceContext{})
		case "baggage":
			ps = append(ps, propagation.Baggage{})
		default:
			return nil, fmt.Errorf("telemetry: %s=%q: unsupported propagator %q (want tracecontext, baggage or none)", envPropagators, v, n)
		}
	}
	return propagation.NewCompositeTextMapPropagator(ps...), nil
}
