package mcpactor_test

// A remote server that restarts: its sessions are gone, and the reference
// TypeScript server says so with 400 "Bad Request: No valid session ID
// provided" rather than the 404 of
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management.
// The runtime must take it for an expired session, start a new one and send
// the call again, instead of failing every call from then on; a Manager's
// server survives it too.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/peers"
)

// TestRemoteServerRestart connects to server-everything
// (streamableHttp), kills the server and starts it again on the same port,
// and calls again: with no keepalive, the call after the restart succeeds.
func TestRemoteServerRestart(t *testing.T) {
	t.Parallel()
	node, script := peers.ServerEverything(t)
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	command := func(port int) (string, []string, []string) {
		return node, []string{script, "streamableHttp"}, []string{"PORT=" + strconv.Itoa(port)}
	}
	first := startHTTPProcOn(t, "server-everything", command, port)

	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := rt.Stop(ctx); err != nil {
			t.Error(err)
		}
	}()
	c, err := rt.Connect(ctx, "restarting", mcpactor.ServerConfig{URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)})
	if err != nil {
		t.Fatal(err)
	}
	echo := func(msg string) error {
		res, err := c.CallTool(ctx, "echo", map[string]any{"message": msg})
		if err != nil {
			return err
		}
		if res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, msg) {
			return fmt.Errorf("echo %q = %+v", msg, res)
		}
		return nil
	}
	if err := echo("before"); err != nil {
		t.Fatalf("before the restart: %v", err)
	}

	if err := first.stop(); err != nil {
		t.Fatal(err)
	}
	second := startHTTPProcOn(t, "server-everything (again)", command, port)
	defer func() {
		if err := second.stop(); err != nil {
			t.Error(err)
		}
	}()

	if err := echo("after"); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	if err := echo("and later"); err != nil {
		t.Fatalf("later: %v", err)
	}
}

// startHTTPProcOn is startHTTPProcAt for a test: a failure ends it.
func startHTTPProcOn(t *testing.T, name string, command procCommand, port int) *httpProc {
	t.Helper()
	p, err := startHTTPProcAt(name, command, port)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// startEverythingOn starts server-everything's Streamable HTTP server on
// port (a restart must come back where the client knows it).
func startEverythingOn(t *testing.T, port int) *httpProc {
	t.Helper()
	node, script := peers.ServerEverything(t)
	return startHTTPProcOn(t, everythingServer, func(port int) (string, []string, []string) {
		return node, []string{script, "streamableHttp"}, []string{"PORT=" + strconv.Itoa(port)}
	}, port)
}

// A managed Streamable HTTP server that is killed and started again comes
// back under a manager with default options and no keepalive: the calls
// that meet it down (connection refused) mark it unhealthy, the manager
// restarts it, and a later call succeeds on a new session.
func TestManagerSurvivesRemoteRestart(t *testing.T) {
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	srv := startEverythingOn(t, port)
	t.Cleanup(func() { srv.stop() })

	// Made before the runtime, so that its removal comes after Stop
	// (cleanups run last first): the manager writes its cache until then.
	cacheDir := t.TempDir()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*waitLimit)
	defer cancel()
	t.Cleanup(func() { rt.Stop(context.Background()) })
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{CacheDir: cacheDir, Servers: map[string]mcpactor.ServerConfig{
		"everything": {URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}}})
	if err != nil {
		t.Fatal(err)
	}
	call := func(msg string) error {
		cctx, ccancel := context.WithTimeout(ctx, 5*time.Second)
		defer ccancel()
		res, err := m.CallTool(cctx, "mcp__everything__echo", map[string]any{"message": msg})
		if err == nil && (len(res.Content) == 0 || res.Content[0].Text != "Echo: "+msg) {
			return fmt.Errorf("echo answered %+v", res.Content)
		}
		return err
	}
	if err := call("before"); err != nil {
		t.Fatalf("before the restart: %v", err)
	}

	if err := srv.stop(); err != nil {
		t.Fatal(err)
	}
	for i := range mcpactor.CallFailureThreshold {
		if err := call("down"); err == nil {
			t.Fatalf("call %d succeeded with the server down", i)
		}
	}
	srv = startEverythingOn(t, port)

	var last error
	for deadline := time.Now().Add(2 * waitLimit); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if last = call("after"); last == nil {
			break
		}
	}
	if last != nil {
		t.Fatalf("no call succeeded after the server came back: %v (status %+v)", last, m.Status())
	}
	for _, st := range m.Status() {
		if st.State != mcpactor.StateReady || st.Restarts < 1 {
			t.Errorf("status %+v: want ready after at least one restart", st)
		}
	}
}
