package supervisor_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor"
)

// Under StartupGate and StartupImmediate, Manage returns without waiting
// for a slow server that has no cached tool list: the server is reported
// connecting, with no tools yet and ToolsPending, and its tools arrive
// later with an EventToolsChanged. The default waits for it.
func TestManageStartupPolicies(t *testing.T) {
	for name, policy := range map[string]supervisor.StartupPolicy{"gate": supervisor.StartupGate, "immediate": supervisor.StartupImmediate} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			delay := filepath.Join(t.TempDir(), "delay")
			os.WriteFile(delay, []byte("6"), 0o600)
			toolsChanged := make(chan struct{}, 16)
			start := time.Now()
			m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{slowStart(t, delay)}, Startup: policy,
				OnEvent: func(e supervisor.Event) {
					if e.Kind == supervisor.EventToolsChanged && e.Server == "slow" {
						toolsChanged <- struct{}{}
					}
				}})
			// The server takes 6 s; the gate is 250 ms.
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("Manage returned after %v", d)
			}
			st := status(m, "slow")
			if st.State != supervisor.StateConnecting || st.Tools != 0 || !st.ToolsPending || len(m.Tools()) != 0 {
				t.Errorf("at return: %+v, tools %v", st, m.Tools())
			}
			select {
			case <-toolsChanged:
			case <-time.After(harness.Bound):
				t.Fatal("no EventToolsChanged")
			}
			if st := status(m, "slow"); st.State != supervisor.StateReady || st.Tools == 0 || st.ToolsPending {
				t.Errorf("after the event: %+v", st)
			}
		})
	}
	t.Run("wait-uncached", func(t *testing.T) {
		t.Parallel()
		delay := filepath.Join(t.TempDir(), "delay")
		os.WriteFile(delay, []byte("1"), 0o600)
		m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{slowStart(t, delay)}})
		if st := status(m, "slow"); st.State != supervisor.StateReady || st.Tools == 0 || st.ToolsPending {
			t.Errorf("the default returned before the uncached server: %+v", st)
		}
	})
}

// A manager may start with no server and grow with Add.
func TestManageEmptyThenAdd(t *testing.T) {
	m := manage(t, supervisor.ManagerOptions{})
	if len(m.Status()) != 0 || len(m.Tools()) != 0 {
		t.Fatalf("empty manager: %v %v", m.Status(), m.Tools())
	}
	if err := m.Add(harness.Context(t), testServer(t, "late", testserver.Options{}, "late")); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the added server's tools", func() bool { return len(m.Tools()) > 0 })
	echo(t, m, "mcp__late__echo", "grown")
}
