package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// ntools is how many tools the demo's own servers offer: the test
// server's catalogue, which grows as the project's tests need more.
var ntools = strconv.Itoa(len(testserver.DefaultSpec(testserver.Options{}).Tools))

func TestMain(m *testing.M) {
	testserver.RunIfChild() // the demo's embedded servers are this binary
	clusterChild()          // and so are --cluster's etcd and members
	goleak.VerifyTestMain(m)
}

// demo runs the demo in this process with args, stdin holding input (a
// terminal if interactive), and returns its exit status and output.
func demo(t *testing.T, input string, interactive bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, console{in: bufio.NewReader(strings.NewReader(input)), interactive: interactive, out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

// mustRun is demo for a run that must succeed.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := demo(t, "", false, args...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	return stdout
}

// embeddedSteps are the step spans of the demo without --config, in order.
var embeddedSteps = []string{
	"demo gate", "demo tools", "demo burst", "demo progress", "demo server-request",
	"demo timeout", "demo http", "demo crash", "demo logging", "demo shutdown",
}

// TestDemoEmbedded runs the embedded demo twice with one cache directory:
// the first run awaits the slow server, which has no cached tool list; the
// second offers its tools from the cache within the startup gate, and a
// call to one of them waits until the server is up.
func TestDemoEmbedded(t *testing.T) {
	cache := t.TempDir()
	args := []string{"--servers", "2", "--calls", "300", "--concurrency", "16", "--cache-dir", cache}
	for run, gate := range [][]string{
		{
			"no cached tool list (a first run, or its entry changed), so Manage awaited it: up after",
			"mcp__slow__echo answered in",
		},
		{
			"slow: still connecting; its " + ntools + " tools from an earlier run are offered from the cache within the gate (Cached=true)",
			"mcp__slow__echo, called while slow was starting, waited for it and answered after",
			"event: tools changed, slow (ready): the live list replaced the cached one: " + ntools + " tools, Cached=false",
		},
	} {
		trace := filepath.Join(t.TempDir(), "trace.jsonl")
		stdout := mustRun(t, append(args, "--trace", trace)...)
		for _, want := range append(gate,
			"telemetry: traces: file "+trace+" (JSON lines)",
			"tool-list cache in "+cache, "${MCPACTOR_DEMO_BIN}",
			"all 4 servers up and listed", "calls: 300", "errors by kind: none", "progress 1/4 2/4 3/4 4/4",
			"server saw: demo-1: cancelled", "Transport closed: exit status 3; stderr: fatal: out of cheese",
			"100 echo calls, 8 in flight", "protocol 2025-11-25 (session era)",
		) {
			if !strings.Contains(stdout, want) {
				t.Errorf("run %d: output lacks %q:\n%s", run+1, want, stdout)
			}
		}
		checkManagerStatus(t, stdout, []string{"demo-1", "demo-2", "http-1", "slow"})
		checkSummary(t, stdout)
		checkTraceShape(t, trace, embeddedSteps)
	}
}

// checkManagerStatus reads the manager's status table: every server ready,
// from the explicit file, in the session era, with p50 and p99 of the calls
// made through the manager.
func checkManagerStatus(t *testing.T, stdout string, servers []string) {
	t.Helper()
	_, table, ok := strings.Cut(stdout, "\n== manager status\n")
	if !ok {
		t.Fatalf("no manager status:\n%s", stdout)
	}
	table, _, _ = strings.Cut(table, "\n== ")
	rows, header := readTable(table)
	want := []string{"server", "state", "source", "era", "protocol", "gen", "restarts", "in flight", "tools", "p50", "p99", "last error"}
	if !slices.Equal(header, want) {
		t.Fatalf("header = %q\nwant %q", header, want)
	}
	for _, name := range servers {
		row := rows[name]
		if len(row) != len(header) {
			t.Errorf("row of %s: %q", name, row)
			continue
		}
		col := func(c string) string { return row[slices.Index(header, c)] }
		if col("state") != "ready" || col("source") != "file (explicit)" || col("era") != "session" ||
			col("protocol") != "2025-11-25" || col("gen") != "1" || col("restarts") != "0" || col("p50") == "-" || col("p99") == "-" {
			t.Errorf("row of %s: %q", name, row)
		}
	}
}

// readTable splits a printed table into rows by their first column, and
// its header (the row whose first column is "server").
func readTable(table string) (rows map[string][]string, header []string) {
	rows = map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
		if f[0] == "server" {
			header = f
			continue
		}
		rows[f[0]] = f
	}
	return rows, header
}

// checkSummary reads the summary table: one row per server with its state,
// era, protocol, tools, calls, errors by kind and latencies.
func checkSummary(t *testing.T, stdout string) {
	t.Helper()
	_, table, ok := strings.Cut(stdout, "\n== summary\n")
	if !ok {
		t.Fatalf("no summary:\n%s", stdout)
	}
	rows, header := readTable(table)
	wantHeader := []string{"server", "state", "era", "protocol", "tools", "calls", "timeout", "cancelled", "rpc_error", "tool_error", "transport_closed", "other", "p50", "p99"}
	if !slices.Equal(header, wantHeader) {
		t.Fatalf("header = %q\nwant %q", header, wantHeader)
	}
	col := func(row []string, name string) string { return row[slices.Index(header, name)] }
	// demo-1: tools/list, 150 burst calls, progress, ask-client, the
	// timeout (the one error, as intended), an echo after it, setLevel.
	d1, d2, crashy, slow, h := rows["demo-1"], rows["demo-2"], rows["crashy"], rows["slow"], rows["http-1"]
	for _, row := range [][]string{d1, d2, crashy, slow, h} {
		if len(row) != len(header) {
			t.Fatalf("rows = %q", rows)
		}
	}
	for _, row := range [][]string{d1, d2, slow, h} {
		if col(row, "state") != "ready" || col(row, "era") != "session" || col(row, "protocol") != "2025-11-25" || col(row, "tools") != ntools {
			t.Errorf("row %q", row)
		}
	}
	if got := col(d1, "calls"); got != "156" {
		t.Errorf("demo-1 calls = %s, want 156 (1 tools/list + 150 burst + progress + ask-client + sleep + echo + setLevel)", got)
	}
	if col(d1, "timeout") != "1" || col(d2, "timeout") != "0" || col(d2, "calls") != "151" {
		t.Errorf("demo-1 %q, demo-2 %q", d1, d2)
	}
	if col(slow, "calls") != "2" || col(h, "calls") != "101" {
		t.Errorf("slow %q (want tools/list and echo), http-1 %q (want tools/list and 100 echo)", slow, h)
	}
	if col(crashy, "state") != "crashed (as intended)" || col(crashy, "calls") != "2" || col(crashy, "transport_closed") != "2" {
		t.Errorf("crashy %q", crashy)
	}
	for _, row := range [][]string{d1, d2, crashy, slow, h} {
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

// managerSpans are the roots of what the manager does on its own, off any
// caller's context: the refresh of a connection's lists and the keepalive
// ping, each a trace of its own with its requests as children. (A
// server's first probe and handshake belong to the trace of Manage's
// context: the gate step.)
var managerSpans = []string{"mcpactor.refresh", "mcpactor.keepalive"}

// ownRoot reports whether s is the root of a trace no step started: the
// manager's own work, or a notification the server sent without a trace
// context in its _meta (its SERVER span then has no parent).
func ownRoot(s span) bool {
	return s.root() && (slices.Contains(managerSpans, s.Name) || strings.HasPrefix(s.Name, "notifications/"))
}

// readJSONLines decodes each line of the file at path (a --trace file,
// one span a line) as a T, failing the test on a line that is not one.
func readJSONLines[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("trace line is not JSON: %v %q", err, sc.Text())
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkTraceShape: every span is in the trace of one step, and each step is
// one trace whose root is the step's span.
func checkTraceShape(t *testing.T, path string, steps []string) {
	t.Helper()
	spans := readJSONLines[span](t, path)
	for _, s := range spans {
		if s.Name == "" {
			t.Fatalf("trace line is not a span: %+v", s)
		}
	}
	stepOf := map[string]string{} // trace id -> step
	managerTrace := map[string]bool{}
	var roots []string
	for _, s := range spans {
		if ownRoot(s) {
			managerTrace[s.SpanContext.TraceID] = true
		}
		if !s.root() || ownRoot(s) {
			continue
		}
		roots = append(roots, s.Name)
		stepOf[s.SpanContext.TraceID] = s.Name
	}
	if !slices.Equal(roots, steps) {
		t.Errorf("root spans = %q\nwant one per step: %q", roots, steps)
	}
	perStep := map[string]int{}
	managerRoots := 0
	for _, s := range spans {
		step, ok := stepOf[s.SpanContext.TraceID]
		switch {
		case ok:
			perStep[step]++
		case managerTrace[s.SpanContext.TraceID]:
			managerRoots++
		default:
			t.Errorf("span %q (trace %s) belongs to no step", s.Name, s.SpanContext.TraceID)
		}
	}
	t.Logf("%d spans in %d step traces %v; %d spans of the manager's own outside them", len(spans), len(stepOf), perStep, managerRoots)
	// The calls of each step are inside it.
	for _, st := range []string{"demo tools", "demo burst", "demo timeout", "demo http", "demo crash", "demo call"} {
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

// testServerEntry is an mcpServers entry starting our test server (this
// test binary).
func testServerEntry() map[string]any {
	path, args, env := testserver.Command(testserver.Options{})
	envMap := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envMap[k] = v
	}
	return map[string]any{"command": path, "args": args, "env": envMap}
}

// writeConfig writes {key: servers} to dir/name, making dir.
func writeConfig(t *testing.T, dir, name, key string, servers map[string]any) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(map[string]any{key: servers})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// configFile writes an mcpServers file with our test server as "ours" and
// the given extra entries.
func configFile(t *testing.T, extra map[string]any) string {
	t.Helper()
	servers := map[string]any{"ours": testServerEntry()}
	for k, v := range extra {
		servers[k] = v
	}
	return writeConfig(t, t.TempDir(), "mcp.json", "mcpServers", servers)
}

func TestDemoConfigFile(t *testing.T) {
	file := configFile(t, map[string]any{"disabled": map[string]any{"command": "nope", "enabled": false}})
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	stdout := mustRun(t, "--config", file, "--trace", trace, "--cache-dir", t.TempDir())
	for _, re := range []string{
		`== configuration \S+: 2 servers, 1 disabled`,
		`(?m)^\s+ours\s+ready\s+file \(explicit\)\s+2025-11-25 \(session\)\s+` + ntools + ` tools`,
		`(?m)^\s+disabled\s+disabled\s+file \(explicit\)\s+-\s+0 tools`,
		`(?m)^\s+ours\s+echo\s+ok: "hello from mcpactor"`,
		`2 servers: 1 ready, 0 not up, 1 not started \(disabled or not approved\); 1 calls, 0 failed`,
	} {
		if !regexp.MustCompile(re).MatchString(stdout) {
			t.Errorf("output does not match %s:\n%s", re, stdout)
		}
	}
	checkManagerStatus(t, stdout, []string{"ours"})
	checkTraceShape(t, trace, []string{"demo manage", "demo call"})
}

// TestDemoConfigFailures: a server that cannot start is reported with its
// error and fails the demo; no call is made to it; the others are called.
func TestDemoConfigFailures(t *testing.T) {
	file := configFile(t, map[string]any{
		"broken":  map[string]any{"command": "/does/not/exist"},
		"broken2": map[string]any{"command": "/does/not/exist/either"},
	})
	code, stdout, stderr := demo(t, "", false, "--config", file, "--no-cache")
	if code != 1 {
		t.Fatalf("exit %d, want 1 for broken servers:\n%s", code, stdout)
	}
	if !strings.Contains(stdout, "3 servers: 1 ready, 2 not up, 0 not started (disabled or not approved); 1 calls, 0 failed") {
		t.Errorf("failures not counted per server:\n%s", stdout)
	}
	if !strings.Contains(stderr, "2 server(s) did not come up: broken, broken2") {
		t.Errorf("stderr = %s", stderr)
	}
	for _, name := range []string{"broken", "broken2"} {
		// A missing command cannot heal: failed at once, with its cause,
		// and never restarted.
		if !regexp.MustCompile(`(?m)^\s+` + name + `\s+failed\s+file \(explicit\)\s+-\s+0 tools\s+last error: .*/does/not/exist`).MatchString(stdout) {
			t.Errorf("line of %s: not down with its error:\n%s", name, stdout)
		}
		if regexp.MustCompile(`(?m)^\s+` + name + `\s+echo`).MatchString(stdout) {
			t.Errorf("%s was called:\n%s", name, stdout)
		}
	}
}

// TestDemoConfigCall: --call picks the tool; an isError answer of a tool
// other than echo is the tool's own business; a tool no server offers is a
// failure.
func TestDemoConfigCall(t *testing.T) {
	file := configFile(t, nil)
	stdout := mustRun(t, "--config", file, "--no-cache", "--call", "fail", "--args", `{"message":"on purpose"}`)
	if !regexp.MustCompile(`(?m)^\s+ours\s+fail\s+isError \(the tool's own answer, not counted\): "on purpose"`).MatchString(stdout) {
		t.Errorf("--call fail:\n%s", stdout)
	}
	code, stdout, stderr := demo(t, "", false, "--config", file, "--no-cache", "--call", "nosuchtool")
	if code != 1 || !strings.Contains(stdout, `no tool named "nosuchtool" (not counted)`) ||
		!strings.Contains(stderr, `no ready server offers a tool named "nosuchtool"`) {
		t.Errorf("--call nosuchtool: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestDemoConfigEverything: servers of another implementation,
// server-everything over stdio, all come up through the manager and answer
// echo.
func TestDemoConfigEverything(t *testing.T) {
	node, script := peers.ServerEverything(t)
	servers := map[string]any{}
	for i := range 3 {
		servers[fmt.Sprintf("everything-%d", i+1)] = map[string]any{"command": node, "args": []string{script, "stdio"}}
	}
	stdout := mustRun(t, "--config", writeConfig(t, t.TempDir(), "mcp.json", "mcpServers", servers), "--cache-dir", t.TempDir())
	for i := range 3 {
		name := fmt.Sprintf("everything-%d", i+1)
		if !regexp.MustCompile(`(?m)^\s+` + name + `\s+ready\s+file \(explicit\)\s+\S+ \(session\)\s+\d+ tools`).MatchString(stdout) {
			t.Errorf("%s not ready:\n%s", name, stdout)
		}
		if !regexp.MustCompile(`(?m)^\s+` + name + `\s+echo\s+ok: "Echo: hello from mcpactor"`).MatchString(stdout) {
			t.Errorf("%s: echo not called:\n%s", name, stdout)
		}
	}
	if !strings.Contains(stdout, "3 servers: 3 ready, 0 not up, 0 not started (disabled or not approved); 3 calls, 0 failed") {
		t.Errorf("summary line:\n%s", stdout)
	}
}

// TestDemoDiscover: with a home and a project of its own, --discover finds
// the user's server, reports the entry it shadows and a warning, and
// starts the project's server only when approved on a terminal.
func TestDemoDiscover(t *testing.T) {
	home, project, cache := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", cache) // os.UserCacheDir on Linux
	if runtime.GOOS == "darwin" {
		cache = filepath.Join(home, "Library", "Caches")
	}
	t.Chdir(project)
	ours := testServerEntry()
	writeConfig(t, filepath.Join(home, ".config", "mcpactor"), "mcp.json", "mcpServers", map[string]any{"ours": ours})
	writeConfig(t, filepath.Join(home, ".cursor"), "mcp.json", "mcpServers", map[string]any{"ours": testServerEntry()})
	proj := testServerEntry()
	proj["note"] = "a field no client reads"
	writeConfig(t, project, ".mcp.json", "mcpServers", map[string]any{"proj": proj})

	stdout := mustRun(t, "--discover")
	for _, re := range []string{
		`== discovery: 3 files read, 2 servers, 1 shadowed, \d+ warnings`,
		`(?m)^\s+ours\s+native\s+user\s+` + regexp.QuoteMeta(filepath.Join(home, ".config", "mcpactor", "mcp.json")),
		`(?m)^\s+proj\s+claude\s+project\s+` + regexp.QuoteMeta(filepath.Join(project, ".mcp.json")) + `\s+needs approval`,
		`shadowed: server "ours" of cursor \(user, \S+\) is shadowed by native \(user, \S+\)`,
		`proj: skipped \(needs approval; stdin is not a terminal to ask on\)`,
		`(?m)^\s+ours\s+ready\s+native \(user\)`,
		`(?m)^\s+proj\s+not approved\s+claude \(project\)`,
		`(?m)^\s+ours\s+echo\s+ok: "hello from mcpactor"`,
		`2 servers: 1 ready, 0 not up, 1 not started`,
	} {
		if !regexp.MustCompile(re).MatchString(stdout) {
			t.Errorf("not interactive: output does not match %s:\n%s", re, stdout)
		}
	}
	if dir, err := os.UserCacheDir(); err != nil || !strings.HasPrefix(dir, cache) {
		t.Errorf("the user cache directory %q is not under the test's %s (%v)", dir, cache, err)
	} else if entries, err := os.ReadDir(filepath.Join(dir, "mcpactor")); err != nil || len(entries) == 0 {
		t.Errorf("the default cache directory holds nothing: %v %v", entries, err)
	}

	code, stdout, stderr := demo(t, "y\n", true, "--discover", "--no-cache")
	if code != 0 {
		t.Fatalf("interactive: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, re := range []string{
		`proj \(claude, project level, ` + regexp.QuoteMeta(filepath.Join(project, ".mcp.json")) + `\) runs: \S+`,
		`start proj\? \[y/N\]`,
		`(?m)^\s+proj\s+ready\s+claude \(project\)`,
		`(?m)^\s+proj\s+echo\s+ok: "hello from mcpactor"`,
		`2 servers: 2 ready, 0 not up, 0 not started`,
	} {
		if !regexp.MustCompile(re).MatchString(stdout) {
			t.Errorf("interactive, approved: output does not match %s:\n%s", re, stdout)
		}
	}
	_, stdout, _ = demo(t, "n\n", true, "--discover", "--no-cache")
	if !strings.Contains(stdout, "proj: not approved") || !regexp.MustCompile(`(?m)^\s+proj\s+not approved`).MatchString(stdout) {
		t.Errorf("interactive, refused:\n%s", stdout)
	}
}

// TestChooseTool: echo first, else the first tool needing no arguments;
// --call names the tool, --args its arguments.
func TestChooseTool(t *testing.T) {
	tool := func(name, schema string) mcpactor.ManagedTool {
		return mcpactor.ManagedTool{Name: "mcp__s__" + name, Server: "s", Tool: messages.Tool{Name: name, InputSchema: json.RawMessage(schema)}}
	}
	needs := tool("needs", `{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}`)
	free := tool("free", `{"type":"object","properties":{"x":{"type":"string"}}}`)
	echo := tool("echo", `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)
	for _, c := range []struct {
		name   string
		tools  []mcpactor.ManagedTool
		o      options
		want   string
		args   map[string]any
		echo   bool
		whyNot string
	}{
		{name: "echo wins", tools: []mcpactor.ManagedTool{needs, free, echo}, want: "echo", args: map[string]any{"message": echoMessage}, echo: true},
		{name: "first without required", tools: []mcpactor.ManagedTool{needs, free}, want: "free", args: map[string]any{}},
		{name: "none callable", tools: []mcpactor.ManagedTool{needs}, whyNot: "no tool callable without arguments"},
		{name: "--call", tools: []mcpactor.ManagedTool{echo, needs}, o: options{call: "needs", args: map[string]any{"x": "y"}}, want: "needs", args: map[string]any{"x": "y"}},
		{name: "--call echo", tools: []mcpactor.ManagedTool{echo}, o: options{call: "echo"}, want: "echo", args: map[string]any{"message": echoMessage}, echo: true},
		{name: "--call missing", tools: []mcpactor.ManagedTool{echo}, o: options{call: "other"}, whyNot: `no tool named "other"`},
	} {
		got, why := chooseTool(c.tools, c.o)
		if why != c.whyNot || got.tool.Tool.Name != c.want || got.echo != c.echo || fmt.Sprint(got.args) != fmt.Sprint(c.args) && c.whyNot == "" {
			t.Errorf("%s: got %q %v echo=%v, why %q", c.name, got.tool.Tool.Name, got.args, got.echo, why)
		}
	}
}

// TestDemoFlags: combinations that make no sense are refused with status 2.
func TestDemoFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", "x.json", "--discover"}, "--config and --discover exclude each other"},
		{[]string{"--call", "echo"}, "--call and --args go with --config or --discover"},
		{[]string{"--discover", "--args", "{}"}, "--args needs --call"},
		{[]string{"--discover", "--call", "x", "--args", "[1]"}, "--args: want a JSON object"},
		{[]string{"--servers", "0"}, "--servers and --concurrency must be at least 1"},
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
		{[]string{"--no-such-flag"}, "flag provided but not defined: -no-such-flag"},
	} {
		code, _, stderr := demo(t, "", false, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
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
	code, stdout, stderr := demo(t, "", false, "--config", configFile(t, nil), "--no-cache")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if want := "telemetry: traces: otlp http/protobuf to http://127.0.0.1:1/v1/traces (OTEL_EXPORTER_OTLP_ENDPOINT)"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	if !strings.Contains(stderr, "127.0.0.1:1") {
		t.Errorf("the failed export is not reported on stderr:\n%s", stderr)
	}
}

// TestDemoCluster runs --cluster 3 as a user would on a fresh clone: an
// embedded etcd and three members, one killed with calls in flight. Every
// call must end once, none with an error other than the member's loss, and
// the killed member's servers must answer again elsewhere.
func TestDemoCluster(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the cluster demo kills a member with SIGKILL, which Windows does not have")
	}
	stdout := mustRun(t, "--cluster", "3")
	for _, want := range []string{"embedded etcd at", "3 members joined", "every call ended once", "answers again"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, stdout)
		}
	}
	if m := regexp.MustCompile(`(\d+) other errors`).FindStringSubmatch(stdout); m == nil || m[1] != "0" {
		t.Errorf("calls ended with other errors than the member's loss:\n%s", stdout)
	}
}
