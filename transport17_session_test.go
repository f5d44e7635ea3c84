package mcpactor_test

// A remote server that restarts (issue 17): its sessions are gone, and the
// reference TypeScript server says so with 400 "Bad Request: No valid
// session ID provided" rather than the 404 of
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management.
// The runtime must take it for an expired session, start a new one and send
// the call again, instead of failing every call from then on.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/peers"
)

// TestTransport17RemoteServerRestart connects to server-everything
// (streamableHttp), kills the server and starts it again on the same port,
// and calls again: with no keepalive, the call after the restart succeeds.
func TestTransport17RemoteServerRestart(t *testing.T) {
	t.Parallel()
	node, script := peers.ServerEverything(t)
	port, err := freePort()
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
