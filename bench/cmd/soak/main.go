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
//	go -C bench test ./cmd/soak                  # the short modes (about 60 s each, a dozen servers; the cluster's)
//	go -C bench run ./cmd/soak -cluster 3 [-duration 15m] [-quiet 1m] [-callers 40] [-seed N] [-history dir]
//
// With -cluster N it is the cluster soak instead (cluster_run.go): an
// embedded etcd and N members of supervisor/cluster as processes, a fleet
// of test servers configured on the cluster, callers on every member
// through member.Exposed(), and faults on members, etcd and servers; its
// checks (cluster_checks.go) add fencing, judged from the servers' own
// request logs.
//
// The verdict is the exit status: 0 when every check passed; 1 when a
// check failed (or the run could not be made); 3 when no check failed but
// isolation could not be judged, because the control probe says the
// machine was starved in more than half of the windows (isolation.go):
// inconclusive, neither a pass nor a failure of the runtime.
// docs/reliability.md and its charts are written by a passing run, and by
// an inconclusive one, labelled so, unless the page shows a passing run;
// never by a failed one. -docs "" writes nothing.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

func main() {
	// The fleet's stdio servers are this binary re-executed: the test
	// server, the fast server.
	measure.RunStdioServerIfChild()
	runProbeIfChild()
	// The cluster soak's etcd, members and logging servers.
	runClusterChildIfAsked()

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
	flag.BoolVar(&cfg.diag, "diag", false, "with -history: write diagnostics beside the history (a line a second of CPU, scheduler latency, GC, the control probe, a second probe in a process of its own; the fault log)")
	flag.StringVar(&cfg.profiles, "profiles", "", "write a CPU profile of the soak process per isolation window into this directory")
	members := flag.Int("cluster", 0, "run the cluster soak instead: this many members as processes over an embedded etcd (cluster_run.go); -duration, -quiet, -callers (per member), -seed, -history apply, the rest are the single-machine soak's")
	flag.Parse()
	if *members > 0 {
		os.Exit(mainCluster(*members, cfg.seed, cfg.historyDir))
	}
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
	v := rep.verdict()
	if v == verdictFail {
		fmt.Fprintln(os.Stderr, "soak: FAILED:", rep.failures())
		os.Exit(1)
	}
	if v == verdictInconclusive {
		fmt.Fprintln(os.Stderr, "soak: INCONCLUSIVE (no check failed; not a pass):", rep.failures())
	}
	if cfg.docs != "" {
		switch err := writePage(&cfg, rep); {
		case errors.Is(err, errPageShowsPass):
			fmt.Fprintln(os.Stderr, "soak: left", cfg.docs, "as it is:", err)
		case err != nil:
			fmt.Fprintln(os.Stderr, "soak: writing the page:", err)
			os.Exit(1)
		default:
			fmt.Fprintln(os.Stderr, "soak: wrote", cfg.docs)
		}
	}
	if v == verdictInconclusive {
		os.Exit(exitInconclusive)
	}
}

// exitInconclusive is the exit status of an inconclusive run: apart from
// 1 (a failure) and 2 (the flag package's usage errors).
const exitInconclusive = 3

// mainCluster runs the cluster soak: -duration as given, 15 minutes by
// default (the single-machine soak's 30 minutes otherwise).
func mainCluster(members int, seed int64, history string) int {
	cfg := longClusterConfig()
	cfg.members, cfg.seed, cfg.historyDir, cfg.log = members, seed, history, os.Stderr
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "duration":
			cfg.duration, _ = time.ParseDuration(f.Value.String())
		case "quiet":
			cfg.quiet, _ = time.ParseDuration(f.Value.String())
		case "callers":
			cfg.callers, _ = strconv.Atoi(f.Value.String())
		}
	})
	rep, err := runCluster(&cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak -cluster:", err)
		return 1
	}
	fmt.Print(rep.summary())
	switch rep.verdict() {
	case verdictFail:
		fmt.Fprintln(os.Stderr, "soak -cluster: FAILED:", rep.failures())
		return 1
	case verdictInconclusive:
		fmt.Fprintln(os.Stderr, "soak -cluster: INCONCLUSIVE (no check failed; not a pass):", rep.failures())
		return exitInconclusive
	}
	return 0
}
