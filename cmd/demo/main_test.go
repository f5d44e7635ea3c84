package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

func TestMain(m *testing.M) {
	testserver.RunIfChild() // the demo's embedded servers are this binary
	goleak.VerifyTestMain(m)
}

// embeddedSteps are the step spans of the demo without --config, in order.
var embeddedSteps = []string{
	"demo connect", "demo tools", "demo burst", "demo progress", "demo server-request",
	"demo timeout", "demo crash", "demo logging", "demo shutdown",
}

func TestDemoEmbedded(t *testing.T) {
	var out, errOut bytes.Buffer
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	if code := run([]string{"--servers", "2", "--calls", "300", "--concurrency", "16", "--trace", trace}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	stdout := out.String()
	for _, want := range []string{
		"telemetry: traces: file " + trace + " (JSON lines)",
		"2 servers up", "calls: 300", "errors by kind: none", "progress 1/4 2/4 3/4 4/4",
		"server saw: demo-1: cancelled", "Transport closed: exit status 3: fatal: out of cheese",
		"demo-1   mcpactor-testserver 0.1.0, protocol 2025-11-25 negotiated",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	checkSummary(t, stdout)
	checkTraceShape(t, trace, embeddedSteps)
}

// checkSummary reads the summary table: one row per server with its state,
// protocol, tools, calls, errors by kind and latencies.
func checkSummary(t *testing.T, stdout string) {
	t.Helper()
	_, table, ok := strings.Cut(stdout, "\n== summary\n")
	if !ok {
		t.Fatalf("no summary:\n%s", stdout)
	}
	rows := map[string][]string{}
	var header []string
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
		if f[0] == "server" {
			header = f
			continue
		}
		rows[f[0]] = f
	}
	wantHeader := []string{"server", "state", "protocol", "tools", "calls", "timeout", "cancelled", "rpc_error", "tool_error", "transport_closed", "other", "p50", "p99"}
	if !slices.Equal(header, wantHeader) {
		t.Fatalf("header = %q\nwant %q", header, wantHeader)
	}
	col := func(row []string, name string) string { return row[slices.Index(header, name)] }
	// demo-1: tools/list, 150 burst calls, progress, ask-client, the
	// timeout (the one error, as intended), an echo after it, setLevel.
	d1, d2, crashy := rows["demo-1"], rows["demo-2"], rows["crashy"]
	if len(d1) != len(header) || len(d2) != len(header) || len(crashy) != len(header) {
		t.Fatalf("rows = %q", rows)
	}
	for _, c := range []struct{ row []string }{{d1}, {d2}} {
		if col(c.row, "state") != "ready" || col(c.row, "protocol") != "2025-11-25" || col(c.row, "tools") == "-" {
			t.Errorf("row %q", c.row)
		}
	}
	if got := col(d1, "calls"); got != "156" {
		t.Errorf("demo-1 calls = %s, want 156 (1 tools/list + 150 burst + progress + ask-client + sleep + echo + setLevel)", got)
	}
	if col(d1, "timeout") != "1" || col(d2, "timeout") != "0" || col(d2, "calls") != "151" {
		t.Errorf("demo-1 %q, demo-2 %q", d1, d2)
	}
	if col(crashy, "state") != "crashed (as intended)" || col(crashy, "calls") != "2" || col(crashy, "transport_closed") != "2" {
		t.Errorf("crashy %q", crashy)
	}
	for _, row := range [][]string{d1, d2, crashy} {
		if col(row, "p50") == "-" || col(row, "p99") == "-" {
			t.Errorf("no latencies in %q", row)
		}
	}
}

// span is the part of a stdouttrace JSON line the trace check reads.
type span struct {
	Name        string
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct{ TraceID, SpanID string }
}

func (s span) root() bool { return strings.Trim(s.Parent.SpanID, "0") == "" }

// handshakeSpans would be tolerated as roots of their own traces; there are
// none: Runtime.Connect carries its context's trace into the handshake.
var handshakeSpans []string

// checkTraceShape: every span is in the trace of one step, and each step is
// one trace whose root is the step's span.
func checkTraceShape(t *testing.T, path string, steps []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var spans []span
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s span
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil || s.Name == "" {
			t.Fatalf("trace line is not a span: %v %q", err, sc.Text())
		}
		spans = append(spans, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	stepOf := map[string]string{} // trace id -> step
	var roots []string
	for _, s := range spans {
		if !s.root() || slices.Contains(handshakeSpans, s.Name) {
			continue
		}
		roots = append(roots, s.Name)
		stepOf[s.SpanContext.TraceID] = s.Name
	}
	if !slices.Equal(roots, steps) {
		t.Errorf("root spans = %q\nwant one per step: %q", roots, steps)
	}
	perStep := map[string]int{}
	handshakeRoots := 0
	for _, s := range spans {
		step, ok := stepOf[s.SpanContext.TraceID]
		switch {
		case ok:
			perStep[step]++
		case s.root() && slices.Contains(handshakeSpans, s.Name):
			handshakeRoots++
		default:
			t.Errorf("span %q (trace %s) belongs to no step", s.Name, s.SpanContext.TraceID)
		}
	}
	t.Logf("%d spans in %d step traces %v; %d handshake spans outside them", len(spans), len(stepOf), perStep, handshakeRoots)
	// The calls of each step are inside it.
	for _, st := range []string{"demo tools", "demo burst", "demo timeout", "demo crash"} {
		if slices.Contains(steps, st) && perStep[st] < 2 {
			t.Errorf("step %s has no calls in its trace (%d spans)", st, perStep[st])
		}
	}
	if slices.Contains(steps, "demo timeout") {
		cancelled := false
		for _, s := range spans {
			if s.Name == "notifications/cancelled" && stepOf[s.SpanContext.TraceID] == "demo timeout" {
				cancelled = true
			}
		}
		if !cancelled {
			t.Error("no notifications/cancelled span in the timeout step")
		}
	}
}

// configFile writes an mcpServers file with our test server as "ours" and
// the given extra entries.
func configFile(t *testing.T, extra map[string]any) string {
	t.Helper()
	path, args, env := testserver.Command(testserver.Options{})
	envMap := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envMap[k] = v
	}
	servers := map[string]any{"ours": map[string]any{"command": path, "args": args, "env": envMap}}
	for k, v := range extra {
		servers[k] = v
	}
	file := filepath.Join(t.TempDir(), "mcp.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestDemoConfigFile(t *testing.T) {
	file := configFile(t, map[string]any{"disabled": map[string]any{"command": "nope", "enabled": false}})
	var out, errOut bytes.Buffer
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	if code := run([]string{"--config", file, "--trace", trace}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "1 servers configured, 1 disabled, 0 failed") || !strings.Contains(out.String(), "echo") {
		t.Errorf("unexpected output:\n%s", out.String())
	}
	checkTraceShape(t, trace, []string{"demo connect", "demo tools"})
}

// TestDemoConfigFailures: failures are counted per server, and a server
// that failed to connect is not asked for its tools.
func TestDemoConfigFailures(t *testing.T) {
	file := configFile(t, map[string]any{
		"broken":  map[string]any{"command": "/does/not/exist"},
		"broken2": map[string]any{"command": "/does/not/exist/either"},
	})
	var out, errOut bytes.Buffer
	if code := run([]string{"--config", file}, &out, &errOut); code == 0 {
		t.Fatalf("broken servers should fail the demo:\n%s", out.String())
	}
	stdout := out.String()
	if !strings.Contains(stdout, "3 servers configured, 0 disabled, 2 failed") {
		t.Errorf("failures not counted per server:\n%s", stdout)
	}
	if strings.Contains(stdout, "broken: tools/list") || strings.Contains(stdout, "broken2: tools/list") {
		t.Errorf("tools/list tried on a server that failed to connect:\n%s", stdout)
	}
	if !strings.Contains(errOut.String(), "2 of 3 configured server(s) failed") {
		t.Errorf("stderr = %s", errOut.String())
	}
	for _, name := range []string{"broken", "broken2"} {
		if !regexp.MustCompile(`(?m)^\s+` + name + `\s+failed to connect\s+-\s+-\s+0\s`).MatchString(stdout) {
			t.Errorf("summary row of %s: not failed to connect with no calls:\n%s", name, stdout)
		}
	}
	if !regexp.MustCompile(`(?m)^\s+ours\s+ready\s+2025-11-25\s+\d+\s+2\s`).MatchString(stdout) {
		t.Errorf("summary row of ours: want ready with 2 calls (tools/list, ping):\n%s", stdout)
	}
}

// TestDemoExportErrorsVisible: a Collector that is not there is reported on
// stderr, and the start-up line says where spans were to go.
func TestDemoExportErrorsVisible(t *testing.T) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OTEL_") {
			t.Setenv(k, "")
		}
	}
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "300")
	file := configFile(t, nil)
	var out, errOut bytes.Buffer
	if code := run([]string{"--config", file}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if want := "telemetry: traces: otlp http/protobuf to http://127.0.0.1:1/v1/traces (OTEL_EXPORTER_OTLP_ENDPOINT)"; !strings.Contains(out.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, out.String())
	}
	if !strings.Contains(errOut.String(), "127.0.0.1:1") {
		t.Errorf("the failed export is not reported on stderr:\n%s", errOut.String())
	}
}
