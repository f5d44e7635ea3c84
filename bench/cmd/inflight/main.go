// Command inflight measures what a client needs to hold many calls in
// flight on one stdio connection: 1,000 and then 10,000 calls of a tool
// that answers after 1 s (sleep), all started at once, for mcpactor, the
// other Go MCP clients and the two references (package refclient). It
// reports the time until the last answer and the process's peak RSS, and
// from them the memory per in-flight call: the growth of the peak RSS
// between 1,000 and 10,000 calls in flight, divided by 9,000 (the callers'
// goroutines included, as for every client).
//
//	go -C bench run ./cmd/inflight [-rounds 3] [-levels 1000,10000] [-ms 1000]
//	    [-server fast] [-clients mcpactor,gosdk,mcpgo,blocking,eventloop]
//	    [-out file.md] [-json file.json]
//	go -C bench run ./cmd/inflight -idle [-rounds 3] [-ms 0] [-clients ...]
//
// Each measurement runs in a process of its own (this program
// re-executed), so that one client's peak RSS is not another's: it
// starts its server, connects, makes one call to warm up, starts the
// calls (one goroutine each; the event-loop reference sends them all from
// its own loop), waits for every answer, and prints what it measured.
//
// With -idle it measures instead what each client holds at rest: the
// resident memory of a process connected to one stdio server, after one
// call, next to a process that connects nothing (every client is linked
// into this binary, so every process pays for the package initialisation
// of all of them).
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

type config struct {
	rounds  int
	levels  []int
	ms      int
	server  string
	clients []string
	out     string
	json    string
	idle    bool
}

func main() {
	measure.RunStdioServerIfChild()
	runIfChild()

	var cfg config
	var levels, clients string
	flag.IntVar(&cfg.rounds, "rounds", 3, "rounds; the report gives medians over rounds")
	flag.StringVar(&levels, "levels", "1000,10000", "comma-separated numbers of calls in flight; memory per call is between the first and the last")
	flag.IntVar(&cfg.ms, "ms", 1000, "how long the tool takes to answer, in milliseconds")
	flag.StringVar(&cfg.server, "server", measure.ServerFast, "the stdio server: "+strings.Join(measure.StdioServers, ","))
	flag.StringVar(&clients, "clients", strings.Join(measure.StdioClients, ","), "comma-separated clients")
	flag.StringVar(&cfg.out, "out", "", "also write the markdown report to this file")
	flag.StringVar(&cfg.json, "json", "", "also write the results to this file as JSON (for cmd/benchrun)")
	flag.BoolVar(&cfg.idle, "idle", false, "measure instead the resident memory of each client connected to one server, after one call of the tool (-levels is not used)")
	flag.Parse()

	var err error
	if cfg.levels, err = measure.Levels(levels); err != nil {
		fatalf("%v", err)
	}
	if !slices.Contains(measure.StdioServers, cfg.server) {
		fatalf("unknown server %q", cfg.server)
	}
	if cfg.clients, err = measure.ParseList("client", clients, measure.StdioClients); err != nil {
		fatalf("%v", err)
	}
	if cfg.rounds < 1 || cfg.ms < 0 {
		fatalf("-rounds must be positive and -ms not negative")
	}

	if cfg.idle {
		report, results := runIdle(&cfg)
		if err := measure.WriteOutputs(report, cfg.out, results, cfg.json); err != nil {
			fatalf("%v", err)
		}
		return
	}
	results := run(&cfg)
	if err := measure.WriteOutputs(render(&cfg, results), cfg.out, resultsOf(&cfg, results), cfg.json); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "inflight: "+format+"\n", args...)
	os.Exit(2)
}

// key identifies one cell of the report.
type key struct {
	client string
	n      int
}

func run(cfg *config) map[key][]sample {
	results := make(map[key][]sample)
	for round := range cfg.rounds {
		for _, n := range cfg.levels {
			for i := range cfg.clients {
				name := cfg.clients[(i+round)%len(cfg.clients)]
				s := measureInChild(cfg, name, n)
				results[key{name, n}] = append(results[key{name, n}], s)
				fmt.Fprintf(os.Stderr, "round %d/%d  inflight %5d  %-9s  %s\n", round+1, cfg.rounds, n, name, s)
			}
		}
	}
	return results
}
