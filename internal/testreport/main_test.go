package main

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"
)

// run feeds a recorded `go test -json` stream (testdata/*.json were recorded
// from a scratch module with passing, failing, panicking, unbuildable,
// skipped and TestMain-failing packages) through the report.
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
