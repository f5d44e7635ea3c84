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
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

type config struct {
	duration   time.Duration
	warmup     time.Duration
	rounds     int
	inflight   []int
	clients    []string
	out        string
	cpuprofile string
	serverPath string
}

func main() {
	// When re-executed as the benchmark server, serve and exit.
	testserver.RunIfChild()

	var cfg config
	var inflight, clients string
	flag.DurationVar(&cfg.duration, "duration", 3*time.Second, "measurement time per client, level and round")
	flag.DurationVar(&cfg.warmup, "warmup", 500*time.Millisecond, "warm-up time after connecting, not measured")
	flag.IntVar(&cfg.rounds, "rounds", 5, "rounds; the report gives medians over rounds")
	flag.StringVar(&inflight, "inflight", "1,16,256", "comma-separated calls in flight (one goroutine each)")
	flag.StringVar(&clients, "clients", strings.Join(clientOrder, ","), "comma-separated clients: "+strings.Join(clientOrder, ","))
	flag.StringVar(&cfg.out, "out", "", "also write the markdown report to this file")
	flag.StringVar(&cfg.cpuprofile, "cpuprofile", "", "write a CPU profile of the mcpactor client's first measurement at the highest in-flight level")
	flag.StringVar(&cfg.serverPath, "server", "", "server binary (default: this program re-executed as mcpactor's test server)")
	flag.Parse()

	for _, f := range strings.Split(inflight, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fatalf("bad -inflight entry %q", f)
		}
		cfg.inflight = append(cfg.inflight, n)
	}
	for _, c := range strings.Split(clients, ",") {
		c = strings.TrimSpace(c)
		if _, ok := dialers[c]; !ok {
			fatalf("unknown client %q (want some of %s)", c, strings.Join(clientOrder, ","))
		}
		cfg.clients = append(cfg.clients, c)
	}
	if cfg.rounds < 1 || cfg.duration <= 0 {
		fatalf("-rounds and -duration must be positive")
	}

	srv := benchServer(cfg.serverPath)
	results := run(cfg, srv)
	if err := measure.WriteReport(render(cfg, results), cfg.out); err != nil {
		fatalf("writing %s: %v", cfg.out, err)
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
	maxLevel := slices.Max(cfg.inflight)
	for round := range cfg.rounds {
		for _, n := range cfg.inflight {
			for i := range cfg.clients {
				name := cfg.clients[(i+round)%len(cfg.clients)]
				profile := cfg.cpuprofile != "" && !profiled && name == "mcpactor" && n == maxLevel
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
					round+1, cfg.rounds, n, name, s.Rate, measure.Dur(s.P50), measure.Dur(s.P99), flag)
			}
		}
	}
	return results
}

// measureOne connects one client, warms it up, measures it and closes it.
func measureOne(cfg config, srv measure.StdioServer, name string, n int, profile bool) measure.Sample {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	dctx, dcancel := context.WithTimeout(ctx, 30*time.Second)
	c, err := dialers[name](dctx, srv)
	dcancel()
	if err != nil {
		return measure.Sample{Errors: 1, FirstErr: "connect: " + err.Error()}
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		if err := c.Close(cctx); err != nil {
			// Reported, but not counted: some clients report the
			// server's exit on SIGTERM/close as an error.
			fmt.Fprintf(os.Stderr, "  %s close: %v\n", name, err)
		}
	}()

	// A watchdog: a client that stops answering fails its calls instead of
	// hanging the run.
	watchdog := time.AfterFunc(cfg.warmup+cfg.duration+60*time.Second, cancel)
	defer watchdog.Stop()

	spec := measure.CallSpec{InFlight: n, Warmup: cfg.warmup, Duration: cfg.duration}
	if profile {
		spec.CPUProfile = cfg.cpuprofile
	}
	s, err := measure.MeasureCalls(ctx, c, spec)
	if err != nil {
		fatalf("cpuprofile: %v", err)
	}
	return s
}

func render(cfg config, results map[key][]measure.Sample) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "### stdio tools/call echo: medians over %d rounds of %s (warm-up %s)\n\n", cfg.rounds, cfg.duration, cfg.warmup)
	measure.WriteRunInfo(&b, "stdiobench")
	fmt.Fprintf(&b, "- server: mcpactor's internal/testserver, default options, one process per client (%s)\n\n", serverDesc(cfg))
	t := measure.CallTable{
		Clients: cfg.clients, Levels: cfg.inflight, Reference: "wire", Ours: "mcpactor", Peers: peers,
		Cell: func(client string, n int) measure.Summary { return measure.Summarize(results[key{client, n}]) },
	}
	t.WriteNumbers(&b)
	fmt.Fprintf(&b, "\n**Ratios of calls/s**: ratio of the medians, and in brackets the median over rounds of the ratio within each round.\n\n")
	t.WriteRatios(&b)
	return b.String()
}

func serverDesc(cfg config) string {
	if cfg.serverPath != "" {
		return "`" + cfg.serverPath + "`"
	}
	return "the stdiobench binary itself, re-executed with MCPACTOR_TESTSERVER=1"
}
