package mcpactor

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// TestServerStatusReportsEveryField: Manager.Status fills every field of
// ServerStatus. Servers in every state a field reports (restarted with an
// error, a call in flight, latencies, tools kept across a restart, tools
// pending, a restart due later) make each field non-zero somewhere.
func TestServerStatusReportsEveryField(t *testing.T) {
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
	until := func(what string, cond func(st ServerStatus) bool, names ...string) {
		t.Helper()
		for {
			n := 0
			all := m.Status()
			for _, st := range all {
				if slices.Contains(names, st.Name) && cond(st) {
					n++
				}
			}
			if n == len(names) {
				return
			}
			if ctx.Err() != nil {
				t.Fatalf("%s: %+v", what, all)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	until("not ready", func(st ServerStatus) bool { return st.State == StateReady && st.Tools > 0 }, "busy", "restarted", "cached")
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
	until("not restarted", func(st ServerStatus) bool { return st.Generation == 2 && st.State == StateReady }, "restarted")
	until("no call in flight", func(st ServerStatus) bool { return st.InFlight == 1 }, "busy")
	until("not resting", func(st ServerStatus) bool { return st.State == StateRestarting && !st.NextTrial.IsZero() }, "resting")
	all := m.Status()
	nonZero := map[string]bool{}
	for _, st := range all {
		rv := reflect.ValueOf(st)
		for i := range rv.NumField() {
			if !rv.Field(i).IsZero() {
				nonZero[rv.Type().Field(i).Name] = true
			}
		}
	}
	for i := range reflect.TypeFor[ServerStatus]().NumField() {
		if f := reflect.TypeFor[ServerStatus]().Field(i).Name; !nonZero[f] {
			t.Errorf("no server's %s is set: Status does not report it (%+v)", f, all)
		}
	}
}
