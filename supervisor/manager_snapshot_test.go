package supervisor_test

import (
	"strings"
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
