package supervisor_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor"
)

// The snapshot shares what did not change from one publication to the
// next (the views of the members, the index of their names, the tools
// named): a server that goes, and one that comes back under the same
// name, show in Status, Tools and Client at once, and the others stay as
// they were. (The tests also check, at every publication, that no change
// to a member went unpublished: export_test.go.)
func TestManagerSnapshotFollowsMembers(t *testing.T) {
	m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{
		testServer(t, "a", testserver.Options{}, t.Name()+"-a"),
		testServer(t, "b", testserver.Options{}, t.Name()+"-b"),
		testServer(t, "c", testserver.Options{}, t.Name()+"-c"),
	}})
	toolsOf := func() map[string]int {
		n := map[string]int{}
		for _, tl := range m.Tools() {
			n[tl.Server]++
			if !strings.HasPrefix(tl.Name, "mcp__"+tl.Server+"__") {
				t.Errorf("tool %s offered for server %s", tl.Name, tl.Server)
			}
		}
		return n
	}
	names := func() string {
		var out []string
		for _, st := range m.Status() {
			out = append(out, st.Name)
		}
		return strings.Join(out, ",")
	}
	before := toolsOf()
	if before["a"] == 0 || before["a"] != before["b"] || before["b"] != before["c"] || names() != "a,b,c" {
		t.Fatalf("tools %v, servers %s", before, names())
	}

	ctx := harness.Context(t)
	if err := m.Remove(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if n := toolsOf(); n["b"] != 0 || n["a"] != before["a"] || n["c"] != before["c"] {
		t.Errorf("after Remove(b): tools %v", n)
	}
	if _, ok := m.Client("b"); ok {
		t.Error("a removed server's client is offered")
	}
	harness.WaitFor(t, "b gone from Status", func() bool { return names() == "a,c" })

	// Another configuration under the same name: another member.
	if err := m.Add(ctx, testServer(t, "b", testserver.Options{PageSize: 4}, t.Name()+"-b2")); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the new b up", func() bool {
		st := status(m, "b")
		return st.State == supervisor.StateReady && st.Tools == before["b"] && !st.ToolsPending
	})
	if n := toolsOf(); n["b"] != before["b"] || n["a"] != before["a"] || n["c"] != before["c"] || names() != "a,b,c" {
		t.Errorf("after Add(b): tools %v, servers %s", n, names())
	}
	if _, ok := m.Client("b"); !ok {
		t.Error("no client for the new b")
	}
	echo(t, m, "mcp__b__echo", "back")
	echo(t, m, "mcp__c__echo", "undisturbed")
}

// A manager's servers cost it the same, each, however many it has: the
// servers it starts with are published once, not one snapshot each, and
// a change to one server's view copies a chunk of the views, not all of
// them. Publishing each server as it came placed every server anew in a
// fresh index, which made a bring-up of N servers allocate N² (and a
// thousand servers, hundreds of megabytes). Disabled servers: what is
// measured is the manager's bookkeeping, not the servers' processes.
func TestManagerBookkeepingGrowsLinearly(t *testing.T) {
	sys := harness.ActorSystem(t) // its registry is a fixed cost, made before
	perServer := func(n int) float64 {
		servers := make([]*supervisor.Server, n)
		for i := range servers {
			servers[i] = testServer(t, fmt.Sprintf("s%04d", i), testserver.Options{}, "")
			servers[i].Enabled = false
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := supervisor.Manage(harness.Context(t), sys.Root, supervisor.ManagerOptions{Servers: servers})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 10 { // servers going one at a time
			if err := m.Remove(harness.Context(t), servers[i*n/10].Name); err != nil {
				t.Fatal(err)
			}
		}
		closeManager(t, m)
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
	}
	small, large := perServer(100), perServer(2000)
	t.Logf("bytes allocated per server: %.0f with 100 servers, %.0f with 2000", small, large)
	// Linear: about the same per server. Quadratic was 15 times more at
	// 2000 than at 100; the bound leaves room for what other goroutines
	// of the process allocate meanwhile.
	if large > 3*small {
		t.Errorf("a manager of 2000 servers allocated %.0f bytes per server, against %.0f with 100: its bookkeeping grows faster than its servers", large, small)
	}
}

// An event is told once the snapshot shows it: a subscriber that looks
// the server up on its event finds it, also when a reload brings many
// servers at once and publishes them together.
func TestManagerEventFollowsItsSnapshot(t *testing.T) {
	const n = 200 // within the event queue, which drops the oldest past 256
	handed := make(chan *supervisor.Manager, 1)
	var missing, disabled atomic.Int64
	var subscriber *supervisor.Manager // the handler's: it runs on one goroutine
	m := manage(t, supervisor.ManagerOptions{OnEvent: func(e supervisor.Event) {
		if subscriber == nil {
			subscriber = <-handed
		}
		if e.Kind == supervisor.EventStateChanged && e.State == supervisor.StateDisabled {
			if !subscriber.Has(e.Server) {
				missing.Add(1)
			}
			disabled.Add(1)
		}
	}})
	handed <- m
	servers := make([]*supervisor.Server, n)
	for i := range servers {
		servers[i] = testServer(t, fmt.Sprintf("s%03d", i), testserver.Options{}, "")
		servers[i].Enabled = false
	}
	if err := m.Reload(harness.Context(t), servers); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "every server's event", func() bool { return disabled.Load() == n })
	if k := missing.Load(); k > 0 {
		t.Errorf("%d of %d subscribers' lookups did not find the server their event was about", k, n)
	}
}
