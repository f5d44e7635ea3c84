package supervisor_test

import (
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
)

// eventLog records a manager's events.
type eventLog struct {
	mu     sync.Mutex
	events []supervisor.Event
}

func (l *eventLog) add(e supervisor.Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

// states returns the states server has changed to (EventStateChanged),
// in order.
func (l *eventLog) states(server string) []supervisor.State {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []supervisor.State
	for _, e := range l.events {
		if e.Server == server && e.Kind == supervisor.EventStateChanged {
			out = append(out, e.State)
		}
	}
	return out
}

// count returns how many events of kind server has had, and empties the
// log when reset.
func (l *eventLog) count(server string, kind supervisor.EventKind, reset bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.events {
		if e.Server == server && e.Kind == kind {
			n++
		}
	}
	if reset {
		l.events = nil
	}
	return n
}

// TestOneEventPerChange: a server that says its lists changed right after
// the manager first lists them (as real servers do at start) is listed
// again, and the same lists again are no change: one EventToolsChanged
// and one EventCatalogChanged (prompts and resources together) at start.
// Close is no change either: no event for the teardown.
func TestOneEventPerChange(t *testing.T) {
	hub := &testserver.Hub{}
	spec := testserver.DefaultSpec(testserver.Options{})
	spec.Hub = hub
	var toolLists, promptLists, resourceLists atomic.Int64
	spec.Observe = func(r testserver.Received) {
		switch r.Method {
		case messages.MethodToolsList:
			if toolLists.Add(1) == 1 {
				go hub.Notify(messages.NotificationToolsListChanged, nil)
			}
		case messages.MethodPromptsList:
			if promptLists.Add(1) == 1 {
				go func() {
					hub.Notify(messages.NotificationPromptsListChanged, nil)
					hub.Notify(messages.NotificationResourcesListChanged, nil)
				}()
			}
		case messages.MethodResourcesList:
			resourceLists.Add(1)
		}
	}
	h := testserver.NewSpecHandler(testserver.Options{}, spec, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		h.Close()
	})
	var log eventLog
	sys := harness.ActorSystem(t)
	m, err := supervisor.Manage(harness.Context(t), sys.Root, supervisor.ManagerOptions{
		Servers: []*supervisor.Server{httpServer(t, "remote", srv.URL, config.RestartPolicy{})},
		OnEvent: log.add,
	})
	if err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the lists listed again", func() bool {
		return toolLists.Load() >= 2 && promptLists.Load() >= 2 && resourceLists.Load() >= 2
	})
	// The events of the second lists, had there been any, come within
	// this.
	time.Sleep(500 * time.Millisecond)
	if n := log.count("remote", supervisor.EventToolsChanged, false); n != 1 {
		t.Errorf("%d tools-changed events at start, want 1 (%d tools/list)", n, toolLists.Load())
	}
	if n := log.count("remote", supervisor.EventCatalogChanged, true); n != 1 {
		t.Errorf("%d catalog-changed events at start, want 1 (%d prompts/list, %d resources/list)", n, promptLists.Load(), resourceLists.Load())
	}

	if err := m.Close(harness.Context(t)); err != nil {
		t.Fatal(err)
	}
	if n := log.count("remote", supervisor.EventToolsChanged, false); n != 0 {
		t.Errorf("%d tools-changed events at Close, want none", n)
	}
}

// TestRemoveTellsOfTheToolsGone: Remove, unlike Close, is a change: one
// EventToolsChanged for the server whose tools went.
func TestRemoveTellsOfTheToolsGone(t *testing.T) {
	var log eventLog
	m := manage(t, supervisor.ManagerOptions{
		Servers: []*supervisor.Server{testServer(t, "alpha", testserver.Options{}, "alpha")},
		OnEvent: log.add,
	})
	harness.WaitFor(t, "alpha's tools", func() bool { return log.count("alpha", supervisor.EventToolsChanged, false) == 1 })
	log.count("alpha", supervisor.EventToolsChanged, true)
	if err := m.Remove(harness.Context(t), "alpha"); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the event of alpha's tools gone", func() bool { return log.count("alpha", supervisor.EventToolsChanged, false) == 1 })
}

// TestLastErrorIsKeptMarkedPast: a server's last error comes with its
// time, is current while the server is down, and once the server is
// ready again is kept, with the same time, marked past.
func TestLastErrorIsKeptMarkedPast(t *testing.T) {
	f := newFlakyHTTP(t)
	m := manage(t, supervisor.ManagerOptions{
		Servers: []*supervisor.Server{httpServer(t, "remote", f.URL,
			config.RestartPolicy{MaxRestarts: 1000, BackoffMin: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond})}})
	echo(t, m, "mcp__remote__echo", "before")
	if st := status(m, "remote"); st.LastError != nil || !st.LastErrorAt.IsZero() || st.LastErrorPast {
		t.Fatalf("before any failure: %v at %v (past %v)", st.LastError, st.LastErrorAt, st.LastErrorPast)
	}

	before := time.Now()
	f.failing.Store(true)
	ctx := harness.Context(t)
	for range supervisor.CallFailureThreshold {
		m.CallTool(ctx, "mcp__remote__echo", map[string]any{"message": "down"})
	}
	harness.WaitFor(t, "the server down", func() bool { return status(m, "remote").State != supervisor.StateReady })
	down := status(m, "remote")
	at := down.LastErrorAt
	if down.LastError == nil || at.Before(before) || at.After(time.Now()) || down.LastErrorPast {
		t.Errorf("while down: %v at %v (past %v), want a current error after %v", down.LastError, at, down.LastErrorPast, before)
	}

	f.failing.Store(false)
	harness.WaitFor(t, "the server ready again", func() bool { return status(m, "remote").State == supervisor.StateReady })
	up := status(m, "remote")
	if up.LastError == nil || !up.LastErrorPast || up.LastErrorAt.Before(at) {
		t.Errorf("after recovery: %v at %v (past %v), want the last error kept, marked past", up.LastError, up.LastErrorAt, up.LastErrorPast)
	}
}
