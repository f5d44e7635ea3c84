// Command soak runs the runtime under everything at once for a long time:
// a fleet of MCP servers of mixed kinds under one Manager (Runtime.Manage),
// thousands of callers through it, and faults drawn at random (processes
// killed and stalled, servers that stop reading, garbage and oversized
// lines, HTTP servers restarted, 5xx bursts, connections reset, streams cut
// before their answer, answers slower than the timeout, tools/list_changed
// storms, servers added, removed and reloaded while called, the tool-list
// cache made unwritable). Every call is recorded (history.go), and the
// checks (checks.go) are computed from that history, the fault log and
// samples of the process, never from the runtime's own counters.
//
//	make soak                                    # = go -C bench run ./cmd/soak -duration 30m
//	go -C bench run ./cmd/soak [-duration 30m] [-callers 2000] [-faults 12]
//	    [-servers 50] [-docs ../docs/reliability.md] [-charts ../docs/charts]
//	go -C bench test ./cmd/soak                  # the short mode (about 60 s, a dozen servers)
//
// The run fails (exit status 1) when any check fails; docs/reliability.md
// and its charts are written only by a run that passes, so that the page
// always shows a passing run. -docs "" writes nothing.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

func main() {
	// The fleet's stdio servers are this binary re-executed: the test
	// server, the fast server.
	measure.RunStdioServerIfChild()
	runProbeIfChild()

	cfg := longConfig()
	flag.DurationVar(&cfg.duration, "duration", cfg.duration, "how long the load runs (faults start after the quiet baseline)")
	flag.DurationVar(&cfg.quiet, "quiet", cfg.quiet, "the quiet baseline at the start: load without faults")
	flag.IntVar(&cfg.callers, "callers", cfg.callers, "concurrent callers through the manager")
	flag.Float64Var(&cfg.faultsPerMin, "faults", cfg.faultsPerMin, "faults drawn per minute (Poisson)")
	flag.IntVar(&cfg.servers, "servers", cfg.servers, "servers in the fleet (at least 12)")
	flag.Int64Var(&cfg.seed, "seed", 0, "random seed (0: from the clock; the report prints it)")
	flag.StringVar(&cfg.docs, "docs", filepath.Join("..", "docs", "reliability.md"), "the page to write between its markers after a passing run (\"\": none)")
	flag.StringVar(&cfg.charts, "charts", "", "the directory of the charts (default: charts/ beside the page)")
	flag.StringVar(&cfg.historyDir, "history", "", "keep the call history and the fault log in this directory (default: a temporary one, removed)")
	flag.BoolVar(&cfg.diag, "diag", false, "with -history: write diagnostics beside the history (a line a second of CPU, scheduler latency, GC, a control probe outside the runtime; the fault log)")
	flag.StringVar(&cfg.profiles, "profiles", "", "write a CPU profile of the soak process per isolation window into this directory")
	flag.Parse()
	if cfg.charts == "" && cfg.docs != "" {
		cfg.charts = filepath.Join(filepath.Dir(cfg.docs), "charts")
	}
	cfg.log = os.Stderr
	rep, err := run(&cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	fmt.Print(rep.summary())
	if cfg.historyDir != "" {
		// Whatever the verdict, the whole report beside the history.
		if err := os.WriteFile(filepath.Join(cfg.historyDir, "report.md"), []byte(rep.markdown()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
		}
	}
	if !rep.passed() {
		fmt.Fprintln(os.Stderr, "soak: FAILED:", rep.failures())
		os.Exit(1)
	}
	if cfg.docs != "" {
		if err := writePage(&cfg, rep); err != nil {
			fmt.Fprintln(os.Stderr, "soak: writing the page:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "soak: wrote", cfg.docs)
	}
}
