package supervisor_test

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor"
)

// listGate holds the first list of one kind that a manager fetches
// (through WithListedHook) until it is opened, and counts the lists of
// that kind.
type listGate struct {
	kind     string
	lists    atomic.Int32
	entered  chan struct{} // closed once the first list is held
	release  chan struct{}
	openOnce sync.Once
}

func newListGate(kind string) *listGate {
	return &listGate{kind: kind, entered: make(chan struct{}), release: make(chan struct{})}
}

// hook is the manager's listed hook.
func (g *listGate) hook(_, kind string) {
	if kind != g.kind {
		return
	}
	if g.lists.Add(1) == 1 {
		close(g.entered)
		<-g.release
	}
}

// open lets the held list go on; calling it again does nothing.
func (g *listGate) open() { g.openOnce.Do(func() { close(g.release) }) }

// A list_changed that arrives while a list of the same kind is in flight
// is not dropped: that list's answer may predate the change, so the
// manager lists again once it is in (else it would keep the old list
// until the next change).
func TestManagerListsAgainAfterAChangeDuringAListing(t *testing.T) {
	for _, kind := range []string{"tools", "prompts", "resources"} {
		t.Run(kind, func(t *testing.T) {
			gate := newListGate(kind) // the first list: held while the change comes
			defer gate.open()
			m := manage(t, supervisor.WithListedHook(supervisor.ManagerOptions{}, gate.hook))
			ctx := harness.Context(t)
			if err := m.Add(ctx, testServer(t, "s", testserver.Options{}, t.Name())); err != nil {
				t.Fatal(err)
			}
			<-gate.entered
			c, ok := m.Client("s")
			if !ok {
				t.Fatal("no client")
			}
			method := map[string]string{"tools": messages.NotificationToolsListChanged,
				"prompts": messages.NotificationPromptsListChanged, "resources": messages.NotificationResourcesListChanged}[kind]
			if _, err := c.CallTool(ctx, "notify", map[string]any{"method": method}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond) // the notification reaches the manager meanwhile
			gate.open()
			deadline := time.Now().Add(harness.Bound)
			for gate.lists.Load() < 2 {
				if time.Now().After(deadline) {
					t.Fatalf("the change during the listing was dropped: %d %s lists", gate.lists.Load(), kind)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// A tools/list that fails (a server still warming up) is tried again with
// a backoff on the same connection: the server does not stay up with no
// tools until a restart, and its status names the failure meanwhile.
func TestManagerRetriesAFailedToolList(t *testing.T) {
	m := manage(t, supervisor.ManagerOptions{})
	ctx := harness.Context(t)
	if err := m.Add(ctx, testServer(t, "s", testserver.Options{FailToolsList: 2}, t.Name())); err != nil {
		t.Fatal(err)
	}
	// Two retries: 0.5 s, then 1 s.
	deadline := time.Now().Add(harness.Bound + 2*time.Second)
	for status(m, "s").Tools == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no tools after two failed lists: %+v", status(m, "s"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	st := status(m, "s")
	if st.State != supervisor.StateReady || st.Restarts != 0 || st.ToolsPending {
		t.Errorf("listed again by a restart, or still pending: %+v", st)
	}
	if st.LastError == nil || !strings.Contains(st.LastError.Error(), "tools/list") {
		t.Errorf("LastError = %v, want the failed tools/list", st.LastError)
	}
	echo(t, m, "mcp__s__echo", "after the retry")
}
