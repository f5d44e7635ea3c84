// Command benchrun is the benchmark suite's one runner: it builds the
// harnesses of bench/cmd, runs each of its steps (steps.go), and writes
// every table and chart of docs/benchmarks.md from what they measured:
// each step's report between the page's markers of that step, the
// targets of the hot path against the references, and SVG charts
// (throughput against calls in flight, CPU per call, memory per in-flight
// call). The prose between the markers stays as it is.
//
//	make bench                     # = go -C bench run ./cmd/benchrun
//	go -C bench run ./cmd/benchrun [-only stdio-echo,inflight] [-smoke]
//	    [-docs ../docs/benchmarks.md] [-charts ../docs/charts] [-keep dir]
//	go -C bench run ./cmd/benchrun -judge
//
// -judge runs nothing: it judges the targets and draws the charts again
// from the results saved beside the charts (after a change of the
// targets), and leaves every step's block as it is.
//
// -smoke makes every measurement short and writes nowhere unless -docs
// says where: it checks that every driver completes without errors, and
// asserts nothing about speed (make test runs it). A step that fails, or
// whose results count an error, fails the run; the page is then left as
// it was.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

type config struct {
	smoke  bool
	rounds int // when > 0, every step's -rounds
	only   []string
	docs   string
	charts string
	keep   string
	judge  bool
}

func main() {
	var cfg config
	var only string
	flag.BoolVar(&cfg.smoke, "smoke", false, "short measurements, no page written unless -docs is given: every driver must complete without errors")
	flag.StringVar(&only, "only", "", "comma-separated steps to run (the page's other blocks stay): "+strings.Join(stepNames(), ","))
	flag.StringVar(&cfg.docs, "docs", "", "the page to write (default ../docs/benchmarks.md, or nothing with -smoke)")
	flag.StringVar(&cfg.charts, "charts", "", "the directory of the charts (default: charts/ beside the page)")
	flag.StringVar(&cfg.keep, "keep", "", "keep each step's report and JSON in this directory")
	flag.BoolVar(&cfg.judge, "judge", false, "run no step: judge the targets and draw the charts again from the saved results")
	flag.IntVar(&cfg.rounds, "rounds", 0, "rounds of every step that has rounds (default: each step's own, steps.go)")
	flag.Parse()
	if only != "" {
		for _, s := range strings.Split(only, ",") {
			if s = strings.TrimSpace(s); !slices.Contains(stepNames(), s) {
				fatalf("unknown step %q (want some of %s)", s, strings.Join(stepNames(), ","))
			}
			cfg.only = append(cfg.only, s)
		}
	}
	if cfg.judge && (cfg.smoke || len(cfg.only) > 0) {
		fatalf("-judge runs no step: it takes neither -smoke nor -only")
	}
	if cfg.docs == "" && !cfg.smoke {
		cfg.docs = filepath.Join("..", "docs", "benchmarks.md")
	}
	if cfg.charts == "" && cfg.docs != "" {
		cfg.charts = filepath.Join(filepath.Dir(cfg.docs), "charts")
	}
	if err := run(&cfg, os.Stderr); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchrun: "+format+"\n", args...)
	os.Exit(1)
}

func stepNames() []string {
	var names []string
	for _, s := range steps {
		names = append(names, s.name)
	}
	return names
}

// output is what one step produced.
type output struct {
	report  string
	results []measure.Result
}

// run builds the harnesses, runs the steps and writes the page.
func run(cfg *config, log *os.File) error {
	dir := cfg.keep
	if dir == "" {
		tmp, err := os.MkdirTemp("", "benchrun-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	var todo []step
	for _, s := range steps {
		if !cfg.judge && (len(cfg.only) == 0 || slices.Contains(cfg.only, s.name)) {
			todo = append(todo, s)
		}
	}
	bins := map[string]string{}
	for _, s := range todo {
		if bins[s.program] != "" {
			continue
		}
		bin := filepath.Join(dir, s.program)
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/"+s.program)
		cmd.Dir, cmd.Stdout, cmd.Stderr = root, log, log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building %s: %w", s.program, err)
		}
		bins[s.program] = bin
	}

	outs := map[string]output{}
	var failed []error
	for _, s := range todo {
		args := s.full
		if cfg.smoke {
			args = s.smoke
		}
		if cfg.rounds > 0 {
			args = withRounds(args, cfg.rounds)
		}
		fmt.Fprintf(log, "benchrun: %s: %s %s\n", s.name, s.program, strings.Join(args, " "))
		t0 := time.Now()
		o, err := runStep(bins[s.program], dir, s.name, args, log)
		fmt.Fprintf(log, "benchrun: %s: done in %s\n", s.name, time.Since(t0).Round(time.Second))
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", s.name, err))
			continue
		}
		outs[s.name] = o
	}
	if len(failed) > 0 {
		return errors.Join(failed...)
	}
	if cfg.docs == "" {
		return nil
	}
	return writePage(cfg, outs, args(cfg))
}

// withRounds is args with -rounds n.
func withRounds(args []string, n int) []string {
	out := slices.Clone(args)
	for i := 0; i+1 < len(out); i++ {
		if out[i] == "-rounds" {
			out[i+1] = strconv.Itoa(n)
			return out
		}
	}
	return out
}

// args is how the runner was run, for the page.
func args(cfg *config) string {
	a := "go -C bench run ./cmd/benchrun"
	if cfg.rounds > 0 {
		a += " -rounds " + strconv.Itoa(cfg.rounds)
	}
	if len(cfg.only) > 0 {
		a += " -only " + strings.Join(cfg.only, ",")
	}
	if cfg.smoke {
		a += " -smoke"
	}
	return a
}

// runStep runs one harness with its report and results written into dir,
// and checks that it counted no error.
func runStep(bin, dir, name string, args []string, log *os.File) (output, error) {
	md, js := filepath.Join(dir, name+".md"), filepath.Join(dir, name+".json")
	cmd := exec.Command(bin, append(slices.Clone(args), "-out", md, "-json", js)...)
	// The report also goes to stdout; the file is what counts.
	cmd.Stdout, cmd.Stderr = nil, log
	if err := cmd.Run(); err != nil {
		return output{}, err
	}
	report, err := os.ReadFile(md)
	if err != nil {
		return output{}, err
	}
	results, err := measure.ReadResults(js)
	if err != nil {
		return output{}, err
	}
	if len(results) == 0 {
		return output{}, fmt.Errorf("no results")
	}
	for _, r := range results {
		if r.Errors > 0 {
			return output{}, fmt.Errorf("%s against %s (%s, %d in flight): %d errors; see its report in %s", r.Client, r.Server, r.Load, r.InFlight, r.Errors, md)
		}
		// A measurement of memory alone (at rest) has neither a rate nor
		// a latency, only its named numbers.
		if r.Rate == 0 && r.P50 == 0 && len(r.Extra) == 0 {
			return output{}, fmt.Errorf("%s against %s (%s, %d in flight): nothing measured", r.Client, r.Server, r.Load, r.InFlight)
		}
	}
	return output{report: string(report), results: results}, nil
}

// moduleRoot is the bench module's directory: the nearest directory up
// from here with a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory: run benchrun in the bench module")
		}
		dir = parent
	}
}
