package mcpactor

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/transport"
)

// The root declares its constants with their values, for go doc; the
// engine uses its own.
func TestConstantsMatchTheEngine(t *testing.T) {
	if MaxPages != actors.MaxPages {
		t.Errorf("MaxPages is %d, %d in the engine", MaxPages, actors.MaxPages)
	}
	if DefaultCloseTimeout != actors.DefaultCloseTimeout {
		t.Errorf("DefaultCloseTimeout is %v, %v in the engine", DefaultCloseTimeout, actors.DefaultCloseTimeout)
	}
	if CallFailureThreshold != supervisor.CallFailureThreshold {
		t.Errorf("CallFailureThreshold is %d, %d in the engine", CallFailureThreshold, supervisor.CallFailureThreshold)
	}
}

// The root declares the manager's states and the environment policies
// with their values, for go doc; the engine has its own. A value that drifts would turn one into
// another silently at the conversion, so each pair is compared here.
func TestEnumerationsMatchTheEngine(t *testing.T) {
	states := map[ServerState]supervisor.State{
		StateConnecting: supervisor.StateConnecting, StateReady: supervisor.StateReady,
		StateRestarting: supervisor.StateRestarting, StateBreakerOpen: supervisor.StateBreakerOpen,
		StateUnhealthy: supervisor.StateUnhealthy, StateDisabled: supervisor.StateDisabled,
		StateRefused: supervisor.StateRefused, StateFailed: supervisor.StateFailed,
	}
	for root, engine := range states {
		if string(root) != engine.String() {
			t.Errorf("ServerState %q is %q in the engine", root, engine)
		}
	}
	envs := map[EnvInheritance]transport.EnvInheritance{
		EnvInheritAll: transport.EnvInheritAll, EnvInheritSafe: transport.EnvInheritSafe, EnvInheritNone: transport.EnvInheritNone,
	}
	for root, engine := range envs {
		if string(root) != string(engine) {
			t.Errorf("EnvInheritance %q is %q in the engine", root, engine)
		}
	}
}

// ServerStatus is declared in the root, and statusOf fills it from the
// engine's view of a server, a method per field: every field has its
// method, and every method of the view its field, so that neither side
// can grow alone.
func TestServerStatusHasEveryViewMethod(t *testing.T) {
	methodOf := func(field string) string {
		switch field {
		case "Tools":
			return "ToolCount"
		case "P50", "P99":
			return "Latency"
		}
		return field
	}
	vt := reflect.TypeFor[*supervisor.ServerView]()
	used := map[string]bool{"String": true}
	st := reflect.TypeFor[ServerStatus]()
	for i := range st.NumField() {
		m := methodOf(st.Field(i).Name)
		if _, ok := vt.MethodByName(m); !ok {
			t.Errorf("ServerStatus.%s: the engine's view has no method %s", st.Field(i).Name, m)
		}
		used[m] = true
	}
	for i := range vt.NumMethod() {
		if m := vt.Method(i).Name; !used[m] {
			t.Errorf("ServerView.%s: no field of ServerStatus reports it", m)
		}
	}
}

// Manager.Status copies every field of the views: servers in every state
// a field reports (restarted with an error, a call in flight, latencies,
// tools kept across a restart, tools pending) make each field non-zero
// somewhere, and each status equals its view.
func TestServerStatusCopiesEveryField(t *testing.T) {
	rt, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	defer rt.Stop(ctx)
	server := func(o testserver.Options) ServerConfig {
		path, args, env := testserver.Command(o)
		c := ServerConfig{Command: path, Args: args, Env: map[string]string{}}
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			c.Env[k] = v
		}
		return c
	}
	slow := testserver.Options{SlowInitialize: time.Minute}
	m, err := rt.Manage(ctx, ManageOptions{NoCache: true, Startup: StartupGate, Servers: map[string]ServerConfig{
		"restarted": server(testserver.Options{ExitAfterRequests: 1}),
		"busy":      server(testserver.Options{}),
		"cached":    server(testserver.Options{}),
		"pending":   server(slow),
		// Exits at once, and rests an hour before its restart: NextTrial.
		"resting": {Command: "false", Restart: RestartPolicy{BackoffMin: time.Hour, BackoffMax: time.Hour}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	until := func(what string, cond func(v *supervisor.ServerView) bool, names ...string) {
		t.Helper()
		for {
			n := 0
			views := m.m.Servers()
			for _, v := range views {
				if slices.Contains(names, v.Name()) && cond(v) {
					n++
				}
			}
			if n == len(names) {
				return
			}
			if ctx.Err() != nil {
				t.Fatalf("%s: %v", what, views)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	until("not ready", func(v *supervisor.ServerView) bool { return v.State() == supervisor.StateReady && v.ToolCount() > 0 }, "busy", "restarted", "cached")
	// A new configuration restarts "cached"; its tools stay offered,
	// marked cached, until the new server is up.
	if err := m.Add(ctx, "cached", server(slow)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CallTool(ctx, "mcp__restarted__echo", map[string]any{"message": "x"}); err == nil {
		t.Fatal("the call that ends the server succeeded")
	}
	if _, err := m.CallTool(ctx, "mcp__busy__echo", map[string]any{"message": "x"}); err != nil {
		t.Fatal(err)
	}
	go m.CallTool(ctx, "mcp__busy__sleep", map[string]any{"ms": 60_000})
	until("not restarted", func(v *supervisor.ServerView) bool { return v.Generation() == 2 && v.State() == supervisor.StateReady }, "restarted")
	until("no call in flight", func(v *supervisor.ServerView) bool { return v.InFlight() == 1 }, "busy")
	until("not resting", func(v *supervisor.ServerView) bool { return v.State() == supervisor.StateRestarting }, "resting")
	views := m.m.Servers()
	nonZero := map[string]bool{}
	for _, v := range views {
		got := statusOf(v)
		want := ServerStatus{Name: v.Name(), State: ServerState(v.State().String()), Source: Source(v.Source()),
			ProtocolVersion: v.ProtocolVersion(), Generation: v.Generation(), LastError: v.LastError(),
			LastErrorAt: v.LastErrorAt(), LastErrorPast: v.LastErrorPast(), NextTrial: v.NextTrial(),
			Restarts: v.Restarts(), InFlight: v.InFlight(), Tools: v.ToolCount(), ToolsPending: v.ToolsPending(),
			Cached: v.Cached()}
		want.P50, want.P99 = v.Latency()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: status %+v, view %+v", v.Name(), got, want)
		}
		rv := reflect.ValueOf(got)
		for i := range rv.NumField() {
			if !rv.Field(i).IsZero() {
				nonZero[rv.Type().Field(i).Name] = true
			}
		}
	}
	for i := range reflect.TypeFor[ServerStatus]().NumField() {
		if f := reflect.TypeFor[ServerStatus]().Field(i).Name; !nonZero[f] {
			t.Errorf("no server's %s is set: the test does not show it copied (%v)", f, views)
		}
	}
}
