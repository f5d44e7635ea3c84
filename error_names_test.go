package mcpactor_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// TestErrorTextsNameServerAndMethod checks that the errors that end a
// request say, in their text, which server (as the caller named it) and
// which method: a log line holding only err.Error() must tell which of
// many servers failed. The stderr excerpt of a server that exited is
// labelled as such, so that what it printed is not read as the cause.
func TestErrorTextsNameServerAndMethod(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, mcpactor.Options{})
	c, err := rt.Connect(waitCtx(t), "files-A.1", testServerConfig(testserver.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CallToolWith(waitCtx(t), "sleep", map[string]any{"ms": 20000}, mcpactor.CallOptions{Timeout: 200 * time.Millisecond})
	var te *mcpactor.TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, mcpactor.ErrTimeout) {
		t.Fatalf("sleep past its timeout: %v, want a *TimeoutError", err)
	}
	if got, want := err.Error(), `MCP server "files-A.1": tools/call (id `+te.ID.String()+`): Request timeout after 200ms`; got != want {
		t.Errorf("timeout text = %q, want %q", got, want)
	}

	_, err = c.CallTool(waitCtx(t), "crash", map[string]any{"code": 3, "stderr": "listening on stdio"})
	var tc *mcpactor.TransportClosedError
	if !errors.As(err, &tc) || !errors.Is(err, mcpactor.ErrTransportClosed) {
		t.Fatalf("crash: %v, want a *TransportClosedError", err)
	}
	if got, want := err.Error(), `MCP server "files-A.1": tools/call: Transport closed: exit status 3; stderr: listening on stdio`; got != want {
		t.Errorf("crash text = %q, want %q", got, want)
	}
	if tc.Server != "files-A.1" || tc.Method != "tools/call" {
		t.Errorf("Server, Method = %q, %q, want files-A.1, tools/call", tc.Server, tc.Method)
	}
	// The connection's own end, as Err reports it, is no request's. The
	// call's error can reach the caller before the client has recorded
	// that end: wait for it.
	harness.WaitFor(t, "the client to record its connection's end", func() bool { return c.Err() != nil })
	if err := c.Err(); err == nil || !strings.HasPrefix(err.Error(), `MCP server "files-A.1": Transport closed: exit status 3; stderr: `) {
		t.Errorf("Err() = %v, want the connection's end naming the server", err)
	}
}
