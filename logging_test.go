package mcpactor_test

import (
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// At debug level, a normal session tells its story: the server started,
// the handshake and the version it chose, the close, the end.
func TestDebugLogTellsTheLifecycle(t *testing.T) {
	var log harness.Log
	rt := startRuntime(t, mcpactor.Options{Logger: log.Logger()})
	c, err := rt.Connect(waitCtx(t), "ts", mcptest.Stdio("noisy"))
	if err != nil {
		t.Fatal(err)
	}
	callOK(t, c, "echo", map[string]any{"message": "hi"})
	if err := c.Close(waitCtx(t)); err != nil {
		t.Fatal(err)
	}
	got := log.String()
	for _, want := range []string{
		`msg="mcp: server started" server=ts`,
		`msg="mcp: connected" server=ts generation=1 protocol_version=2025-11-25`,
		`msg="mcp: frame dropped" server=ts reason=malformed`,
		`msg="mcp: closing" server=ts`,
		`msg="mcp: transport ended" server=ts`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the debug log lacks %s:\n%s", want, got)
		}
	}
}
