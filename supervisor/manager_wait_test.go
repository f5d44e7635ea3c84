package supervisor_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
)

// restartingForAnHour takes the flaky server down until its restart,
// which its policy puts an hour away.
func restartingForAnHour(t *testing.T, m *supervisor.Manager, f *flakyHTTP) {
	t.Helper()
	echo(t, m, "mcp__remote__echo", "before")
	f.failing.Store(true)
	ctx := harness.Context(t)
	for range supervisor.CallFailureThreshold {
		m.CallTool(ctx, "mcp__remote__echo", map[string]any{"message": "down"})
	}
	harness.WaitFor(t, "the server restarting", func() bool { return status(m, "remote").State == supervisor.StateRestarting })
}

var hourPolicy = config.RestartPolicy{MaxRestarts: 1000, BackoffMin: time.Hour, BackoffMax: time.Hour}

// checkGaveUp checks the error of a call that waited for a restart and
// ran out of time: it names the server, says it waited for a restart,
// carries the last error (the 503s), and matches ErrServerUnavailable and
// the context's error.
func checkGaveUp(t *testing.T, err error, want error) {
	t.Helper()
	var ue *callerr.Error
	if !(errors.As(err, &ue) && callerr.Unavailable(ue) == ue) || ue.Server != "remote" {
		t.Fatalf("call that waited for a restart: %v (%T), want an ErrServerUnavailable error for remote", err, err)
	}
	if !errors.Is(err, errkind.ErrServerUnavailable) || !errors.Is(err, want) {
		t.Errorf("%v: matches ErrServerUnavailable %v, %v %v", err, errors.Is(err, errkind.ErrServerUnavailable), want, errors.Is(err, want))
	}
	msg := err.Error()
	for _, part := range []string{`"remote"`, "restarting", "tools/call", "waiting for a restart", "503"} {
		if !strings.Contains(msg, part) {
			t.Errorf("message %q does not say %q", msg, part)
		}
	}
}

// TestCallWaitingForARestartSaysSo: a call to a restarting server whose
// context ends first fails with an error that says what it waited for.
// Before, it was a bare "context deadline exceeded".
func TestCallWaitingForARestartSaysSo(t *testing.T) {
	f := newFlakyHTTP(t)
	m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{httpServer(t, "remote", f.URL, hourPolicy)}})
	restartingForAnHour(t, m, f)

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := m.CallTool(ctx, "mcp__remote__echo", map[string]any{"message": "waiting"})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the call took %v with a 300 ms context", d)
	}
	checkGaveUp(t, err, context.DeadlineExceeded)

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = m.CallTool(ctx, "mcp__remote__echo", map[string]any{"message": "cancelled"})
	checkGaveUp(t, err, context.Canceled)
}

// TestRestartWaitIsBounded: a call with no deadline of its own waits for
// a restart at most RestartWait, and by default the server's connect
// timeout.
func TestRestartWaitIsBounded(t *testing.T) {
	for _, c := range []struct {
		name    string
		wait    time.Duration // ManagerOptions.RestartWait
		connect time.Duration // the server's connect timeout
	}{
		{"RestartWait", 300 * time.Millisecond, 0},
		{"default: the connect timeout", 0, 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFlakyHTTP(t)
			s := httpServer(t, "remote", f.URL, hourPolicy)
			s.Spec.ConnectTimeout = c.connect
			m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{s}, RestartWait: c.wait})
			restartingForAnHour(t, m, f)
			start := time.Now()
			_, err := m.CallTool(context.Background(), "mcp__remote__echo", map[string]any{"message": "waiting"})
			if d := time.Since(start); d < 250*time.Millisecond || d > 10*time.Second {
				t.Errorf("the wait took %v, want about 300 ms", d)
			}
			checkGaveUp(t, err, context.DeadlineExceeded)
		})
	}
}
