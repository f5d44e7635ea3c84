// Package otelenv sets up OpenTelemetry export for a command-line program
// from the standard OTEL_* environment variables: the trace and metric
// SDKs, the OTLP exporters (gRPC and HTTP), the stdout exporters and a
// JSON-lines trace file. cmd/demo uses it.
//
// It is a package of its own so that only the programs that want exporters
// link them: package telemetry and the mcpactor runtime depend on the
// OpenTelemetry API alone (deps_test.go at the module root checks that
// importing github.com/mcpactor/mcpactor links no gRPC, OTLP, stdout
// exporter or trace SDK). A library or service that already configures
// OpenTelemetry has no use for this package: the runtime uses the global
// providers, or those in telemetry.Options.
//
// The variables are those of the OpenTelemetry SDK environment
// specification
// (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/)
// and of the OTLP exporter
// (https://opentelemetry.io/docs/specs/otel/protocol/exporter/), with the
// differences docs/telemetry.md lists ("Exporters").
package otelenv

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

// Environment variables read here (the OTLP exporters also read the
// OTEL_EXPORTER_OTLP_* endpoint, header, timeout, compression, insecure and
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
	envOTLPInsecure        = "OTEL_EXPORTER_OTLP_INSECURE"
	envOTLPTracesInsecure  = "OTEL_EXPORTER_OTLP_TRACES_INSECURE"
	envOTLPMetricsInsecure = "OTEL_EXPORTER_OTLP_METRICS_INSECURE"

	protoHTTP = "http/protobuf"
	protoGRPC = "grpc"
)

// The endpoints used when no OTEL_EXPORTER_OTLP_*ENDPOINT variable is set:
// a Collector on this machine, reached without TLS. (The exporters' own
// default for HTTP is https://localhost:4318, which a stock local Collector,
// listening in plain HTTP, never receives: every span would be lost, quietly
// unless an error handler is installed.) Variables so tests can point them
// at a listener of their own.
var (
	defaultHTTPEndpoint = "localhost:4318"
	defaultGRPCEndpoint = "localhost:4317"
)

// Options say what to set up besides what the environment asks for.
type Options struct {
	// TraceFile, when set, receives every span as one JSON object per line
	// (the stdouttrace format), created or truncated, whatever the
	// environment says (OTEL_SDK_DISABLED included).
	TraceFile string
	// OnError, when set, is installed by Setup as the global OpenTelemetry
	// error handler (otel.SetErrorHandler): failed exports (a wrong
	// endpoint, a Collector that is down) are reported there instead of
	// going to the default handler's log line, or nowhere.
	OnError func(error)
}

// Providers are SDK providers built from the environment. A nil provider
// means that signal has no exporter: install nothing for it.
type Providers struct {
	TracerProvider *sdktrace.TracerProvider
	MeterProvider  *sdkmetric.MeterProvider
	Propagator     propagation.TextMapPropagator
	// Destinations says where each signal goes, one line per exporter, for
	// a program's start-up message: "traces: otlp http/protobuf to
	// http://localhost:4318/v1/traces (default endpoint)", "traces: file
	// trace.jsonl", "metrics: console (stderr)". Empty when nothing is
	// exported.
	Destinations []string

	stoppers []stopper                     // providers, stopped concurrently
	closers  []func(context.Context) error // then these (the trace file)
	shutdown sync.Once
	err      error
}

// Shutdown flushes and stops the providers and closes the trace file. It
// is safe to call more than once, and on a nil *Providers; later calls
// return the first result.
func (p *Providers) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	p.shutdown.Do(func() {
		// Concurrently, so that one exporter stuck on an unreachable
		// collector does not use up the others' time.
		errs := make([]error, len(p.stoppers), len(p.stoppers)+len(p.closers))
		var wg sync.WaitGroup
		for i, s := range p.stoppers {
			wg.Go(func() { errs[i] = s.run(ctx) })
		}
		wg.Wait()
		for _, c := range p.closers {
			errs = append(errs, c(ctx))
		}
		p.err = errors.Join(errs...)
	})
	return p.err
}

// stopper flushes and stops one provider; what names where its signal
// goes, for the error of a flush that failed.
type stopper struct {
	what string
	stop func(context.Context) error
}

// run stops the provider. A flush that ran out of time is, nearly always,
// an exporter whose endpoint nobody listens on (the exporters retry until
// the context ends): the error says which, in one line, instead of a bare
// "context deadline exceeded".
func (s stopper) run(ctx context.Context) error {
	err := s.stop(ctx)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%s: not flushed in time: nothing answered there (is a Collector running?): %w", s.what, context.DeadlineExceeded)
	}
	return fmt.Errorf("%s: %w", s.what, err)
}

// destinationsOf joins the destinations of one signal ("traces: ...").
func destinationsOf(dests []string, signal string) string {
	var out []string
	for _, d := range dests {
		if rest, ok := strings.CutPrefix(d, signal+": "); ok {
			out = append(out, rest)
		}
	}
	return signal + " to " + strings.Join(out, " and ")
}

// Describe joins Destinations into one line ("none" when empty).
func (p *Providers) Describe() string {
	if p == nil || len(p.Destinations) == 0 {
		return "none"
	}
	return strings.Join(p.Destinations, "; ")
}

// Setup installs the global TracerProvider, MeterProvider and propagator
// of a command-line program from opts and the standard OTEL_* variables
// (see New), and Options.OnError as the global error handler. Call
// Shutdown on the result before the program exits, to flush.
//
// Only the signals that got an exporter are installed; the others stay the
// global no-ops, so the runtime still costs nothing for them. On error
// nothing is installed and the returned *Providers is nil (its Shutdown is
// a no-op).
func Setup(ctx context.Context, opts Options) (*Providers, error) {
	p, err := New(ctx, opts)
	if err != nil {
		return nil, err
	}
	if opts.OnError != nil {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(opts.OnError))
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
	return p, nil
}

// New builds providers without installing them:
//
//   - opts.TraceFile != "": spans are written to that file, one JSON object
//     per span per line, in addition to any exporter chosen below.
//   - OTEL_TRACES_EXPORTER: comma-separated "otlp", "console" (JSON lines
//     on standard error, to keep standard output for the program) or
//     "none". When unset, "otlp" if OTEL_EXPORTER_OTLP_ENDPOINT or
//     OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, else none: a program run
//     without a collector does not try to reach one.
//   - OTEL_METRICS_EXPORTER: likewise "otlp", "console" or "none", with
//     OTEL_EXPORTER_OTLP_METRICS_ENDPOINT.
//   - OTEL_EXPORTER_OTLP_PROTOCOL (or the _TRACES_ / _METRICS_ variant):
//     "http/protobuf" (default) or "grpc".
//   - No OTEL_EXPORTER_OTLP_ENDPOINT nor signal endpoint: OTLP goes to a
//     local Collector without TLS, http://localhost:4318 (http/protobuf)
//     or localhost:4317 (grpc), unless an OTEL_EXPORTER_OTLP_*INSECURE
//     variable says otherwise. With an endpoint variable, the exporter
//     follows it (an http:// endpoint means no TLS).
//   - OTEL_PROPAGATORS: comma-separated "tracecontext", "baggage" or "none";
//     default "tracecontext,baggage". The propagator is set even when no
//     exporter is, so trace context still flows through the program.
//   - OTEL_SDK_DISABLED=true: no exporter from the environment (the trace
//     file, an explicit request, still applies).
//
// An unknown exporter, protocol or propagator name is an error.
func New(ctx context.Context, opts Options) (_ *Providers, err error) {
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

	if opts.TraceFile != "" {
		f, err := os.OpenFile(opts.TraceFile, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("otelenv: trace file: %w", err)
		}
		p.closers = append(p.closers, func(context.Context) error { return f.Close() })
		exp, err := stdouttrace.New(stdouttrace.WithWriter(f))
		if err != nil {
			return nil, err
		}
		spanExporters = append(spanExporters, exp)
		p.Destinations = append(p.Destinations, "traces: file "+opts.TraceFile+" (JSON lines)")
	}
	if !disabled {
		names, err := exporterNames(envTracesExporter, envOTLPEndpoint, envOTLPTracesEndpoint)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			exp, dest, err := traces.exporter(ctx, name)
			if err != nil {
				return nil, err
			}
			spanExporters = append(spanExporters, exp)
			p.Destinations = append(p.Destinations, "traces: "+dest)
		}
	}

	if !disabled {
		names, err := exporterNames(envMetricsExporter, envOTLPEndpoint, envOTLPMetricsEndpoint)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			exp, dest, err := metrics.exporter(ctx, name)
			if err != nil {
				return nil, err
			}
			readers = append(readers, sdkmetric.NewPeriodicReader(exp))
			p.Destinations = append(p.Destinations, "metrics: "+dest)
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
		p.stoppers = append(p.stoppers, stopper{what: destinationsOf(p.Destinations, "traces"), stop: p.TracerProvider.Shutdown})
	}
	if len(readers) > 0 {
		opts := []sdkmetric.Option{sdkmetric.WithResource(res)}
		for _, r := range readers {
			opts = append(opts, sdkmetric.WithReader(r))
		}
		p.MeterProvider = sdkmetric.NewMeterProvider(opts...)
		p.stoppers = append(p.stoppers, stopper{what: destinationsOf(p.Destinations, "metrics"), stop: p.MeterProvider.Shutdown})
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
			return nil, fmt.Errorf("otelenv: %s=%q: unsupported exporter %q (want otlp, console or none)", env, v, n)
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
		proto = protoHTTP
	}
	switch proto {
	case protoGRPC, protoHTTP:
		return proto, nil
	}
	return "", fmt.Errorf("otelenv: unsupported OTLP protocol %q (want http/protobuf or grpc)", proto)
}

// otlpTarget is where an OTLP exporter of one signal sends, as the
// environment says.
type otlpTarget struct {
	proto string
	// useDefault: no endpoint variable is set, so the local Collector
	// default applies; insecure says whether to force plain HTTP / no TLS
	// (not when an OTEL_EXPORTER_OTLP_*INSECURE variable decides).
	useDefault, insecure bool
	dest                 string // for Destinations
}

// target resolves the protocol and endpoint of one signal. path is the
// signal's OTLP/HTTP path ("/v1/traces"), appended to the generic endpoint
// as the exporter does.
func target(protoEnv, endpointEnv, insecureEnv, path string) (otlpTarget, error) {
	proto, err := otlpProtocol(protoEnv)
	if err != nil {
		return otlpTarget{}, err
	}
	t := otlpTarget{proto: proto}
	switch sig, all := os.Getenv(endpointEnv), os.Getenv(envOTLPEndpoint); {
	case sig != "":
		t.dest = fmt.Sprintf("otlp %s to %s (%s)", proto, sig, endpointEnv)
	case all != "":
		ep := all
		if proto == protoHTTP {
			ep = strings.TrimRight(all, "/") + path
		}
		t.dest = fmt.Sprintf("otlp %s to %s (%s)", proto, ep, envOTLPEndpoint)
	default:
		t.useDefault = true
		t.insecure = os.Getenv(insecureEnv) == "" && os.Getenv(envOTLPInsecure) == ""
		switch {
		case proto == protoGRPC && t.insecure:
			t.dest = fmt.Sprintf("otlp grpc to %s without TLS (default endpoint)", defaultGRPCEndpoint)
		case proto == protoGRPC:
			t.dest = fmt.Sprintf("otlp grpc to %s (default endpoint, TLS as the *INSECURE variable says)", defaultGRPCEndpoint)
		case t.insecure:
			t.dest = fmt.Sprintf("otlp http/protobuf to http://%s%s (default endpoint)", defaultHTTPEndpoint, path)
		default:
			t.dest = fmt.Sprintf("otlp http/protobuf to %s%s (default endpoint, TLS as the *INSECURE variable says)", defaultHTTPEndpoint, path)
		}
	}
	return t, nil
}

// otlpOptions are the options that point an OTLP exporter (any of the
// four: traces or metrics, gRPC or HTTP, each with its own Option type) at
// t: none when an endpoint variable is set, for the exporter reads it
// itself; else the local Collector's endpoint, without TLS unless an
// OTEL_EXPORTER_OTLP_*INSECURE variable decides.
func otlpOptions[O any](t otlpTarget, endpoint string, withEndpoint func(string) O, withInsecure func() O) []O {
	if !t.useDefault {
		return nil
	}
	opts := []O{withEndpoint(endpoint)}
	if t.insecure {
		opts = append(opts, withInsecure())
	}
	return opts
}

// signal is what the exporters of one signal (traces, metrics) are made
// from; the rest of choosing and making one is the same for both
// (exporter).
type signal[E any] struct {
	// The OTEL_EXPORTER_OTLP_<SIGNAL>_* variables, and the OTLP/HTTP path
	// appended to the generic endpoint ("/v1/traces").
	protoEnv, endpointEnv, insecureEnv, path string
	// The constructors of the console exporter and of the OTLP exporters
	// over gRPC and over HTTP, pointed at t.
	console    func() (E, error)
	grpc, http func(ctx context.Context, t otlpTarget) (E, error)
}

// exporter makes the exporter exporterNames named ("console" or "otlp")
// and says where it sends.
func (s signal[E]) exporter(ctx context.Context, name string) (E, string, error) {
	if name == "console" {
		exp, err := s.console()
		return exp, "console (stderr)", err
	}
	t, err := target(s.protoEnv, s.endpointEnv, s.insecureEnv, s.path)
	if err != nil {
		var none E
		return none, "", err
	}
	otlp := s.http
	if t.proto == protoGRPC {
		otlp = s.grpc
	}
	exp, err := otlp(ctx, t)
	return exp, t.dest, err
}

var traces = signal[sdktrace.SpanExporter]{
	protoEnv: envOTLPTracesProtocol, endpointEnv: envOTLPTracesEndpoint, insecureEnv: envOTLPTracesInsecure, path: "/v1/traces",
	console: func() (sdktrace.SpanExporter, error) {
		return stdouttrace.New(stdouttrace.WithWriter(consoleWriter))
	},
	grpc: func(ctx context.Context, t otlpTarget) (sdktrace.SpanExporter, error) {
		return otlptracegrpc.New(ctx, otlpOptions(t, defaultGRPCEndpoint, otlptracegrpc.WithEndpoint, otlptracegrpc.WithInsecure)...)
	},
	http: func(ctx context.Context, t otlpTarget) (sdktrace.SpanExporter, error) {
		return otlptracehttp.New(ctx, otlpOptions(t, defaultHTTPEndpoint, otlptracehttp.WithEndpoint, otlptracehttp.WithInsecure)...)
	},
}

var metrics = signal[sdkmetric.Exporter]{
	protoEnv: envOTLPMetricsProtocol, endpointEnv: envOTLPMetricsEndpoint, insecureEnv: envOTLPMetricsInsecure, path: "/v1/metrics",
	console: func() (sdkmetric.Exporter, error) {
		return stdoutmetric.New(stdoutmetric.WithWriter(consoleWriter))
	},
	grpc: func(ctx context.Context, t otlpTarget) (sdkmetric.Exporter, error) {
		return otlpmetricgrpc.New(ctx, otlpOptions(t, defaultGRPCEndpoint, otlpmetricgrpc.WithEndpoint, otlpmetricgrpc.WithInsecure)...)
	},
	http: func(ctx context.Context, t otlpTarget) (sdkmetric.Exporter, error) {
		return otlpmetrichttp.New(ctx, otlpOptions(t, defaultHTTPEndpoint, otlpmetrichttp.WithEndpoint, otlpmetrichttp.WithInsecure)...)
	},
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
			return nil, fmt.Errorf("otelenv: %s=%q: unsupported propagator %q (want tracecontext, baggage or none)", envPropagators, v, n)
		}
	}
	return propagation.NewCompositeTextMapPropagator(ps...), nil
}
