// Command testreport reads `go test -json` output on stdin (from one or more
// go test runs, concatenated) and prints a short human-readable report: the
// output of every failing test, build failures, one line per package as it
// finishes, the list of failures, and a
// final line of the form
//
//	N passed, N failed
//
// It exits 1 if any test, fuzz target or package failed (build failures,
// panics, timeouts and TestMain failures included), or if a runner exited
// non-zero without a failure showing in the stream.
//
// Only top-level tests (and fuzz targets) are counted; a failing subtest
// fails its parent, which is counted once. A test reported by several runs
// in the stream is one item, passed only if no run failed it: `make test`
// runs each fuzz target twice, its seed corpus with `go test ./...` and then
// the fuzzing itself with -fuzz. A package that fails without a failing test
// in that run (it did not build, TestMain failed, a leak check failed)
// counts as one failure.
//
// Lines that are not JSON are passed through to stdout. The Makefile adds one
// synthetic event per runner that exits non-zero:
//
//	{"Action":"runner-exit","Package":"<what ran>","Output":"<exit code>"}
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string
	ImportPath  string
}

type testKey struct{ pkg, test string }

// outcome is what the runs in the stream said about one counted item: a
// top-level test or fuzz target, or a package that failed on its own.
type outcome struct{ passed, failed, skipped bool }

type report struct {
	w io.Writer

	testOut   map[testKey]*strings.Builder // output of running tests
	pkgOut    map[string]*strings.Builder  // package-level output
	buildOut  map[string]*strings.Builder  // build output by import path
	pkgFailed map[string]int               // failed top-level tests per package, in its current run

	items       map[string]*outcome // by "pkg.Test" or "pkg [package]"
	failures    []string            // items in the order they first failed
	runnerExits []string
	events      int
}

func newReport(w io.Writer) *report {
	return &report{
		w:         w,
		testOut:   map[testKey]*strings.Builder{},
		pkgOut:    map[string]*strings.Builder{},
		buildOut:  map[string]*strings.Builder{},
		pkgFailed: map[string]int{},
		items:     map[string]*outcome{},
	}
}

// item returns the outcome of the item called name, creating it.
func (r *report) item(name string) *outcome {
	o := r.items[name]
	if o == nil {
		o = &outcome{}
		r.items[name] = o
	}
	return o
}

// fail records a failure of the item called name; a second failure of the
// same item (the fuzzing run of a target whose seed corpus failed) is not
// listed again.
func (r *report) fail(name string) {
	o := r.item(name)
	if !o.failed {
		o.failed = true
		r.failures = append(r.failures, name)
	}
}

func appendTo[K comparable](m map[K]*strings.Builder, k K, s string) {
	b := m[k]
	if b == nil {
		b = &strings.Builder{}
		m[k] = b
	}
	b.WriteString(s)
}

func (r *report) line(raw []byte) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return
	}
	var e event
	if trimmed[0] != '{' || json.Unmarshal(trimmed, &e) != nil || e.Action == "" {
		fmt.Fprintf(r.w, "%s\n", trimmed)
		return
	}
	r.events++
	switch {
	case e.Action == "runner-exit":
		r.runnerExits = append(r.runnerExits, fmt.Sprintf("%s exited with status %s", e.Package, e.Output))
	case e.Action == "build-output":
		appendTo(r.buildOut, e.ImportPath, e.Output)
	case e.Action == "build-fail":
		// The package's own "fail" event (with FailedBuild) follows.
	case e.Test != "":
		r.testEvent(e)
	default:
		r.packageEvent(e)
	}
}

func (r *report) testEvent(e event) {
	k := testKey{e.Package, e.Test}
	top := !strings.Contains(e.Test, "/")
	switch e.Action {
	case "output":
		// A subtest's output also belongs to its top-level test's story.
		appendTo(r.testOut, k, e.Output)
		if !top {
			parent := testKey{e.Package, e.Test[:strings.Index(e.Test, "/")]}
			appendTo(r.testOut, parent, e.Output)
		}
	case "pass":
		if top {
			r.item(e.Package + "." + e.Test).passed = true
		}
		delete(r.testOut, k)
	case "skip":
		if top {
			r.item(e.Package + "." + e.Test).skipped = true
		}
		delete(r.testOut, k)
	case "fail":
		if top {
			r.pkgFailed[e.Package]++
			name := e.Package + "." + e.Test
			r.fail(name)
			fmt.Fprintf(r.w, "=== FAIL: %s (%.2fs)\n", name, e.Elapsed)
			if b := r.testOut[k]; b != nil {
				io.WriteString(r.w, indent(b.String()))
			}
		}
		delete(r.testOut, k)
	}
}

func (r *report) packageEvent(e event) {
	switch e.Action {
	case "start":
		// A new run of the package (the fuzzing runs follow `go test
		// ./...`): whether it fails on its own is judged afresh.
		delete(r.pkgFailed, e.Package)
	case "output":
		appendTo(r.pkgOut, e.Package, e.Output)
	case "pass":
		out := r.pkgOut[e.Package]
		if out != nil && strings.Contains(out.String(), "[no test files]") {
			fmt.Fprintf(r.w, "?    %s [no test files]\n", e.Package)
		} else {
			fmt.Fprintf(r.w, "ok   %s %.2fs\n", e.Package, e.Elapsed)
		}
		delete(r.pkgOut, e.Package)
	case "skip":
		fmt.Fprintf(r.w, "?    %s [no test files]\n", e.Package)
		delete(r.pkgOut, e.Package)
	case "fail":
		why := ""
		if e.FailedBuild != "" {
			why = " [build failed]"
			fmt.Fprintf(r.w, "=== BUILD FAIL: %s\n", e.Package)
			if b := r.buildOut[e.FailedBuild]; b != nil {
				io.WriteString(r.w, indent(b.String()))
			}
		}
		if r.pkgFailed[e.Package] == 0 {
			// Nothing counted this failure yet: a build failure, a panic
			// outside a test, TestMain or a leak check, a timeout.
			r.fail(e.Package + " [package]")
			if e.FailedBuild == "" {
				fmt.Fprintf(r.w, "=== PACKAGE FAIL: %s\n", e.Package)
				if b := r.pkgOut[e.Package]; b != nil {
					io.WriteString(r.w, indent(b.String()))
				}
			}
		}
		fmt.Fprintf(r.w, "FAIL %s%s %.2fs\n", e.Package, why, e.Elapsed)
		delete(r.pkgOut, e.Package)
	}
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString("    ")
			b.WriteString(l)
		}
	}
	if s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

// finish prints the summary and reports whether everything passed.
func (r *report) finish() bool {
	// Tests that started but never finished (the binary died under them).
	var dangling []string
	for k := range r.testOut {
		if !strings.Contains(k.test, "/") && r.pkgFailed[k.pkg] == 0 {
			dangling = append(dangling, k.pkg+"."+k.test)
		}
	}
	sort.Strings(dangling)
	for _, d := range dangling {
		fmt.Fprintf(r.w, "=== UNFINISHED: %s (no pass/fail recorded)\n", d)
	}

	fmt.Fprintln(r.w)
	if len(r.failures) > 0 {
		fmt.Fprintln(r.w, "Failed:")
		for _, f := range r.failures {
			fmt.Fprintln(r.w, "  "+f)
		}
	}
	var passed, failed, skipped int
	for _, o := range r.items {
		switch {
		case o.failed:
			failed++
		case o.passed:
			passed++
		case o.skipped:
			skipped++
		}
	}
	ok := len(r.failures) == 0
	if len(r.runnerExits) > 0 {
		fmt.Fprintln(r.w, "Runners that exited non-zero:")
		for _, x := range r.runnerExits {
			fmt.Fprintln(r.w, "  "+x)
		}
		if ok {
			// A runner failed without a failure in the stream (go test
			// could not even start, say): count it.
			failed += len(r.runnerExits)
		}
		ok = false
	}
	if skipped > 0 {
		fmt.Fprintf(r.w, "%d skipped\n", skipped)
	}
	fmt.Fprintf(r.w, "%d passed, %d failed\n", passed, failed)
	return ok
}

func main() {
	out := bufio.NewWriter(os.Stdout)
	r := newReport(out)
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		r.line(line)
		if err != nil {
			if err != io.EOF {
				fmt.Fprintf(out, "testreport: reading input: %v\n", err)
				r.runnerExits = append(r.runnerExits, "testreport input: "+err.Error())
			}
			break
		}
		// Keep the console live: flush when no more input is buffered.
		if in.Buffered() == 0 {
			out.Flush()
		}
	}
	ok := r.finish()
	out.Flush()
	if !ok {
		os.Exit(1)
	}
}
