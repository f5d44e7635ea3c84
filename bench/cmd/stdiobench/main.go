// Command stdiobench measures tools/call throughput and latency over stdio
// for mcpactor, the other Go MCP clients (modelcontextprotocol/go-sdk and
// mark3labs/mcp-go) and a minimal hand-written pipelined wire client, in the
// same run, against the same server binary (mcpactor's test server, run by
// re-executing this program unless -server names another binary).
//
//	go -C bench run ./cmd/stdiobench [-duration 3s] [-rounds 5] [-inflight 1,16,256]
//	    [-clients mcpactor,gosdk,mcpgo,wire] [-out file.md] [-cpuprofile file]
//
// Each round runs every in-flight level; within a level every client in
// turn (the order rotates each round, so that machine noise hits all
// alike): connect, warm up, measure for -duration with N goroutines each
// looping on CallTool, close. The report gives, per client and level, the
// medians over rounds of calls/s, p50 and p99, and the ratios to the wire
// client and (for mcpactor) to the best peer library.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

type config struct {
	measure.CallFlags
	serverPath string
}

func main() {
	// When re-executed as the benchmark server, serve and exit.
	testserver.RunIfChild()

	var cfg config
	cfg.Register(flag.CommandLine, 3*time.Second, "the mcpactor client's first measurement at the highest in-flight level")
	flag.StringVar(&cfg.serverPath, "server", "", "server binary (default: this program re-executed as mcpactor's test server)")
	flag.Parse()
	if err := cfg.Check(); err != nil {
		fatalf("%v", err)
	}

	srv := benchServer(cfg.serverPath)
	results := run(cfg, srv)
	if err := measure.WriteReport(render(cfg, results), cfg.Out); err != nil {
		fatalf("writing %s: %v", cfg.Out, err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "stdiobench: "+format+"\n", args...)
	os.Exit(2)
}

// benchServer is the one server every client starts: the test server with
// its default (well-behaved) options.
func benchServer(path string) measure.StdioServer {
	opts := testserver.Options{}
	if path != "" {
		return measure.NewStdioServer(path, opts.Args(), os.Environ())
	}
	return measure.NewStdioServer(testserver.Command(opts))
}

// key identifies one cell of the report.
type key struct {
	client   string
	inflight int
}

func run(cfg config, srv measure.StdioServer) map[key][]measure.Sample {
	results := make(map[key][]measure.Sample)
	profiled := false
	maxLevel := slices.Max(cfg.InFlight)
	for round := range cfg.Rounds {
		for _, n := range cfg.InFlight {
			for i := range cfg.Clients {
				name := cfg.Clients[(i+round)%len(cfg.Clients)]
				profile := cfg.CPUProfile != "" && !profiled && name == "mcpactor" && n == maxLevel
				s := measureOne(cfg, srv, name, n, profile)
				if profile {
					profiled = true
				}
				k := key{name, n}
				results[k] = append(results[k], s)
				flag := ""
				if s.Errors+s.Mismatches > 0 {
					flag = fmt.Sprintf("  errors=%d mismatches=%d first: %s", s.Errors, s.Mismatches, s.FirstErr)
				}
				fmt.Fprintf(os.Stderr, "round %d/%d  inflight %4d  %-9s %10.0f calls/s  p50 %9s  p99 %9s%s\n",
					round+1, cfg.Rounds, n, name, s.Rate, measure.Dur(s.P50), measure.Dur(s.P99), flag)
			}
		}
	}
	return results
}

// measureOne connects one client, warms it up, measures it and closes it.
func measureOne(cfg config, srv measure.StdioServer, name string, n int, profile bool) measure.Sample {
	spec := measure.CallSpec{InFlight: n, Warmup: cfg.Warmup, Duration: cfg.Duration}
	if profile {
		spec.CPUProfile = cfg.CPUProfile
	}
	s, err := measure.DialAndMeasure(name, spec, func(ctx context.Context) (measure.Client, error) { return dialers[name](ctx, srv) })
	if err != nil {
		fatalf("cpuprofile: %v", err)
	}
	return s
}
