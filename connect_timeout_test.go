package mcpactor_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// TestConnectTimeoutShowsSkippedStdout checks that a server that printed
// something other than JSON-RPC on stdout and then never answered the
// handshake times out with an error that says so: how many lines were
// skipped, and the first of them.
func TestConnectTimeoutShowsSkippedStdout(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, mcpactor.Options{})
	cfg := mcptest.Stdio("login-banner")
	cfg.ConnectTimeout = time.Second
	_, err := rt.Connect(waitCtx(t), "banner", cfg)
	var ct *mcpactor.ConnectTimeoutError
	if !errors.As(err, &ct) || !errors.Is(err, mcpactor.ErrConnectTimeout) {
		t.Fatalf("Connect: %v, want a *ConnectTimeoutError", err)
	}
	if ct.SkippedStdout != 2 || !strings.Contains(err.Error(), "2 non-JSON lines on stdout were skipped") ||
		!strings.Contains(err.Error(), "Please log in first") {
		t.Fatalf("Connect: %q (SkippedStdout %d), want the 2 skipped lines counted and the first shown", err, ct.SkippedStdout)
	}
}
