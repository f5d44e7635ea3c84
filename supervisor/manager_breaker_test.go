package supervisor_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
)

// breakerPolicy opens the breaker at the second failure in a row, after
// one short restart.
var breakerPolicy = config.RestartPolicy{MaxRestarts: 1, Window: time.Minute, BackoffMin: 20 * time.Millisecond, BackoffMax: 50 * time.Millisecond}

// tripBreaker takes the flaky server down, waits for its breaker to
// open, and returns the view that showed it open.
func tripBreaker(t *testing.T, m *supervisor.Manager, f *flakyHTTP) supervisor.ServerStatus {
	t.Helper()
	f.failing.Store(true)
	ctx := harness.Context(t)
	for range supervisor.CallFailureThreshold {
		m.CallTool(ctx, "mcp__remote__echo", map[string]any{"message": "down"})
	}
	return breakerOpen(t, m)
}

// breakerOpen waits for the breaker of remote to be open, and returns the
// view that showed it so (a later one may show its trial).
func breakerOpen(t *testing.T, m *supervisor.Manager) supervisor.ServerStatus {
	t.Helper()
	var open supervisor.ServerStatus
	harness.WaitFor(t, "the breaker open", func() bool {
		open = status(m, "remote")
		return open.State == supervisor.StateBreakerOpen
	})
	return open
}

// TestBreakerTriesAgainOnItsOwn: a remote server down for a while opens
// its breaker; the breaker tries it again on its own (half-open: one trial
// connection, open again when it fails), with rests growing from
// BreakerBackoff, and once the server is back the next trial closes it:
// the outage costs about one rest more than itself, not BreakerRetry (an
// hour here). Status shows when the next trial is due.
func TestBreakerTriesAgainOnItsOwn(t *testing.T) {
	f := newFlakyHTTP(t)
	const rest = 200 * time.Millisecond
	events := &eventLog{}
	m := manage(t, supervisor.ManagerOptions{
		Servers:        []*supervisor.Server{httpServer(t, "remote", f.URL, breakerPolicy)},
		BreakerBackoff: rest, BreakerRetry: time.Hour,
		OnEvent: events.add})
	echo(t, m, "mcp__remote__echo", "before")
	st := tripBreaker(t, m, f)
	// The trial is due one rest (jittered down to half) after the failure
	// that opened the breaker.
	if gap := st.NextTrial.Sub(st.LastErrorAt); gap < rest/2-10*time.Millisecond || gap > rest+time.Second {
		t.Errorf("breaker open: next trial %v after the failure, want within the first rest (%v)", gap, rest)
	}
	_, err := m.CallTool(harness.Context(t), "mcp__remote__echo", map[string]any{"message": "x"})
	if !errors.Is(err, errkind.ErrServerUnavailable) {
		t.Errorf("a call while the breaker is open: %v, want ErrServerUnavailable at once", err)
	}

	// Down for a while: trials fail, each opening the breaker again.
	harness.WaitFor(t, "two failed trials", func() bool {
		opened := 0
		for _, s := range events.states("remote") {
			if s == supervisor.StateBreakerOpen {
				opened++
			}
		}
		return opened >= 3
	})
	due := max(time.Until(breakerOpen(t, m).NextTrial), 0)

	back := time.Now()
	f.failing.Store(false)
	harness.WaitFor(t, "the server ready again", func() bool { return status(m, "remote").State == supervisor.StateReady })
	took := time.Since(back)
	// The trial due then comes within its rest (at most 4x the first,
	// after two failed trials; 8x allows for a third that began before
	// the server came back), far below BreakerRetry.
	if took > due+8*rest+5*time.Second {
		t.Errorf("ready %v after the server came back (the next trial was due in %v), want about one rest", took, due)
	}
	if st := status(m, "remote"); !st.NextTrial.IsZero() {
		t.Errorf("ready, yet a trial is due at %v", st.NextTrial)
	}
	echo(t, m, "mcp__remote__echo", "after")
}

// TestRestartTriesNow: Manager.Restart tries a server behind its breaker
// at once, without waiting for the breaker's rest: it reports the attempt
// that fails (the server still down) and returns nil once one succeeds.
func TestRestartTriesNow(t *testing.T) {
	f := newFlakyHTTP(t)
	m := manage(t, supervisor.ManagerOptions{
		Servers:        []*supervisor.Server{httpServer(t, "remote", f.URL, breakerPolicy)},
		BreakerBackoff: time.Hour, BreakerRetry: time.Hour})
	echo(t, m, "mcp__remote__echo", "before")
	tripBreaker(t, m, f)
	ctx := harness.Context(t)

	err := m.Restart(ctx, "remote")
	var ue *callerr.Error
	if !(errors.As(err, &ue) && callerr.Unavailable(ue) == ue) || ue.State != supervisor.StateBreakerOpen.String() || ue.Cause == nil {
		t.Errorf("Restart of a server still down: %v, want its breaker open again, with its last error", err)
	}

	f.failing.Store(false)
	start := time.Now()
	if err := m.Restart(ctx, "remote"); err != nil {
		t.Fatalf("Restart of a server back up: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Restart took %v", d)
	}
	echo(t, m, "mcp__remote__echo", "after")

	var unknown *callerr.Error
	if err := m.Restart(ctx, "nobody"); !(errors.As(err, &unknown) && callerr.UnknownServer(unknown) == unknown) {
		t.Errorf("Restart of an unknown server: %v", err)
	}
}

// TestRestartAfterTheCommandIsInstalled: a server failed because its
// command does not exist is started again by Restart once it does.
func TestRestartAfterTheCommandIsInstalled(t *testing.T) {
	s := testServer(t, "late", testserver.Options{}, "late")
	real := s.Spec.Stdio.Command
	s.Spec.Stdio.Command = filepath.Join(t.TempDir(), "late-server")
	m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{s}})
	harness.WaitFor(t, "late failed", func() bool { return status(m, "late").State == supervisor.StateFailed })
	ctx := harness.Context(t)
	if err := m.Restart(ctx, "late"); !errors.Is(err, errkind.ErrServerUnavailable) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Restart with the command still missing: %v, want unavailable, with its start error", err)
	}
	if err := os.Symlink(real, s.Spec.Stdio.Command); err != nil {
		t.Fatal(err)
	}
	if err := m.Restart(ctx, "late"); err != nil {
		t.Fatalf("Restart once the command exists: %v", err)
	}
	echo(t, m, "mcp__late__echo", "installed")
}
