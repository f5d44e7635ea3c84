package main

import (
	"context"
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
	out := render(scenarios[:1], []string{"mcpactor", "gosdk"}, res, time.Now(), time.Second, true)
	if !strings.Contains(out, "| 1 | stdout banner before initialize | ok \\| fine |  |") {
		t.Fatalf("table row missing or unescaped:\n%s", out)
	}
	if !strings.Contains(out, "  - mcpactor: d\n") || !strings.Contains(out, "  - go-sdk v1.8.0: -\n") {
		t.Fatalf("details missing:\n%s", out)
	}
}
