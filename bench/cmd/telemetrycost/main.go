// Command telemetrycost measures what OpenTelemetry costs per tools/call in
// mcpactor: with telemetry switched off, with the default no-op global
// providers, and with the SDK recording every span (always sampled, batched
// to an exporter that drops them) and every metric (a manual reader).
//
//	go -C bench run ./cmd/telemetrycost
//
// Costs are per call, measured in the driver process: CPU time (user+sys,
// from getrusage), heap allocations and bytes (runtime.MemStats). The
// server is a separate process and is not counted.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/sourcegraph/conc"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/telemetry"
)

type mode struct {
	name  string
	setup func() (telemetry.Options, func())
}

var modes = []mode{
	{"off", func() (telemetry.Options, func()) { return telemetry.Options{Disabled: true}, func() {} }},
	{"no-op providers (default)", func() (telemetry.Options, func()) { return telemetry.Options{}, func() {} }},
	{"SDK recording every span", func() (telemetry.Options, func()) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
			sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		return telemetry.Options{
				TracerProvider: tp, MeterProvider: mp,
				Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
			}, func() {
				tp.Shutdown(context.Background())
				mp.Shutdown(context.Background())
			}
	}},
}

type sample struct{ cpu, allocs, bytes float64 }

func main() {
	testserver.RunIfChild()
	calls := flag.Int("calls", 20000, "calls per measurement")
	rounds := flag.Int("rounds", 5, "measurements per mode (medians are reported)")
	inflight := flag.Int("inflight", 16, "calls in flight")
	flag.Parse()

	results := map[string][]sample{}
	for r := range *rounds {
		for _, m := range modes { // interleaved, so machine noise hits all alike
			s, err := measure(m, *calls, *inflight)
			if err != nil {
				fmt.Fprintln(os.Stderr, "telemetrycost:", m.name, err)
				os.Exit(1)
			}
			results[m.name] = append(results[m.name], s)
			fmt.Fprintf(os.Stderr, "round %d %-28s cpu %6.2fµs allocs %5.1f bytes %6.0f\n", r+1, m.name, s.cpu, s.allocs, s.bytes)
		}
	}
	base := median(results[modes[0].name], func(s sample) float64 { return s.cpu })
	var b strings.Builder
	fmt.Fprintf(&b, "| telemetry | client CPU/call | vs off | allocs/call | bytes/call |\n|---|---:|---:|---:|---:|\n")
	for _, m := range modes {
		ss := results[m.name]
		cpu := median(ss, func(s sample) float64 { return s.cpu })
		fmt.Fprintf(&b, "| %s | %.1f µs | %.2f× | %.0f | %.0f |\n", m.name, cpu, cpu/base,
			median(ss, func(s sample) float64 { return s.allocs }), median(ss, func(s sample) float64 { return s.bytes }))
	}
	fmt.Print(b.String())
}

func measure(m mode, calls, inflight int) (sample, error) {
	opts, stop := m.setup()
	defer stop()
	ctx := context.Background()
	rt, err := mcpactor.Start(ctx, mcpactor.Options{Telemetry: opts})
	if err != nil {
		return sample{}, err
	}
	defer rt.Stop(ctx)
	path, args, env := testserver.Command(testserver.Options{})
	envMap := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envMap[k] = v
	}
	c, err := rt.Connect(ctx, "bench", mcpactor.ServerConfig{Command: path, Args: args, Env: envMap})
	if err != nil {
		return sample{}, err
	}
	defer c.Close(ctx)
	run := func(n int) error {
		per := n / inflight
		var wg conc.WaitGroup
		errs := make([]error, inflight)
		for w := range inflight {
			wg.Go(func() {
				args := map[string]any{"message": "hello"}
				for range per {
					if _, err := c.CallTool(ctx, "echo", args); err != nil {
						errs[w] = err
						return
					}
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := run(2000); err != nil { // warm up
		return sample{}, err
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	if err := run(calls); err != nil {
		return sample{}, err
	}
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&after)
	n := float64(calls / inflight * inflight)
	return sample{
		cpu:    float64(cpu.Microseconds()) / n,
		allocs: float64(after.Mallocs-before.Mallocs) / n,
		bytes:  float64(after.TotalAlloc-before.TotalAlloc) / n,
	}, nil
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ss []sample, f func(sample) float64) float64 {
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	slices.Sort(v)
	return v[len(v)/2]
}
