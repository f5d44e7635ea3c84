// Command tracechart draws a waterfall of the traces in trace files, the
// JSON lines the demo writes with --trace FILE (the OpenTelemetry stdout
// exporter's format, telemetry/otelenv's TraceFile), as an SVG beside the
// docs, as the benchmark charts are drawn (bench/cmd/benchrun):
//
//	go run ./cmd/demo --restart --trace /tmp/trace.jsonl
//	go run ./cmd/demo --cluster 3 --trace /tmp/cluster.jsonl
//	go -C bench run ./cmd/tracechart -trace '/tmp/trace.jsonl,/tmp/cluster.jsonl*' \
//	    [-roots "demo server-request,mcpactor.connect[mcpactor.task.reason=restart]"] \
//	    [-children 16] [-out ../docs/charts/trace-waterfall.svg]
//
// -trace takes several files, comma-separated, each a glob pattern: a
// cluster run writes its caller's spans to FILE and each member's to
// FILE.member-N, and a trace crossing members is put together from all of
// them (a span whose parent is in another file is linked to it).
//
// Each trace named in -roots (by its root span's name, optionally with
// [key=value] to match one of its attributes; the first such root) gets a
// section with its own time axis: one row per span, depth first, labelled
// with its name and key attributes (the server, a connection's reason, a
// hop's members) and its kind, CLIENT, SERVER and INTERNAL spans in their
// colours, spans whose status is Error in red, and the part of a CLIENT
// span before its first mcpactor.written event (the request waiting for
// its handshake or a slot, which mcp.client.operation.duration leaves out)
// lighter. A parent with more than -children children shows the first
// ones and a summary row for the rest. docs/telemetry.md shows the result.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// defaultRoots are the traces the docs show: a call through the manager
// (with the server's request answered inside it), a managed server killed
// (demo --restart), the manager's restart of it (its own trace, under the
// connection's mcpactor.connect span), and the first calls of a cluster
// (demo --cluster N), which cross members.
const defaultRoots = "demo server-request,demo restart,mcpactor.connect[mcpactor.task.reason=restart],demo cluster first calls"

type config struct {
	trace, out, roots, title string
	children                 int
}

func main() {
	var cfg config
	flag.StringVar(&cfg.trace, "trace", "", "the trace files, comma-separated glob patterns (JSON lines, the demo's --trace output: FILE, and FILE.member-N with --cluster)")
	flag.StringVar(&cfg.out, "out", filepath.Join("..", "docs", "charts", "trace-waterfall.svg"), "the SVG to write")
	flag.StringVar(&cfg.roots, "roots", defaultRoots, "comma-separated names of the root spans whose traces to draw, in order; name[key=value] also matches an attribute")
	flag.StringVar(&cfg.title, "title", "mcpactor demo: traces as recorded (go run ./cmd/demo --restart / --cluster 3 --trace FILE)", "the chart's title")
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
	files, err := traceFiles(cfg.trace)
	if err != nil {
		return err
	}
	var spans []*span
	for _, file := range files {
		got, err := readFile(file)
		if err != nil {
			return err
		}
		spans = append(spans, got...)
	}
	var sels []selector
	for _, n := range strings.Split(cfg.roots, ",") {
		if n = strings.TrimSpace(n); n != "" {
			sel, err := parseSelector(n)
			if err != nil {
				return err
			}
			sels = append(sels, sel)
		}
	}
	if len(sels) == 0 {
		return errors.New("-roots names no trace")
	}
	picked, err := pick(roots(spans), sels)
	if err != nil {
		return fmt.Errorf("%s: %w", cfg.trace, err)
	}
	svg := waterfall(cfg.title, picked, cfg.children)
	return os.WriteFile(cfg.out, []byte(svg), 0o644)
}

// traceFiles expands -trace: comma-separated glob patterns, each matching
// at least one file.
func traceFiles(list string) ([]string, error) {
	var files []string
	for _, pat := range strings.Split(list, ",") {
		if pat = strings.TrimSpace(pat); pat == "" {
			continue
		}
		m, err := filepath.Glob(pat)
		if err != nil {
			return nil, fmt.Errorf("-trace %q: %w", pat, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("-trace %q: %w", pat, os.ErrNotExist)
		}
		files = append(files, m...)
	}
	return files, nil
}

func readFile(file string) ([]*span, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	spans, err := readSpans(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return spans, nil
}
