// Command telemetrycost measures what OpenTelemetry costs mcpactor per
// tools/call over stdio: with telemetry switched off, with the default
// no-op global providers, and with the SDK recording every span (always
// sampled, batched to an exporter that drops them) and every metric (a
// manual reader).
//
//	go -C bench run ./cmd/telemetrycost [-duration 2s] [-rounds 5] [-inflight 16,256]
//	    [-server fast] [-loads echo-fixed] [-out file.md] [-json file.json]
//
// Each round measures every mode in turn (the order rotates), as
// stdiobench measures a client: a runtime of its own with the mode's
// telemetry, a server process of its own, warm-up, then -duration of
// calls. Costs are per call, in the driver process: CPU time, heap
// allocations and bytes; the server's CPU is reported apart.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/bench/internal/measure"
	"github.com/mcpactor/mcpactor/telemetry"
)

// mode is one way of running mcpactor's telemetry.
type mode struct {
	name  string
	setup func() (telemetry.Options, func())
}

// The modes, by the names the report's rows use.
var modes = []mode{
	{"off", func() (telemetry.Options, func()) { return telemetry.Options{Disabled: true}, func() {} }},
	{"noop", func() (telemetry.Options, func()) { return telemetry.Options{}, func() {} }},
	{"recording", func() (telemetry.Options, func()) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
			sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		return telemetry.Options{
				TracerProvider: tp, MeterProvider: mp,
				Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
			}, func() {
				_ = tp.Shutdown(context.Background())
				_ = mp.Shutdown(context.Background())
			}
	}},
}

var modeDescs = map[string]string{
	"off":       "switched off (`telemetry.Options{Disabled: true}`)",
	"noop":      "the default: OpenTelemetry's global providers, no-op unless the program installs an SDK",
	"recording": "the SDK recording every span (always sampled, batched to an exporter that drops them) and every metric (a manual reader)",
}

func main() {
	measure.RunStdioServerIfChild()
	var cfg measure.CallFlags
	var server string
	names := []string{"off", "noop", "recording"}
	cfg.Register(flag.CommandLine, names, 2*time.Second, "the recording mode's first measurement")
	flag.StringVar(&server, "server", measure.ServerFast, "the stdio server")
	measure.SetDefault(flag.CommandLine, "inflight", "16,256")
	measure.SetDefault(flag.CommandLine, "loads", measure.EchoFixed.Name)
	flag.Parse()
	if err := cfg.Check(); err != nil {
		fatalf("%v", err)
	}
	srv := measure.StdioServerOf(server, "")
	type key struct {
		mode, load string
		n          int
	}
	results := map[key][]measure.Sample{}
	for round := range cfg.Rounds {
		for _, load := range cfg.Loads {
			for _, n := range cfg.InFlight {
				for i := range cfg.Clients {
					m := modeNamed(cfg.Clients[(i+round)%len(cfg.Clients)])
					s := measureMode(m, srv, measure.CallSpec{Load: load, InFlight: n, Warmup: cfg.Warmup, Duration: cfg.Duration})
					results[key{m.name, load.Name, n}] = append(results[key{m.name, load.Name, n}], s)
					fmt.Fprintln(os.Stderr, measure.Progress(fmt.Sprintf("round %d/%d  %-11s inflight %4d  %-9s", round+1, cfg.Rounds, load.Name, n, m.name), s, 0))
				}
			}
		}
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, "### mcpactor's telemetry modes over stdio: medians over %d rounds of %s (warm-up %s)\n\n", cfg.Rounds, cfg.Duration, cfg.Warmup)
	measure.WriteRunInfo(&b, "telemetrycost")
	fmt.Fprintf(&b, "- server: %s\n", measure.StdioServerDesc(server, "", "telemetrycost"))
	for _, name := range cfg.Clients {
		fmt.Fprintf(&b, "- %s: %s\n", name, modeDescs[name])
	}
	b.WriteString("\n| telemetry | load | in flight | calls/s | client CPU/call | vs off | allocs/call | bytes/call | status |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	var rs []measure.Result
	for _, load := range cfg.Loads {
		for _, n := range cfg.InFlight {
			off := measure.Summarize(results[key{"off", load.Name, n}])
			for _, name := range cfg.Clients {
				c := measure.Summarize(results[key{name, load.Name, n}])
				vs := "–"
				if off.CPU > 0 {
					vs = fmt.Sprintf("%.2f", float64(c.CPU)/float64(off.CPU))
				}
				status := "ok"
				if c.Flagged() {
					status = fmt.Sprintf("**FLAGGED**: %d errors, %d mismatches (%s)", c.Errors, c.Mismatches, measure.OneLine(c.FirstErr))
				}
				fmt.Fprintf(&b, "| %s | %s | %d | %.0f | %s | %s | %.1f | %s | %s |\n", name, load.Name, n, c.Rate, measure.Dur(c.CPU), vs, c.Allocs, measure.Bytes(c.Bytes), status)
				rs = append(rs, measure.NewResult("telemetrycost", server, load.Name, name, n, c))
			}
		}
	}
	b.WriteString("\n")
	if err := measure.WriteOutputs(b.String(), cfg.Out, rs, cfg.JSON); err != nil {
		fatalf("%v", err)
	}
}

func modeNamed(name string) mode {
	i := slices.IndexFunc(modes, func(m mode) bool { return m.name == name })
	return modes[i]
}

// measureMode measures mcpactor with the mode's telemetry.
func measureMode(m mode, srv measure.StdioServer, spec measure.CallSpec) measure.Sample {
	opts, stop := m.setup()
	defer stop()
	s, err := measure.DialAndMeasure(m.name, spec, func(ctx context.Context) (measure.Client, error) {
		return measure.DialMcpactorWith(ctx, mcpactor.Options{Telemetry: opts},
			mcpactor.ServerConfig{Command: srv.Path, Args: srv.Args, Env: srv.EnvMap})
	})
	if err != nil {
		fatalf("%v", err)
	}
	return s
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "telemetrycost: "+format+"\n", args...)
	os.Exit(2)
}
