// Command stdiobench measures tools/call throughput, latency, client CPU
// and allocations over stdio for mcpactor, the other Go MCP clients
// (modelcontextprotocol/go-sdk and mark3labs/mcp-go) and two hand-written
// references (package refclient: the blocking-API limit and the
// event-loop limit), in the same run, against the same servers: a fast
// server that writes each answer on its own (package fastserver),
// mcpactor's test server, which batches its answers, the go-sdk's own
// stdio server, whose server/discover offers the 2026-07-28 revision, and
// the fast server offering that revision too (fast-2026), with which every
// client speaks it, the references included.
//
//	go -C bench run ./cmd/stdiobench [-duration 3s] [-rounds 5] [-inflight 1,16,256]
//	    [-servers fast,testserver,gosdk,fast-2026] [-clients mcpactor,gosdk,mcpgo,blocking,eventloop]
//	    [-loads echo-unique,echo-fixed,big-65536] [-out file.md] [-json file.json]
//	    [-cpuprofile file]
//
// Each round runs every server, load and in-flight level; within a level
// every client in turn (the order rotates each round, so that machine
// noise hits all alike): start its server, connect, warm up, measure for
// -duration with N goroutines each looping on CallTool (the event-loop
// reference keeps N calls outstanding itself), close. The report gives,
// per server, load, client and level, the medians over rounds of calls/s,
// p50, p99, client CPU, allocations and bytes per call, the server's CPU
// per call, the protocol version the client negotiated, and the ratios
// to the references and (for mcpactor) to the best peer library.
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
	serverPath string
	servers    []string
	// others is the share of the machine's CPU that other processes used
	// during each measurement, for the report: stdiobench repeats none.
	others []float64
}

func main() {
	// When re-executed as a benchmark server, serve and exit.
	measure.RunStdioServerIfChild()

	var cfg config
	var servers string
	cfg.Register(flag.CommandLine, measure.StdioClients, 3*time.Second, "the mcpactor client's first measurement against the first of -servers at the highest in-flight level")
	flag.StringVar(&cfg.serverPath, "server", "", "the test server's binary (default: this program re-executed as mcpactor's test server)")
	flag.StringVar(&servers, "servers", strings.Join(measure.StdioServers, ","), "comma-separated servers: "+strings.Join(measure.StdioServers, ","))
	flag.Parse()
	if err := cfg.Check(); err != nil {
		fatalf("%v", err)
	}
	var err error
	if cfg.servers, err = measure.ParseList("server", servers, measure.StdioServers); err != nil {
		fatalf("%v", err)
	}

	results := run(&cfg)
	if err := measure.WriteOutputs(render(&cfg, results), cfg.Out, resultsOf(&cfg, results), cfg.JSON); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "stdiobench: "+format+"\n", args...)
	os.Exit(2)
}

// key identifies one cell of the report.
type key struct {
	server   string
	load     string
	client   string
	inflight int
}

func run(cfg *config) map[key][]measure.Sample {
	results := make(map[key][]measure.Sample)
	profiled := false
	maxLevel := slices.Max(cfg.InFlight)
	// Never repeated (so that a run measures what it always did); the
	// others' share is only reported.
	noise := measure.Noise{MaxOthers: 1}
	for round := range cfg.Rounds {
		for _, srvKind := range cfg.servers {
			srv := measure.StdioServerOf(srvKind, cfg.serverPath)
			for _, load := range cfg.Loads {
				for _, n := range cfg.InFlight {
					for i := range cfg.Clients {
						name := cfg.Clients[(i+round)%len(cfg.Clients)]
						profile := cfg.CPUProfile != "" && !profiled && name == measure.OursName && srvKind == cfg.servers[0] && n == maxLevel
						s, others := measure.Measure(&noise, "", func(int) measure.Sample { return measureOne(cfg, srv, load, name, n, profile) })
						profiled = profiled || profile
						cfg.others = append(cfg.others, others)
						k := key{srvKind, load.Name, name, n}
						results[k] = append(results[k], s)
						label := fmt.Sprintf("round %d/%d  %-10s %-11s inflight %4d  %-9s", round+1, cfg.Rounds, srvKind, load.Name, n, name)
						fmt.Fprintln(os.Stderr, measure.Progress(label, s, others))
					}
				}
			}
		}
	}
	return results
}

// measureOne connects one client (which starts its server), warms it up,
// measures it and closes it.
func measureOne(cfg *config, srv measure.StdioServer, load measure.Load, name string, n int, profile bool) measure.Sample {
	spec := measure.CallSpec{Load: load, InFlight: n, Warmup: cfg.Warmup, Duration: cfg.Duration}
	if profile {
		spec.CPUProfile = cfg.CPUProfile
	}
	if name == measure.EventLoopName {
		return measureEventLoop(srv, spec)
	}
	s, err := measure.DialAndMeasure(name, spec, func(ctx context.Context) (measure.Client, error) { return measure.DialStdio(ctx, name, srv) })
	if err != nil {
		fatalf("cpuprofile: %v", err)
	}
	return s
}
