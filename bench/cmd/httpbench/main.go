// Command httpbench measures tools/call throughput and latency over
// Streamable HTTP for mcpactor, the other Go MCP clients
// (modelcontextprotocol/go-sdk and mark3labs/mcp-go) and a minimal
// hand-written net/http client, in the same run, against the same servers:
// bench/internal/fastserver over Streamable HTTP, a server whose own cost
// per call is small so that the clients' costs show (with sessions, and
// stateless, where every client speaks the 2026-07-28 revision), the
// go-sdk's own Streamable HTTP server (the same two ways) and mcpactor's
// test server in HTTP mode.
//
//	go -C bench run ./cmd/httpbench [-duration 2s] [-rounds 5] [-inflight 1,16,256]
//	    [-stateless-inflight 16] [-servers fast,gosdk,testserver,fast-stateless,gosdk-stateless]
//	    [-clients mcpactor,gosdk,mcpgo,wire] [-loads echo-unique]
//	    [-out file.md] [-json file.json] [-cpuprofile file]
//
// Each round runs every server and in-flight level; within a level every
// client in turn (the order rotates each round): start a server process,
// connect, warm up, measure for -duration with N goroutines each looping
// on CallTool with the load's calls (every answer checked), close, stop
// the server. The report gives the medians over rounds of calls/s, p50,
// p99, client CPU, allocations and bytes per call, and the ratios to the
// hand-written client.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

type config struct {
	measure.CallFlags
	statelessLvl []int
	servers      []string
	noise        measure.Noise
}

func main() {
	runIfChild()

	var cfg config
	var stateless, servers string
	cfg.Register(flag.CommandLine, clientOrder, 2*time.Second, "the mcpactor client's first measurement against the first of -servers at 16 in flight (or the highest level)")
	flag.StringVar(&stateless, "stateless-inflight", "16", "the in-flight levels for the stateless servers (fast-stateless, gosdk-stateless)")
	flag.StringVar(&servers, "servers", strings.Join(serverOrder, ","), "comma-separated servers: "+strings.Join(serverOrder, ","))
	cfg.noise.Flags(flag.CommandLine)
	flag.Parse()

	err := cfg.Check()
	if err == nil {
		cfg.statelessLvl, err = measure.Levels(stateless)
	}
	if err != nil {
		fatalf("%v", err)
	}
	if cfg.servers, err = measure.ParseList("server", servers, serverOrder); err != nil {
		fatalf("%v", err)
	}

	results := run(&cfg)
	if err := measure.WriteOutputs(render(&cfg, results), cfg.Out, resultsOf(&cfg, results), cfg.JSON); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "httpbench: "+format+"\n", args...)
	os.Exit(2)
}

// levelsOf are the in-flight levels a server is measured at.
func (cfg config) levelsOf(server string) []int {
	if statelessServer(server) {
		return cfg.statelessLvl
	}
	return cfg.InFlight
}

// clientOrder is every client, in the order of the report's rows.
var clientOrder = append(slices.Clone(measure.LibraryClients), measure.WireName)

// key identifies one cell of the report.
type key struct {
	server   string
	load     string
	client   string
	inflight int
}

func run(cfg *config) map[key][]measure.Sample {
	results := make(map[key][]measure.Sample)
	profileLevel := 16
	if !slices.Contains(cfg.InFlight, 16) {
		profileLevel = slices.Max(cfg.InFlight)
	}
	profiled := false
	for round := range cfg.Rounds {
		for _, srv := range cfg.servers {
			for _, load := range cfg.Loads {
				for _, n := range cfg.levelsOf(srv) {
					for i := range cfg.Clients {
						name := cfg.Clients[(i+round)%len(cfg.Clients)]
						profile := cfg.CPUProfile != "" && !profiled && name == "mcpactor" && srv == cfg.servers[0] && n == profileLevel
						label := fmt.Sprintf("round %d/%d  %-15s %-11s inflight %4d  %-9s", round+1, cfg.Rounds, srv, load.Name, n, name)
						s, others := measure.Measure(&cfg.noise, label, func(attempt int) measure.Sample {
							return measureOne(cfg, srv, load, name, n, profile && attempt == 0)
						})
						profiled = profiled || profile
						k := key{srv, load.Name, name, n}
						results[k] = append(results[k], s)
						fmt.Fprintln(os.Stderr, measure.Progress(label, s, others))
					}
				}
			}
		}
	}
	return results
}

// measureOne starts a server, connects one client, warms it up, measures
// it, closes it and stops the server.
func measureOne(cfg *config, srvKind string, load measure.Load, name string, n int, profile bool) measure.Sample {
	srv, err := startServer(srvKind)
	if err != nil {
		return measure.Sample{Errors: 1, FirstErr: "server: " + err.Error()}
	}
	defer func() {
		if err := srv.Stop(5 * time.Second); err != nil {
			fmt.Fprintf(os.Stderr, "  %s server stop: %v\n", srvKind, err)
		}
	}()
	spec := measure.CallSpec{Load: load, InFlight: n, Warmup: cfg.Warmup, Duration: cfg.Duration}
	if profile {
		spec.CPUProfile = cfg.CPUProfile
	}
	s, err := measure.DialAndMeasure(name, spec, func(ctx context.Context) (measure.Client, error) { return dialers[name](ctx, srv.url, n) })
	if err != nil {
		fatalf("cpuprofile: %v", err)
	}
	return s
}
