package supervisor_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/proctest"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
	"github.com/mcpactor/mcpactor/supervisor/toolcache"
	"github.com/mcpactor/mcpactor/transport"
)

// markVar finds a server's process in /proc.
const markVar = "MCPACTOR_SUPERVISOR_TEST_MARK"

// testServer is a server of the manager running our test server with
// opts, marked with mark, restarting quickly.
func testServer(t *testing.T, name string, opts testserver.Options, mark string) *supervisor.Server {
	t.Helper()
	path, args, env := testserver.Command(opts)
	vars := map[string]string{markVar: mark}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	s, err := supervisor.NewServer(supervisor.Server{Name: name, Spec: actors.Spec{Stdio: transport.StdioConfig{Command: path, Args: args, Env: vars,
		CloseGrace: 200 * time.Millisecond, TermGrace: 200 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	s.Restart = config.RestartPolicy{MaxRestarts: 3, Window: time.Minute, BackoffMin: 50 * time.Millisecond, BackoffMax: 200 * time.Millisecond}
	return s
}

// manage starts a manager and closes it when the test ends.
func manage(t *testing.T, opts supervisor.ManagerOptions) *supervisor.Manager {
	t.Helper()
	sys := harness.ActorSystem(t)
	m, err := supervisor.Manage(harness.Context(t), sys.Root, opts)
	if err != nil {
		t.Fatalf("Manage: %v", err)
	}
	t.Cleanup(func() { closeManager(t, m) })
	return m
}

func closeManager(t *testing.T, m *supervisor.Manager) {
	t.Helper()
	if err := m.Close(harness.Context(t)); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// status is the server's status; the zero ServerStatus (no state, no
// tools) while the manager has no server of that name.
func status(m *supervisor.Manager, name string) supervisor.ServerStatus {
	for _, s := range m.Status() {
		if s.Name == name {
			return s
		}
	}
	return supervisor.ServerStatus{}
}

func echo(t *testing.T, m *supervisor.Manager, tool, msg string) {
	t.Helper()
	res, err := m.CallTool(harness.Context(t), tool, map[string]any{"message": msg})
	if err != nil || len(res.Content) == 0 || res.Content[0].Text != msg {
		t.Fatalf("%s: %+v, %v", tool, res, err)
	}
}

// Servers start together; their tools are exposed by mcp__<server>__<tool>
// and a call reaches the right server.
func TestManagerStartsServersAndRoutesCalls(t *testing.T) {
	m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{
		testServer(t, "alpha", testserver.Options{}, "alpha"),
		testServer(t, "beta", testserver.Options{}, "beta"),
		testServer(t, "gamma", testserver.Options{}, "gamma"),
	}})
	for _, name := range []string{"alpha", "beta", "gamma"} {
		if st := status(m, name); st.State != supervisor.StateReady {
			t.Errorf("%s: %+v", name, st)
		}
	}
	names := map[string]bool{}
	for _, tl := range m.Tools() {
		names[tl.Name] = true
		if tl.Cached {
			t.Errorf("%s offered from the cache with no cache", tl.Name)
		}
	}
	for _, want := range []string{"mcp__alpha__echo", "mcp__beta__echo", "mcp__gamma__sleep"} {
		if !names[want] {
			t.Errorf("no %s among %v", want, names)
		}
	}
	echo(t, m, "mcp__beta__echo", "routed")
	if _, err := m.CallTool(harness.Context(t), "mcp__delta__echo", nil); err == nil {
		t.Error("a call to a tool nobody offers succeeded")
	}
}

// slowStart wraps the test server in a shell that first sleeps as long
// as a file says, so that one configuration (one cache key) starts fast
// or slow as the test chooses.
func slowStart(t *testing.T, delayFile string) *supervisor.Server {
	path, args, env := testserver.Command(testserver.Options{})
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	script := fmt.Sprintf(`sleep "$(cat %q)"; exec "$0" "$@"`, delayFile)
	s, err := supervisor.NewServer(supervisor.Server{Name: "slow", Spec: actors.Spec{Stdio: transport.StdioConfig{Command: "sh", Args: append([]string{"-c", script, path}, args...), Env: vars,
		CloseGrace: 200 * time.Millisecond, TermGrace: 200 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A server slow to start is offered at the gate with its cached tools; a
// call to one waits for it and then runs on the live server; the live
// list replaces the cached one and is written back. Without a cache entry
// the server is awaited.
func TestManagerGateOffersCachedTools(t *testing.T) {
	dir := t.TempDir()
	delay := filepath.Join(dir, "delay")
	cache := &toolcache.Cache{Dir: filepath.Join(dir, "cache")}
	os.WriteFile(delay, []byte("0"), 0o600)

	// First run: fast; the tools are cached.
	first := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{slowStart(t, delay)}, Cache: cache})
	harness.WaitFor(t, "the tool list cached", func() bool {
		_, ok := cache.Load(toolcache.Key{Server: "slow", ConfigHash: slowStart(t, delay).Hash})
		return ok
	})
	closeManager(t, first)

	// Second run: the server takes 2 s; the gate offers the cached tools.
	os.WriteFile(delay, []byte("2"), 0o600)
	start := time.Now()
	m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{slowStart(t, delay)}, Cache: cache, Gate: 250 * time.Millisecond})
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("Manage returned after %v; the gate is 250 ms and the tools were cached", d)
	}
	var cached bool
	for _, tl := range m.Tools() {
		if tl.Name == "mcp__slow__echo" {
			cached = tl.Cached
		}
	}
	if !cached || status(m, "slow").State != supervisor.StateConnecting {
		t.Fatalf("at the gate: cached %v, status %+v", cached, status(m, "slow"))
	}
	echo(t, m, "mcp__slow__echo", "waited for the live server")
	harness.WaitFor(t, "the live list", func() bool {
		for _, tl := range m.Tools() {
			if tl.Name == "mcp__slow__echo" {
				return !tl.Cached
			}
		}
		return false
	})
	if e, ok := cache.Load(toolcache.Key{Server: "slow", ConfigHash: slowStart(t, delay).Hash}); !ok || time.Since(e.FetchedAt) > 3*time.Second {
		t.Errorf("the cache was not rewritten with the live list: %+v", e)
	}

	// Without a cache entry the server is awaited.
	other := &toolcache.Cache{Dir: filepath.Join(dir, "empty")}
	m2 := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{slowStart(t, delay)}, Cache: other, Gate: 250 * time.Millisecond})
	if st := status(m2, "slow"); st.State != supervisor.StateReady {
		t.Errorf("without a cache, Manage returned before the server was up: %+v", st)
	}
}

// A server whose process dies with calls in flight: each call fails once
// with the exit status and stderr; the server comes back (a new
// connection generation of the same client) and its tools are listed
// again; calls work again.
func TestManagerRestartsADeadServer(t *testing.T) {
	var mu sync.Mutex
	var events []supervisor.Event
	m := manage(t, supervisor.ManagerOptions{
		Servers: []*supervisor.Server{testServer(t, "phoenix", testserver.Options{}, t.Name())},
		OnEvent: func(e supervisor.Event) { mu.Lock(); events = append(events, e); mu.Unlock() },
	})
	pid := proctest.WaitChild(t, markVar+"="+t.Name())
	errs := make(chan error, 5)
	for range 5 {
		go func() {
			_, err := m.CallTool(harness.Context(t), "mcp__phoenix__sleep", map[string]any{"ms": 60000})
			errs <- err
		}()
	}
	c, _ := m.Client("phoenix")
	harness.WaitFor(t, "the calls in flight", func() bool { return c.InFlight() == 5 })
	if _, err := m.CallTool(harness.Context(t), "mcp__phoenix__crash", map[string]any{"code": 3, "stderr": "phoenix burns"}); !errors.Is(err, errkind.ErrTransportClosed) {
		t.Fatalf("crash: %v", err)
	}
	for range 5 {
		err := <-errs
		if !errors.Is(err, errkind.ErrTransportClosed) || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "phoenix burns") {
			t.Errorf("a call in flight: %v", err)
		}
	}
	proctest.WaitGone(t, pid)
	harness.WaitFor(t, "the restart", func() bool {
		st := status(m, "phoenix")
		return st.State == supervisor.StateReady && st.Restarts == 1 && st.Generation == 2
	})
	echo(t, m, "mcp__phoenix__echo", "risen")
	harness.WaitFor(t, "restarting, then ready again", func() bool {
		mu.Lock()
		defer mu.Unlock()
		var restarting, readyAgain bool
		for _, e := range events {
			restarting = restarting || e.State == supervisor.StateRestarting
			readyAgain = readyAgain || (restarting && e.Kind == supervisor.EventStateChanged && e.State == supervisor.StateReady)
		}
		return readyAgain
	})
	// The new connection's tools are listed, and are the same: no change,
	// so no EventToolsChanged (one event per change).
	if n := len(m.Tools()); n == 0 {
		t.Error("no tools after the restart")
	}
	mu.Lock()
	defer mu.Unlock()
	restarting := false
	for _, e := range events {
		restarting = restarting || e.State == supervisor.StateRestarting
		if restarting && e.Kind == supervisor.EventToolsChanged {
			t.Errorf("an EventToolsChanged after the restart, for the same tools: %+v", e)
		}
	}
}

// A server that always dies ends in the breaker state, after the policy's
// restarts and without a busy loop.
func TestManagerBreakerStopsRestarts(t *testing.T) {
	s := testServer(t, "doomed", testserver.Options{ExitAtStart: true, ExitCode: 1, StderrOnExit: "cannot start"}, t.Name())
	s.Restart.MaxRestarts = 2
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	sys := harness.ActorSystem(t)
	m, _ := supervisor.Manage(ctx, sys.Root, supervisor.ManagerOptions{Servers: []*supervisor.Server{s}})
	t.Cleanup(func() { closeManager(t, m) })
	harness.WaitFor(t, "the breaker", func() bool { return status(m, "doomed").State == supervisor.StateBreakerOpen })
	restarts := status(m, "doomed").Restarts
	time.Sleep(time.Second) // a busy loop would restart it again meanwhile
	st := status(m, "doomed")
	if st.Restarts != restarts || restarts != 2 || st.State != supervisor.StateBreakerOpen || !strings.Contains(fmt.Sprint(st.LastError), "cannot start") {
		t.Errorf("after the breaker opened: %+v (restarts then: %d)", st, restarts)
	}
}

// A server removed while it is still connecting leaves nothing behind:
// its process is reaped (goleak checks the goroutines at the end).
func TestManagerRemoveWhileConnecting(t *testing.T) {
	s := testServer(t, "hesitant", testserver.Options{SlowInitialize: 10 * time.Second}, t.Name())
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	sys := harness.ActorSystem(t)
	var log harness.Log
	m, _ := supervisor.Manage(ctx, sys.Root, supervisor.ManagerOptions{Servers: []*supervisor.Server{s}, Logger: log.Logger()})
	t.Cleanup(func() { closeManager(t, m); t.Log(log.String()) })
	pid := proctest.WaitChild(t, markVar+"="+t.Name())
	if err := m.Remove(harness.Context(t), "hesitant"); err != nil {
		t.Fatal(err)
	}
	proctest.WaitGone(t, pid)
	harness.WaitFor(t, "the server forgotten", func() bool { return len(m.Status()) == 0 })
	if len(m.Tools()) != 0 {
		t.Errorf("tools left: %v", m.Tools())
	}
}

// Reload leaves unchanged servers running (same connection, tools never
// dropped), restarts a changed one and starts a new one.
func TestManagerReload(t *testing.T) {
	var mu sync.Mutex
	var dropped []string
	keep := testServer(t, "keep", testserver.Options{}, t.Name()+"-keep")
	change := testServer(t, "change", testserver.Options{}, t.Name()+"-change")
	m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{keep, change},
		OnEvent: func(e supervisor.Event) {
			if e.Kind == supervisor.EventToolsChanged && e.Server == "keep" {
				mu.Lock()
				dropped = append(dropped, fmt.Sprint(e))
				mu.Unlock()
			}
		}})
	keepPID := proctest.WaitChild(t, markVar+"="+t.Name()+"-keep")
	changePID := proctest.WaitChild(t, markVar+"="+t.Name()+"-change")
	// The first listing of keep's tools is an EventToolsChanged of its
	// own, which may come after its process is up: forget it only once
	// the tools are there and its event had time to arrive.
	harness.WaitFor(t, "keep's tools listed", func() bool {
		return status(m, "keep").State == supervisor.StateReady && status(m, "keep").Tools > 0
	})
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(dropped)
		mu.Unlock()
		if n > 0 {
			break
		}
	}
	mu.Lock()
	dropped = nil
	mu.Unlock()

	changed := testServer(t, "change", testserver.Options{PageSize: 3}, t.Name()+"-changed")
	added := testServer(t, "added", testserver.Options{}, t.Name()+"-added")
	if err := m.Reload(harness.Context(t), []*supervisor.Server{testServer(t, "keep", testserver.Options{}, t.Name()+"-keep"), changed, added}); err != nil {
		t.Fatal(err)
	}
	proctest.WaitGone(t, changePID)
	harness.WaitFor(t, "the changed and added servers up", func() bool {
		return status(m, "change").State == supervisor.StateReady && status(m, "added").State == supervisor.StateReady &&
			status(m, "added").Tools > 0
	})
	if gone, _ := proctest.Gone(keepPID); gone {
		t.Error("the unchanged server was stopped")
	}
	if st := status(m, "keep"); st.Generation != 1 || st.State != supervisor.StateReady {
		t.Errorf("the unchanged server: %+v", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dropped) != 0 {
		t.Errorf("the unchanged server's tools changed during the reload: %v", dropped)
	}
	echo(t, m, "mcp__keep__echo", "still here")
	echo(t, m, "mcp__added__echo", "new here")
}

// A cached tool of a server still waiting for a handshake slot (no client
// exists yet) is called like any cached tool: the call waits for the
// server instead of failing.
func TestManagerCachedToolWaitsForAHandshakeSlot(t *testing.T) {
	dir := t.TempDir()
	delay := filepath.Join(dir, "delay")
	cache := &toolcache.Cache{Dir: filepath.Join(dir, "cache")}
	os.WriteFile(delay, []byte("0"), 0o600)
	servers := func() []*supervisor.Server {
		return []*supervisor.Server{slowStart(t, delay), testServer(t, "queued", testserver.Options{}, t.Name())}
	}
	first := manage(t, supervisor.ManagerOptions{Servers: servers(), Cache: cache})
	harness.WaitFor(t, "both lists cached", func() bool {
		for _, s := range servers() {
			if _, ok := cache.Load(toolcache.Key{Server: s.Name, ConfigHash: s.Hash}); !ok {
				return false
			}
		}
		return true
	})
	closeManager(t, first)

	// One handshake at a time, and the first server holds it for 2 s.
	os.WriteFile(delay, []byte("2"), 0o600)
	m := manage(t, supervisor.ManagerOptions{Servers: servers(), Cache: cache, MaxConnecting: 1})
	if _, ok := m.Client("queued"); ok {
		t.Fatal("the queued server has a client at the gate: it should be waiting for the slot")
	}
	echo(t, m, "mcp__queued__echo", "waited for a slot")
}
