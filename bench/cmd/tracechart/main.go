// Command tracechart draws a waterfall of the traces in a trace file,
// the JSON lines the demo writes with --trace FILE (the OpenTelemetry
// stdout exporter's format, telemetry/otelenv's TraceFile), as an SVG
// beside the docs, as the benchmark charts are drawn (bench/cmd/benchrun):
//
//	go run ./cmd/demo --trace /tmp/trace.jsonl
//	go -C bench run ./cmd/tracechart -trace /tmp/trace.jsonl \
//	    [-roots "demo gate,demo server-request"] [-children 16] \
//	    [-out ../docs/charts/trace-waterfall.svg]
//
// Each trace named in -roots (by its root span's name; the first of that
// name) gets a section with its own time axis: one row per span, depth
// first, CLIENT, SERVER and INTERNAL spans in their colours, spans whose
// status is Error in red, and the part of a CLIENT span before its first
// mcpactor.written event (the request waiting for its handshake or a
// slot, which mcp.client.operation.duration leaves out) lighter. A parent
// with more than -children children shows the first ones and a summary
// row for the rest. docs/telemetry.md shows the result.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// defaultRoots are the demo's steps the docs show: the manager bringing
// servers up (their handshakes and a call through the manager), a server
// request answered inside the call that caused it, a timeout and its
// notifications/cancelled, and a crash.
const defaultRoots = "demo gate,demo server-request,demo timeout,demo crash"

type config struct {
	trace, out, roots, title string
	children                 int
}

func main() {
	var cfg config
	flag.StringVar(&cfg.trace, "trace", "", "the trace file (JSON lines, the demo's --trace output)")
	flag.StringVar(&cfg.out, "out", filepath.Join("..", "docs", "charts", "trace-waterfall.svg"), "the SVG to write")
	flag.StringVar(&cfg.roots, "roots", defaultRoots, "comma-separated names of the root spans whose traces to draw, in order")
	flag.StringVar(&cfg.title, "title", "mcpactor demo: traces as recorded (go run ./cmd/demo --trace FILE)", "the chart's title")
	flag.IntVar(&cfg.children, "children", 16, "most children shown per span; the rest are summed in one row")
	flag.Parse()
	if err := run(&cfg); err != nil {
		fmt.Fprintln(os.Stderr, "tracechart:", err)
		os.Exit(1)
	}
}

func run(cfg *config) error {
	if cfg.trace == "" {
		return errors.New("-trace FILE is required (write one with: go run ./cmd/demo --trace FILE)")
	}
	if cfg.children < 2 {
		return errors.New("-children must be at least 2")
	}
	f, err := os.Open(cfg.trace)
	if err != nil {
		return err
	}
	defer f.Close()
	spans, err := readSpans(f)
	if err != nil {
		return fmt.Errorf("%s: %w", cfg.trace, err)
	}
	var names []string
	for _, n := range strings.Split(cfg.roots, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return errors.New("-roots names no trace")
	}
	picked, err := pick(roots(spans), names)
	if err != nil {
		return fmt.Errorf("%s: %w", cfg.trace, err)
	}
	svg := waterfall(cfg.title, picked, cfg.children)
	return os.WriteFile(cfg.out, []byte(svg), 0o644)
}
