package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

func TestMain(m *testing.M) {
	testserver.RunIfChild()
	os.Exit(m.Run())
}

func TestProcHelpers(t *testing.T) {
	before := children(os.Getpid())
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep binary:", err)
	}
	pids := newChildren(before)
	if len(pids) != 1 || pids[0] != cmd.Process.Pid {
		t.Fatalf("newChildren = %v, want [%d]", pids, cmd.Process.Pid)
	}
	if st := pidState(cmd.Process.Pid); st != "running" {
		t.Fatalf("state of a running child = %q", st)
	}
	_ = cmd.Process.Kill()
	if st := waitGone(cmd.Process.Pid, 5*time.Second); st != "zombie" {
		t.Fatalf("state of an unreaped child = %q, want zombie", st)
	}
	_ = cmd.Wait()
	if st := pidState(cmd.Process.Pid); st != "gone" {
		t.Fatalf("state of a reaped child = %q, want gone", st)
	}
	if rss, hwm := memKB(); rss <= 0 || hwm < rss {
		t.Fatalf("memKB = %d, %d", rss, hwm)
	}
}

// TestScenariosRun runs a few quick scenarios for every client in process,
// checking only that the harness drives each client to some outcome: past
// the connect, except in fault 21, where the connect must fail (not hang).
func TestScenariosRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	for _, id := range []int{4, 13, 15, 21} {
		for _, c := range clientOrder {
			r := &run{client: c}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			got := scenarios[id-1].run(ctx, r)
			cancel()
			t.Logf("scenario %d, %s: %s", id, c, got)
			connectFails := strings.HasPrefix(got, "connect fails")
			if got == "" || (id == 21) != connectFails || (id != 21 && strings.HasPrefix(got, "connect")) {
				t.Errorf("scenario %d, %s: %q (%s)", id, c, got, r.detail())
			}
		}
	}
}

// TestCatalogueSize keeps catalogueSize, which fault 14 divides by, in step
// with the test server's tools.
func TestCatalogueSize(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := dialMcpactor(ctx, dialOpts{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	names, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != catalogueSize {
		t.Fatalf("the test server lists %d tools, catalogueSize is %d: %v", len(names), catalogueSize, names)
	}
}

func TestRender(t *testing.T) {
	res := map[string]outcome{cellKey(1, "mcpactor"): {Short: "ok | fine", Detail: "d"}}
	out := render(stdioMatrix, scenarios[:1], []string{"mcpactor", "gosdk"}, res, time.Now(), time.Second, true)
	if !strings.Contains(out, "| 1 | stdout banner before initialize | ok \\| fine |  |") {
		t.Fatalf("table row missing or unescaped:\n%s", out)
	}
	if !strings.Contains(out, "  - mcpactor: d\n") || !strings.Contains(out, "  - go-sdk v1.8.0: -\n") {
		t.Fatalf("details missing:\n%s", out)
	}
}

// TestHTTPScenariosRun runs a few quick HTTP scenarios for every client in
// process, checking that the harness drives each client past the connect
// to an outcome, and that the legacy transport works for all three.
func TestHTTPScenariosRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	defer func(d time.Duration) { leakSettle = d }(leakSettle)
	leakSettle = 300 * time.Millisecond
	for _, id := range []int{3, 6, 11, 17} {
		for _, c := range clientOrder {
			r := &run{client: c}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			got := httpScenarios[id-1].run(ctx, r)
			cancel()
			t.Logf("H%d, %s: %s", id, c, got)
			if got == "" || strings.HasPrefix(got, "connect") || strings.Contains(got, "hangs") ||
				(id == 17 && !strings.HasPrefix(got, "ok: echo")) {
				t.Errorf("H%d, %s: %q (%s)", id, c, got, r.detail())
			}
		}
	}
}

func TestLeftovers(t *testing.T) {
	stack := "goroutine 7 [select]:\n" +
		"net/http.(*persistConn).roundTrip(0xc000)\n\t/x/transport.go:1 +0x1\n" +
		"github.com/mark3labs/mcp-go/client/transport.(*StreamableHTTP).listenForever(0xc000, {0x1, 0x2})\n\t/y.go:2 +0x2\n" +
		"created by github.com/mark3labs/mcp-go/client/transport.(*StreamableHTTP).Start in goroutine 1\n\t/y.go:3 +0x3"
	if got := entry(stack); got != "transport.(*StreamableHTTP).listenForever" {
		t.Errorf("entry = %q", got)
	}
	if serverSide(stack) || poolSide(stack) {
		t.Error("a client goroutine classified as the server's or the pool's")
	}
	if got := groupNames([]string{"a", "a", "b"}); got != " (2× a, b)" {
		t.Errorf("groupNames = %q", got)
	}
	l := leftovers{pool: 2, idle: 1}
	if short, _ := l.describe(); !l.clean() || !strings.Contains(short, "1 idle keep-alive") || strings.Contains(short, "leak") {
		t.Errorf("idle pool connection: %q", short)
	}
	l = leftovers{client: []string{"x"}, active: 1}
	if short, _ := l.describe(); l.clean() || !strings.Contains(short, "leak") || !strings.Contains(short, "1 busy connection") {
		t.Errorf("a leak: %q", short)
	}
	if ids := goroutines(); len(ids) == 0 {
		t.Error("goroutines found none")
	}
}

func TestErrorKind(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("call 17 failed\nafter 250ms"), "call N failed after Nms"},
		{errors.New(strings.Repeat("x", 98) + "12345"), strings.Repeat("x", 98) + "N…"},
	} {
		if got := errorKind(c.err); got != c.want {
			t.Errorf("errorKind(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
