// Command scale measures one runtime at the scale a backend with many
// users meets: many stdio servers under one Manager, and many Streamable
// HTTP sessions to one server, one per identity. For each scenario it
// measures the bring-up time, the resident memory per session (or per
// server) and, where the scenario makes calls, calls/s with the calls
// spread over every session, for mcpactor beside each peer holding the
// same sessions (modelcontextprotocol/go-sdk and mark3labs/mcp-go) and a
// hand-written client.
//
//	go -C bench run ./cmd/scale [-scenarios rest,stdio,http]
//	    [-rest-servers 100] [-stdio-servers 500] [-http-sessions 1000]
//	    [-parallel 0] [-inflight 256] [-rounds 3] [-duration 2s]
//	    [-clients mcpactor,gosdk,mcpgo,blocking,wire]
//	    [-out file.md] [-json file.json]
//
// The scenarios:
//
//   - rest: -rest-servers stdio servers (the fast server) at rest:
//     mcpactor's Manager beside each peer holding as many sessions, and
//     the blocking-API reference (bench/internal/refclient);
//   - stdio: -stdio-servers of them under one Manager, then calls spread
//     over all of them;
//   - http: -http-sessions Streamable HTTP sessions to mcpactor's test
//     server (a process of its own), one per identity
//     (ServerConfig.Identity; the peers and the hand-written net/http
//     client one session each), then calls spread over all of them.
//
// Each measurement is a process of its own (this program re-executed), so
// that the resident memory it reads is one client's alone: it reads its
// memory, brings up the sessions (a session is up once it has answered
// an echo call), rests, reads its memory again, spreads calls over the
// sessions, closes everything and prints its result as one JSON line.
// Rounds are interleaved: each round measures every client once, in an
// order that rotates from round to round; the report gives medians over
// rounds.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

type config struct {
	scenarios  []string
	sessions   map[string]int // by scenario
	clients    []string       // "" filter: every scenario's own
	parallel   int
	inflight   int
	rounds     int
	duration   time.Duration
	warmup     time.Duration
	rest       time.Duration
	timeout    time.Duration
	serverPath string
	out, json  string
	noise      measure.Noise
}

func main() {
	runIfChild()

	cfg := config{sessions: map[string]int{}}
	var scens, clients string
	var rest, stdio, httpN int
	flag.StringVar(&scens, "scenarios", strings.Join(scenarioNames(), ","), "comma-separated scenarios: "+strings.Join(scenarioNames(), ","))
	flag.IntVar(&rest, "rest-servers", 100, "stdio servers of the rest scenario")
	flag.IntVar(&stdio, "stdio-servers", 500, "stdio servers of the stdio scenario")
	flag.IntVar(&httpN, "http-sessions", 1000, "Streamable HTTP sessions (identities) of the http scenario")
	flag.StringVar(&clients, "clients", "", "comma-separated clients (default: every scenario's): mcpactor,gosdk,mcpgo,"+measure.BlockingName+","+measure.WireName)
	flag.IntVar(&cfg.parallel, "parallel", 0, "sessions brought up at once, for every client alike (mcpactor's Manager: ManageOptions.MaxConnecting); 0: all at once")
	flag.IntVar(&cfg.inflight, "inflight", 256, "calls in flight, spread over every session")
	flag.IntVar(&cfg.rounds, "rounds", 3, "rounds; the report gives medians over rounds")
	flag.DurationVar(&cfg.duration, "duration", 2*time.Second, "measured calls per measurement")
	flag.DurationVar(&cfg.warmup, "warmup", 500*time.Millisecond, "calls before the measured ones")
	flag.DurationVar(&cfg.rest, "rest", time.Second, "rest after the bring-up before VmRSS is read")
	flag.DurationVar(&cfg.timeout, "timeout", 5*time.Minute, "bound on one bring-up")
	flag.StringVar(&cfg.serverPath, "server", "auto", "the fast server's binary: a path; auto builds bench/cmd/fastserver (go build) into a temporary directory, falling back to self; self re-executes this program as the fast server")
	flag.StringVar(&cfg.out, "out", "", "also write the markdown report to this file")
	flag.StringVar(&cfg.json, "json", "", "also write the results to this file as JSON (for cmd/benchrun)")
	cfg.noise.Flags(flag.CommandLine)
	flag.Parse()

	for s := range strings.SplitSeq(scens, ",") {
		s = strings.TrimSpace(s)
		if _, ok := scenarioByName(s); !ok {
			fatalf("unknown scenario %q (want some of %s)", s, strings.Join(scenarioNames(), ","))
		}
		cfg.scenarios = append(cfg.scenarios, s)
	}
	cfg.sessions[scenarioRest], cfg.sessions[scenarioStdio], cfg.sessions[scenarioHTTP] = rest, stdio, httpN
	if clients != "" {
		for c := range strings.SplitSeq(clients, ",") {
			cfg.clients = append(cfg.clients, strings.TrimSpace(c))
		}
	}
	if cfg.rounds < 1 || rest < 1 || stdio < 1 || httpN < 1 || cfg.inflight < 1 {
		fatalf("-rounds, -inflight and the session counts must be positive")
	}

	// bench/cmd/fastserver is much smaller than this program (no client
	// libraries), so that hundreds of servers start quickly and hold little.
	serverPath, note, cleanup := measure.ServerBinary("scale", cfg.serverPath, "fastserver", "fast server")
	defer cleanup()
	cfg.serverPath = serverPath

	results := run(&cfg)
	if err := measure.WriteOutputs(render(&cfg, results, note), cfg.out, resultsOf(&cfg, results), cfg.json); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "scale: "+format+"\n", args...)
	os.Exit(2)
}

// clientsOf are the clients measured in scenario sc: its own, filtered by
// -clients.
func (cfg *config) clientsOf(sc scenario) []string {
	if len(cfg.clients) == 0 {
		return sc.clients
	}
	var cs []string
	for _, c := range sc.clients {
		if slices.Contains(cfg.clients, c) {
			cs = append(cs, c)
		}
	}
	return cs
}

// specOf is the measurement of client in scenario sc.
func (cfg *config) specOf(sc scenario, client string) spec {
	sp := spec{Scenario: sc.name, Client: client, Sessions: cfg.sessions[sc.name], Parallel: cfg.parallel,
		InFlight: cfg.inflight, Rest: cfg.rest, Timeout: cfg.timeout}
	if sc.calls {
		sp.Warmup, sp.Duration = cfg.warmup, cfg.duration
	}
	if sc.server == serverFast {
		sp.ServerPath = cfg.serverPath
	}
	return sp
}

type key struct{ scenario, client string }

// run measures every scenario and client, rounds interleaved.
func run(cfg *config) map[key][]result {
	results := make(map[key][]result)
	for round := range cfg.rounds {
		for _, name := range cfg.scenarios {
			sc, _ := scenarioByName(name)
			cs := cfg.clientsOf(sc)
			for i := range cs {
				client := cs[(i+round)%len(cs)]
				sp := cfg.specOf(sc, client)
				label := fmt.Sprintf("round %d/%d  %-5s %5d sessions  %-9s", round+1, cfg.rounds, sc.name, sp.Sessions, client)
				r, others := measure.Measure(&cfg.noise, label, func(int) result { return measureInChild(sp) })
				results[key{sc.name, client}] = append(results[key{sc.name, client}], r)
				fmt.Fprintf(os.Stderr, "%s  up %9s  RSS at rest %7s/session  floor %7s/session  %8.0f calls/s  others %2.0f%%%s\n",
					label, measure.Dur(r.BringUp), measure.Bytes(perSession(float64(r.RSSRest), sp.Sessions)),
					measure.Bytes(perSession(float64(r.Floor), sp.Sessions)), r.Calls.Rate, 100*others, errorNote(r))
			}
		}
	}
	return results
}

func perSession(v float64, n int) float64 { return v / float64(max(n, 1)) }

func errorNote(r result) string {
	if r.Errors == 0 {
		return ""
	}
	return fmt.Sprintf("  errors=%d first: %s", r.Errors, measure.OneLine(r.FirstErr))
}
