package supervisor_test

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/transport"
)

// A tool of a configured server that failed to start is that server's
// unavailability, with its cause, not "no such tool" (issue 35, item 7);
// a name no configured server could own is still unknown.
func TestToolOfAFailedServerIsUnavailable(t *testing.T) {
	s, err := supervisor.NewServer(supervisor.Server{Name: "missing-cmd",
		Spec: actors.Spec{Stdio: transport.StdioConfig{Command: "mcpactor-no-such-command-35"}}})
	if err != nil {
		t.Fatal(err)
	}
	m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{s}})
	harness.WaitFor(t, "missing-cmd failed", func() bool { return status(m, "missing-cmd").State == supervisor.StateFailed })

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = m.CallTool(ctx, "mcp__missing-cmd__echo", map[string]any{})
	var ue *callerr.Error
	if !(errors.As(err, &ue) && callerr.Unavailable(ue) == ue) || ue.Server != "missing-cmd" || ue.State != "failed" {
		t.Fatalf("CallTool = %v, want ErrServerUnavailable error for missing-cmd, failed", err)
	}
	if !errors.Is(err, exec.ErrNotFound) || !errors.Is(err, errkind.ErrStart) {
		t.Errorf("CallTool = %v, want the start error's cause kept", err)
	}
	if _, err := m.GetPrompt(ctx, "mcp__missing-cmd__greet", nil); !(errors.As(err, &ue) && callerr.Unavailable(ue) == ue) {
		t.Errorf("GetPrompt = %v, want ErrServerUnavailable error", err)
	}

	var unknown *callerr.Error
	if _, err := m.CallTool(ctx, "mcp__nobody__echo", nil); !(errors.As(err, &unknown) && callerr.UnknownTool(unknown) == unknown) {
		t.Errorf("CallTool of no server's tool = %v, want unknown-tool error", err)
	}
}

// A call of a tool of a server that is listing its tools for the first
// time waits for that list, as a call of a cached tool waits for its
// server's handshake, instead of failing as unknown or unavailable.
func TestToolOfAServerStillListingWaits(t *testing.T) {
	m := manage(t, supervisor.ManagerOptions{})
	s := testServer(t, "late", testserver.Options{SlowInitialize: 500 * time.Millisecond}, "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- m.Add(ctx, s) }()
	harness.WaitFor(t, "late known to the manager", func() bool { return status(m, "late").Name == "late" })
	if st := status(m, "late"); st.State == supervisor.StateReady {
		t.Fatalf("late is ready already (%+v): the test needs a call made while it starts", st)
	}
	res, err := m.CallTool(ctx, "mcp__late__echo", map[string]any{"message": "x"})
	if err != nil || res.IsError {
		t.Fatalf("a call made while the server listed its tools: %v %+v", err, res)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
