package main

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"
)

// run feeds a recorded `go test -json` stream through the report.
// testdata/mixed.json and pass.json were recorded from a scratch module with
// passing, failing, panicking, unbuildable, skipped and TestMain-failing
// packages; fuzz.json is what `make test` runs for fuzz targets, recorded
// from a scratch module: `go test -json ./...` (packages trs/fz and
// trs/plain, each with a TestPlain; trs/fz has FuzzOK and FuzzFinds, whose
// seed corpora pass), then `go test -json -run='^$' -fuzz=<target>` for
// each target (FuzzOK passes, FuzzFinds finds a failing input) with the
// runner-exit event the Makefile adds.
func run(t *testing.T, input string) (string, bool) {
	t.Helper()
	var out bytes.Buffer
	r := newReport(&out)
	sc := bufio.NewScanner(strings.NewReader(input))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		r.line(sc.Bytes())
	}
	ok := r.finish()
	return out.String(), ok
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMixed(t *testing.T) {
	out, ok := run(t, readFile(t, "testdata/mixed.json"))
	if ok {
		t.Error("report says ok for a stream with failures")
	}
	if got, want := lastLine(out), "6 passed, 4 failed"; got != want {
		t.Errorf("last line %q, want %q\n%s", got, want, out)
	}
	for _, want := range []string{
		"=== FAIL: trs/bad.TestBad",
		"sub boom",
		"=== BUILD FAIL: trs/broken",
		`cannot use "x"`,
		"=== PACKAGE FAIL: trs/main",
		"leak!",
		"=== FAIL: trs/panic.TestPanics",
		"panic: kaboom",
		"?    trs/none [no test files]",
		"ok   trs/ok",
		"1 skipped",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "TestGood") {
		t.Errorf("report shows a passing test's output:\n%s", out)
	}
}

func TestAllPass(t *testing.T) {
	out, ok := run(t, readFile(t, "testdata/pass.json"))
	if !ok {
		t.Errorf("report says not ok:\n%s", out)
	}
	if got, want := lastLine(out), "3 passed, 0 failed"; got != want {
		t.Errorf("last line %q, want %q\n%s", got, want, out)
	}
}

// A fuzz target runs twice, its seed corpus with the tests and then the
// fuzzing: it is one item, failed if either run failed.
func TestFuzzTargetCountedOnce(t *testing.T) {
	out, ok := run(t, readFile(t, "testdata/fuzz.json"))
	if ok {
		t.Error("report says ok although fuzzing found a failure")
	}
	// trs/fz.TestPlain, trs/plain.TestPlain (same name, another package)
	// and trs/fz.FuzzOK pass; trs/fz.FuzzFinds fails.
	if got, want := lastLine(out), "3 passed, 1 failed"; got != want {
		t.Errorf("last line %q, want %q\n%s", got, want, out)
	}
	for _, want := range []string{
		"=== FAIL: trs/fz.FuzzFinds",
		`too long: "00"`,
		"Failing input written to testdata/fuzz/FuzzFinds/",
		"fuzz trs/fz FuzzFinds exited with status 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "  trs/fz.FuzzFinds\n"); n != 1 {
		t.Errorf("FuzzFinds listed %d times under Failed:, want once\n%s", n, out)
	}
	// The fuzzing run failed a test, so its package failure is not a
	// second item.
	if strings.Contains(out, "trs/fz [package]") {
		t.Errorf("the fuzzing run's package failure counted on its own:\n%s", out)
	}
}

// Only the seed corpus failing (the fuzzing run then fails at once on the
// same input) is still one failed item; passing in one run and failing in
// the other is a failure whichever run came first.
func TestFuzzTargetFailedInOneRun(t *testing.T) {
	seedFails := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"FuzzX"}
{"Action":"output","Package":"p","Test":"FuzzX","Output":"seed boom\n"}
{"Action":"fail","Package":"p","Test":"FuzzX"}
{"Action":"fail","Package":"p"}
{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"FuzzX"}
{"Action":"fail","Package":"p","Test":"FuzzX"}
{"Action":"fail","Package":"p"}
`
	out, ok := run(t, seedFails)
	if ok || lastLine(out) != "0 passed, 1 failed" || strings.Count(out, "  p.FuzzX\n") != 1 {
		t.Errorf("seed corpus and fuzzing failed: ok=%v\n%s", ok, out)
	}

	fuzzThenSeed := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"FuzzX"}
{"Action":"fail","Package":"p","Test":"FuzzX"}
{"Action":"fail","Package":"p"}
{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"FuzzX"}
{"Action":"pass","Package":"p","Test":"FuzzX"}
{"Action":"pass","Package":"p"}
`
	out, ok = run(t, fuzzThenSeed)
	if ok || lastLine(out) != "0 passed, 1 failed" {
		t.Errorf("failed, then passed: ok=%v\n%s", ok, out)
	}
}

// A package that fails on its own in a later run (the fuzzing run timed
// out, say) is counted even though an earlier run had failed a test in it.
func TestPackageFailureInLaterRun(t *testing.T) {
	in := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"fail","Package":"p","Test":"TestA"}
{"Action":"fail","Package":"p"}
{"Action":"start","Package":"p"}
{"Action":"output","Package":"p","Output":"panic: test timed out after 1s\n"}
{"Action":"fail","Package":"p"}
`
	out, ok := run(t, in)
	if ok || lastLine(out) != "0 passed, 2 failed" || !strings.Contains(out, "  p [package]\n") {
		t.Errorf("ok=%v\n%s", ok, out)
	}
}

func TestEmpty(t *testing.T) {
	out, ok := run(t, "")
	if !ok || lastLine(out) != "0 passed, 0 failed" {
		t.Errorf("empty stream: ok=%v\n%s", ok, out)
	}
}

func TestRunnerExitWithoutFailure(t *testing.T) {
	out, ok := run(t, "go: cannot find main module\n"+`{"Action":"runner-exit","Package":"go test ./...","Output":"1"}`+"\n")
	if ok {
		t.Error("report says ok after a runner exited non-zero")
	}
	if got, want := lastLine(out), "0 passed, 1 failed"; got != want {
		t.Errorf("last line %q, want %q\n%s", got, want, out)
	}
	if !strings.Contains(out, "go: cannot find main module") {
		t.Errorf("non-JSON line not passed through:\n%s", out)
	}
}

func TestUnfinishedTest(t *testing.T) {
	in := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestHang"}
{"Action":"output","Package":"p","Test":"TestHang","Output":"=== RUN   TestHang\n"}
{"Action":"output","Package":"p","Output":"panic: test timed out after 1s\n"}
{"Action":"fail","Package":"p","Elapsed":1}
`
	out, ok := run(t, in)
	if ok || lastLine(out) != "0 passed, 1 failed" || !strings.Contains(out, "timed out") {
		t.Errorf("timeout: ok=%v\n%s", ok, out)
	}
}
