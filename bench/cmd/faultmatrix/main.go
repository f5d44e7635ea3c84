// Command faultmatrix shows, by experiment, how mcpactor, the official Go
// SDK (github.com/modelcontextprotocol/go-sdk) and mcp-go
// (github.com/mark3labs/mcp-go) behave when a stdio MCP server misbehaves:
// banners and garbage on stdout, huge and endless lines, out-of-order and
// string ids, crashes, timeouts, progress, server-to-client requests, a
// server that ignores SIGTERM, a stderr flood, a tool without schema, an
// endless pagination cursor; and the faults that test whether a client is
// bounded in time and memory: answers it cannot use, a server that stops
// reading or closes stdout while it lives on, server requests with ids
// JSON-RPC forbids, a handler that ignores its context at Close, a start
// failure whose cause precedes pages of usage, and a notification flood
// against a blocked subscriber.
//
// With -transport http it does the same over HTTP (http_scenarios.go):
// each client's own Streamable HTTP transport against the test server's
// HTTP faults (an expired session, 5xx, streams closed early with and
// without event ids, retry:, refused GET listeners, bodies that are not
// JSON or never end, a server that never answers, Close with calls in
// flight, a server restart mid-call), and the legacy HTTP+SSE transport;
// after each cell's Close it counts what the client left behind
// (goroutines, open connections).
//
//	go -C bench run ./cmd/faultmatrix [-transport stdio|http] [-out file.md]
//	    [-clients mcpactor,gosdk,mcpgo] [-scenarios 1,2,...] [-timeout 20s]
//
// Every (scenario, client) cell runs in a process of its own (this program
// re-executed with -cell), which starts a fresh test server with the fault
// switched on: over stdio internal/testserver re-executed likewise, over
// HTTP its HTTPHandler in the cell's process.
// The cell has -timeout to finish; past it the outcome is "hangs" with the
// step it was stuck in, and the cell's processes are killed. The report is a
// markdown table, rows = scenarios, columns = clients, then the details of
// each cell (full error texts, timings).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

const resultMarker = "FAULTMATRIX-RESULT "

func main() {
	// When re-executed as the test server, serve and exit.
	testserver.RunIfChild()

	var (
		out       string
		clients   string
		scens     string
		timeout   time.Duration
		cell      string
		noDetails bool
		transport string
	)
	flag.StringVar(&out, "out", "", "also write the markdown report to this file")
	flag.StringVar(&clients, "clients", strings.Join(clientOrder, ","), "comma-separated clients: "+strings.Join(clientOrder, ","))
	flag.StringVar(&scens, "scenarios", "", "comma-separated scenario numbers, HTTP ones with or without their H (default: all)")
	flag.StringVar(&transport, "transport", "stdio", "the matrix to run: stdio or http")
	flag.DurationVar(&timeout, "timeout", 20*time.Second, "hard deadline of one scenario for one client")
	flag.BoolVar(&noDetails, "no-details", false, "print the table only")
	flag.StringVar(&cell, "cell", "", "internal: run one cell, [http:]<scenario>/<client>, and print its outcome")
	flag.Parse()

	if cell != "" {
		os.Exit(runCell(cell, timeout))
	}

	m := matrices[transport]
	if m == nil {
		fatalf("unknown -transport %q (want stdio or http)", transport)
	}
	var cs []string
	for _, c := range strings.Split(clients, ",") {
		c = strings.TrimSpace(c)
		if _, ok := dialers[c]; !ok {
			fatalf("unknown client %q (want some of %s)", c, strings.Join(clientOrder, ","))
		}
		cs = append(cs, c)
	}
	var sel []scenario
	if scens == "" {
		sel = m.scenarios
	} else {
		for _, f := range strings.Split(scens, ",") {
			f = strings.TrimPrefix(strings.TrimSpace(f), m.prefix)
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 || n > len(m.scenarios) {
				fatalf("bad -scenarios entry %q", f)
			}
			sel = append(sel, m.scenarios[n-1])
		}
	}

	setSubreaper()
	results := make(map[string]outcome)
	started := time.Now()
	for _, sc := range sel {
		for _, c := range cs {
			fmt.Fprintf(os.Stderr, "faultmatrix: %3s %-8s ... ", m.prefix+strconv.Itoa(sc.id), c)
			o := runCellProcess(m, sc.id, c, timeout)
			fmt.Fprintf(os.Stderr, "%s\n", o.Short)
			results[cellKey(sc.id, c)] = o
		}
	}
	report := render(m, sel, cs, results, started, time.Since(started), !noDetails)
	fmt.Print(report)
	if out != "" {
		if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
			fatalf("writing %s: %v", out, err)
		}
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "faultmatrix: "+format+"\n", args...)
	os.Exit(2)
}

func cellKey(id int, client string) string { return strconv.Itoa(id) + "/" + client }

// matrix is one table: the scenarios of a transport.
type matrix struct {
	name string // the -transport value, and the cell spec's prefix
	// title names the matrix in the report's first line, and flags are
	// the command-line flags that select it, as that line quotes them.
	title, flags string
	// prefix numbers its rows in the report ("H1"), so that they are not
	// confused with the other matrix's.
	prefix    string
	scenarios []scenario
}

var (
	stdioMatrix = &matrix{name: "stdio", title: "stdio", scenarios: scenarios}
	httpMatrix  = &matrix{name: "http", title: "HTTP", flags: " -transport http", prefix: "H", scenarios: httpScenarios}
	matrices    = map[string]*matrix{"stdio": stdioMatrix, "http": httpMatrix}
)

// cellSpec is the -cell value of a cell: "3/gosdk", "http:3/gosdk".
func (m *matrix) cellSpec(id int, client string) string {
	if m == stdioMatrix {
		return cellKey(id, client)
	}
	return m.name + ":" + cellKey(id, client)
}

// runCellProcess runs one cell in a child process and reads its outcome.
// The child enforces the scenario deadline itself; this one is the backstop
// for a child that cannot even report (it is killed, with everything it
// started).
func runCellProcess(m *matrix, id int, client string, timeout time.Duration) outcome {
	exe, err := os.Executable()
	if err != nil {
		return outcome{Short: "harness error: " + err.Error()}
	}
	cmd := exec.Command(exe, "-cell", m.cellSpec(id, client), "-timeout", timeout.String())
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != testserver.EnvChild {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return outcome{Short: "harness error: " + err.Error()}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	backstop := timeout + 20*time.Second
	var o outcome
	select {
	case <-done:
		o = parseCellOutput(stdout.String(), stderr.String())
	case <-time.After(backstop):
		for _, p := range descendants(cmd.Process.Pid) {
			killPids([]int{p.pid})
		}
		_ = cmd.Process.Kill()
		<-done
		o = outcome{Short: fmt.Sprintf("hangs: the cell did not finish in %s (killed)", backstop)}
	}
	// Servers orphaned by a killed cell were adopted by this process (it
	// is a child subreaper): end them.
	var orphans []int
	for _, p := range children(os.Getpid()) {
		orphans = append(orphans, p.pid)
	}
	if len(orphans) > 0 {
		killPids(orphans)
		reap(orphans)
		o.Detail = strings.TrimPrefix(o.Detail+fmt.Sprintf("; harness killed %d orphaned process(es)", len(orphans)), "; ")
	}
	return o
}

func parseCellOutput(stdout, stderr string) outcome {
	for _, line := range strings.Split(stdout, "\n") {
		if rest, ok := strings.CutPrefix(line, resultMarker); ok {
			var o outcome
			if err := json.Unmarshal([]byte(rest), &o); err == nil {
				return o
			}
		}
	}
	tail := stderr
	if len(tail) > 300 {
		tail = tail[len(tail)-300:]
	}
	return outcome{Short: "cell died without a result", Detail: oneLine(tail)}
}

// runCell runs one scenario for one client in this process, prints the
// outcome and cleans up every process it started.
func runCell(spec string, timeout time.Duration) int {
	m := stdioMatrix
	if name, rest, ok := strings.Cut(spec, ":"); ok {
		m, spec = matrices[name], rest
	}
	idS, client, ok := strings.Cut(spec, "/")
	id, err := strconv.Atoi(idS)
	if m == nil || !ok || err != nil || id < 1 || id > len(m.scenarios) || dialers[client] == nil {
		fmt.Fprintf(os.Stderr, "faultmatrix: bad -cell %q\n", spec)
		return 2
	}
	sc := m.scenarios[id-1]
	r := &run{client: client}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	resc := make(chan string, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				resc <- fmt.Sprintf("panic: %v", p)
			}
		}()
		resc <- sc.run(ctx, r)
	}()
	var o outcome
	hung := false
	select {
	case s := <-resc:
		o.Short = s
	case <-time.After(timeout):
		hung = true
		o.Short = fmt.Sprintf("hangs until the %s deadline (in: %s)", timeout, r.currentStep())
	}
	o.Detail = r.detail()

	// What is left of the server after the scenario (which closed its
	// client unless it hung)?
	var left []int
	for _, p := range children(os.Getpid()) {
		left = append(left, p.pid)
		if hung {
			continue
		}
		switch st := pidState(p.pid); st {
		case "running":
			// The scenario already judged this itself for the Close fault.
			if m != stdioMatrix || sc.id != 10 {
				o.Short += "; server process left running after Close"
			}
		case "zombie":
			if m != stdioMatrix || sc.id != 10 {
				o.Short += "; server exited but not reaped after Close"
			}
		}
	}
	if len(left) > 0 {
		all := left
		for _, p := range left {
			for _, d := range descendants(p) {
				all = append(all, d.pid)
			}
		}
		killPids(all)
		reap(left)
	}

	b, _ := json.Marshal(o)
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "\n%s%s\n", resultMarker, b)
	w.Flush()
	return 0
}

// render builds the markdown report.
func render(m *matrix, sel []scenario, cs []string, results map[string]outcome, started time.Time, took time.Duration, details bool) string {
	var b strings.Builder
	commit := ""
	if rev := revision(); rev != "" {
		commit = ", commit " + rev
	}
	fmt.Fprintf(&b, "Fault matrix, %s: `go -C bench run ./cmd/faultmatrix%s` on %s%s (%s, %s/%s, %d CPUs), %s.\n\n",
		m.title, m.flags, started.UTC().Format("2006-01-02 15:04 UTC"), commit, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), took.Round(time.Second))
	b.WriteString("| # | fault |")
	for _, c := range cs {
		fmt.Fprintf(&b, " %s |", clientTitles[c])
	}
	b.WriteString("\n|---|---|")
	for range cs {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, sc := range sel {
		fmt.Fprintf(&b, "| %s%d | %s |", m.prefix, sc.id, sc.title)
		for _, c := range cs {
			fmt.Fprintf(&b, " %s |", cellText(results[cellKey(sc.id, c)].Short))
		}
		b.WriteString("\n")
	}
	if !details {
		return b.String()
	}
	b.WriteString("\nDetails:\n\n")
	for _, sc := range sel {
		fmt.Fprintf(&b, "- %s%d. %s\n", m.prefix, sc.id, sc.title)
		for _, c := range cs {
			o := results[cellKey(sc.id, c)]
			d := o.Detail
			if d == "" {
				d = "-"
			}
			fmt.Fprintf(&b, "  - %s: %s\n", clientTitles[c], cellText(d))
		}
	}
	return b.String()
}

// revision names the commit the harness was built from: the build's VCS
// stamp, or, since go run does not stamp one, git in the working directory
// (the repository, when run as documented). Uncommitted changes are said.
// It is "" when neither knows.
func revision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev string
		var dirty bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			rev = rev[:min(len(rev), 7)]
			if dirty {
				rev += " with uncommitted changes"
			}
			return rev
		}
	}
	out, err := exec.Command("git", "rev-parse", "--short=7", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		rev += " with uncommitted changes"
	}
	return rev
}

// cellText keeps a table cell on one line and free of column breaks.
func cellText(s string) string {
	s = oneLine(s)
	return strings.ReplaceAll(s, "|", "\\|")
}
