package main

// Bugs the soak found in the runtime, each reduced to a test of its own
// (docs/reliability.md, "Found by the soak"): they failed on the commit
// the soak found them on, and are the regression tests of the fixes.

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// TestSoakFound_ReloadDropsTools: a Reload that changes one server's
// configuration restarts it; meanwhile a call to one of its tools fails
// with unknown-tool error ("no managed server offers a tool named ..."),
// as if the server had been removed, where a call to a server restarting
// after a crash waits for it (ManageOptions.FailFast unset). The caller
// took the name from ListTools and the server is still configured.
func TestSoakFound_ReloadDropsTools(t *testing.T) {
	ctx, rt := foundRuntime(t)
	cfg := testServer(testserver.Options{SlowInitialize: 300 * time.Millisecond})
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{Servers: map[string]mcpactor.ServerConfig{"a": cfg}, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.CallTool(ctx, "mcp__a__echo", map[string]any{"message": "before"}); err != nil {
		t.Fatalf("before the reload: %v", err)
	}
	changed := cfg
	changed.Env = map[string]string{testserver.EnvChild: "1", "CHANGED": "1"}
	if err := m.Reload(ctx, mcpactor.ManageOptions{Servers: map[string]mcpactor.ServerConfig{"a": changed}, NoCache: true}); err != nil {
		t.Fatalf("Reload: %v", err)
	}
	_, err = m.CallTool(ctx, "mcp__a__echo", map[string]any{"message": "during"})
	var unknown *mcpactor.Error
	if errors.As(err, &unknown) && errors.Is(err, mcpactor.ErrNotFound) && unknown.Tool != "" {
		t.Fatalf("a call to the server a Reload restarts failed as if it had been removed: %v", err)
	}
	if err != nil {
		t.Fatalf("during the restart: %v", err)
	}
}

// TestSoakFound_StreamBrokenUnmatched: over Streamable HTTP in the
// 2026-07-28 era, a call whose response stream breaks before its answer
// (and again when the client issues it once more) fails with
// stream-broken error, which matches none of the root package's
// errors (not ErrHTTP, not ErrTransportClosed, ...): a caller of
// the public API cannot tell it, where the package documents that every
// error the runtime returns is one of its errors or wraps one.
func TestSoakFound_StreamBrokenUnmatched(t *testing.T) {
	p, err := findPeers()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{name: "gosdk-http", kind: kGoSDKHTTP}
	b := newBackend(s, p)
	if err := b.start(); err != nil {
		t.Fatal(err)
	}
	defer b.kill()
	px, err := newProxy(b)
	if err != nil {
		t.Fatal(err)
	}
	defer px.close()
	ctx, rt := foundRuntime(t)
	c, err := rt.Connect(ctx, "g", mcpactor.ServerConfig{URL: px.url("/mcp")})
	if err != nil {
		t.Fatal(err)
	}
	// The answer and the one retry both break off mid-way.
	px.arm(fHTTPReset, 2, 0, 0)
	_, err = c.CallTool(ctx, "test_simple_text", map[string]any{})
	if err == nil {
		t.Fatal("the call succeeded through two broken answers")
	}
	if !matchesRoot(err) {
		t.Fatalf("%T matches none of the root package's errors: %v", err, err)
	}
}

// TestSoakFound_KeepaliveRestartsABusyServer: a server whose in-flight
// slots are all taken by slow calls is busy, not stuck, but the manager's
// keepalive ping waited for a slot like any call, gave up at the queue
// timeout without being sent, and three such misses restarted the server,
// failing the slow calls (the soak saw it on an untouched fast server).
func TestSoakFound_KeepaliveRestartsABusyServer(t *testing.T) {
	ctx, rt := foundRuntime(t)
	cfg := testServer(testserver.Options{})
	cfg.MaxInFlight, cfg.QueueTimeout, cfg.Keepalive = 2, 100*time.Millisecond, 200*time.Millisecond
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{Servers: map[string]mcpactor.ServerConfig{"busy": cfg}, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	// Both slots held for 3 s: about fifteen keepalive intervals.
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := m.CallTool(ctx, "mcp__busy__sleep", map[string]any{"ms": 3000})
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("a slow call on a busy server: %v", err)
		}
	}
	if st := m.Status(); len(st) != 1 || st[0].Restarts != 0 {
		t.Errorf("the busy server was restarted: %+v", st)
	}
}

// TestSoakFound_FailedToolListNeverRetried: a server whose tools/list
// failed at bring-up was ready but offered no tools for the life of its
// connection, every call to one of them failing as unknown (the soak saw
// it on everything-sse-1: 482 calls of a one-minute run, none near a
// fault). Manage had returned (the failed list no longer pending), and
// nothing listed again until a restart or a list_changed.
func TestSoakFound_FailedToolListNeverRetried(t *testing.T) {
	ctx, rt := foundRuntime(t)
	cfg := testServer(testserver.Options{FailToolsList: 1})
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{Servers: map[string]mcpactor.ServerConfig{"a": cfg}, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	// The retry comes after half a second; 10 s is generous.
	var last error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, last = m.CallTool(ctx, "mcp__a__echo", map[string]any{"message": "x"}); last == nil {
			break
		}
	}
	if last != nil {
		t.Fatalf("the server's tools never came after a failed tools/list: %v (status %+v)", last, m.Status())
	}
	if st := m.Status(); len(st) != 1 || st[0].Restarts != 0 {
		t.Errorf("listed again by a restart: %+v", st)
	}
}

// foundRuntime starts a runtime, stopped when the test ends, and the
// context that bounds the test.
func foundRuntime(t *testing.T) (context.Context, *mcpactor.Runtime) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Stop(ctx) })
	return ctx, rt
}

// testServer is mcpactor's test server with o, as a server's
// configuration (this binary, re-executed).
func testServer(o testserver.Options) mcpactor.ServerConfig {
	path, args, _ := testserver.Command(o)
	return mcpactor.ServerConfig{Command: path, Args: args, Env: map[string]string{testserver.EnvChild: "1"}}
}
