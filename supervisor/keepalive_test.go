package supervisor_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
)

// A server that stays alive but stops answering pings is marked unhealthy
// after keepalive's misses in a row and restarted as a new connection
// generation, under the same restart policy as a crash; a healthy server
// beside it is never disturbed.
func TestKeepaliveRestartsAStuckServer(t *testing.T) {
	events := &eventLog{}
	stuck := testServer(t, "stuck", testserver.Options{IgnorePing: true}, "stuck")
	stuck.Keepalive = 100 * time.Millisecond
	healthy := testServer(t, "healthy", testserver.Options{}, "healthy")
	healthy.Keepalive = 100 * time.Millisecond
	m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{stuck, healthy},
		OnEvent: events.add})

	harness.WaitFor(t, "the stuck server restarted", func() bool {
		st := status(m, "stuck")
		return st.Restarts >= 1 && st.State == supervisor.StateReady && st.Generation >= 2
	})
	if states := events.states("stuck"); !slices.Contains(states, supervisor.StateUnhealthy) {
		t.Errorf("states %v: never unhealthy", states)
	}
	if err := status(m, "stuck").LastError; err == nil || !strings.Contains(err.Error(), "ping") {
		t.Errorf("last error %v: want the ping that failed", err)
	}
	if st := status(m, "healthy"); st.Restarts != 0 || st.State != supervisor.StateReady {
		t.Errorf("the healthy server was disturbed: %+v", st)
	}
	echo(t, m, "mcp__stuck__echo", "served between restarts")

	// It stays stuck: the restart policy's window fills and the breaker
	// opens, as for a server that keeps crashing.
	harness.WaitFor(t, "the breaker open", func() bool { return status(m, "stuck").State == supervisor.StateBreakerOpen })
	if st := status(m, "stuck"); st.Restarts != stuck.Restart.MaxRestarts {
		t.Errorf("%d restarts before the breaker opened, want %d", st.Restarts, stuck.Restart.MaxRestarts)
	}
}

// A live server that answers ping with an error (-32601: it does not
// implement ping) has answered: it is alive, and keepalive never
// restarts it. Only a ping left unanswered is a miss.
func TestKeepaliveCountsAnErrorAnswerAsAlive(t *testing.T) {
	var pings atomic.Int64
	spec := testserver.DefaultSpec(testserver.Options{})
	methods := map[string]testserver.Method{}
	maps.Copy(methods, spec.Methods)
	methods["ping"] = func(context.Context, json.RawMessage) (json.RawMessage, error) {
		pings.Add(1)
		return nil, &testserver.RPCError{Code: -32601, Message: "Method not found"}
	}
	spec.Methods = methods
	h := testserver.NewSpecHandler(testserver.Options{}, spec, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		h.Close()
	})
	s := httpServer(t, "noping", srv.URL, config.RestartPolicy{BackoffMin: 20 * time.Millisecond, BackoffMax: 50 * time.Millisecond})
	s.Keepalive = 50 * time.Millisecond
	m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{s}})

	// Ten pings answered with an error: before, the third restarted it.
	harness.WaitFor(t, "ten pings", func() bool { return pings.Load() >= 10 })
	if st := status(m, "noping"); st.Restarts != 0 || st.State != supervisor.StateReady || st.Generation != 1 {
		t.Errorf("after %d pings answered -32601: %v, generation %d; want ready, never restarted", pings.Load(), st, st.Generation)
	}
	echo(t, m, "mcp__noping__echo", "still served")
}
