package supervisor_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/proctest"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
	"github.com/mcpactor/mcpactor/transport"
)

// flakyHTTP is our test server over Streamable HTTP behind a switch that
// makes it answer every request 503, as a remote server that went down
// behind its load balancer does.
type flakyHTTP struct {
	*httptest.Server
	failing atomic.Bool
}

func newFlakyHTTP(t *testing.T) *flakyHTTP {
	t.Helper()
	h := testserver.NewHTTPHandler(testserver.Options{}, nil)
	f := &flakyHTTP{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.failing.Load() {
			http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		f.Close()
		h.Close()
	})
	return f
}

func httpServer(t *testing.T, name, url string, p config.RestartPolicy) *supervisor.Server {
	t.Helper()
	s, err := supervisor.NewServer(supervisor.Server{Name: name, Spec: actors.Spec{HTTP: transport.HTTPConfig{URL: url + "/mcp"}}, Restart: p})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A remote server whose every call starts failing, with no keepalive
// asked for, is marked unhealthy after CallFailureThreshold failures in a
// row and restarted through its restart policy; once it answers again, a
// later call succeeds.
func TestManagerRestartsAServerWhoseCallsFail(t *testing.T) {
	f := newFlakyHTTP(t)
	events := &eventLog{}
	m := manage(t, supervisor.ManagerOptions{
		Servers: []*supervisor.Server{httpServer(t, "remote", f.URL,
			config.RestartPolicy{MaxRestarts: 1000, BackoffMin: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond})},
		OnEvent: events.add})
	echo(t, m, "mcp__remote__echo", "before")

	f.failing.Store(true)
	ctx := harness.Context(t)
	for i := range supervisor.CallFailureThreshold {
		if _, err := m.CallTool(ctx, "mcp__remote__echo", map[string]any{"message": "down"}); err == nil {
			t.Fatalf("call %d succeeded against a failing server", i)
		}
	}
	harness.WaitFor(t, "the server marked unhealthy", func() bool {
		return slices.Contains(events.states("remote"), supervisor.StateUnhealthy)
	})
	if st := status(m, "remote"); st.Restarts < 1 || st.State == supervisor.StateReady {
		t.Errorf("after the failures: %+v, want restarting and not ready", st)
	}

	f.failing.Store(false)
	harness.WaitFor(t, "the server ready again", func() bool { return status(m, "remote").State == supervisor.StateReady })
	echo(t, m, "mcp__remote__echo", "after")
}

// A call to a tool of a server behind its open breaker fails at once
// with an ErrServerUnavailable error naming the server, its state and its
// last error, on one line; a tool nobody offers is an ErrNotFound error.
// After Close, every method says errkind.ErrStopped.
func TestManagerTellsUnavailableFromUnknown(t *testing.T) {
	f := newFlakyHTTP(t)
	m := manage(t, supervisor.ManagerOptions{
		Servers: []*supervisor.Server{httpServer(t, "remote", f.URL,
			config.RestartPolicy{MaxRestarts: -1})},
		BreakerRetry: time.Hour})
	echo(t, m, "mcp__remote__echo", "before")
	f.failing.Store(true)
	ctx := harness.Context(t)
	for range supervisor.CallFailureThreshold {
		m.CallTool(ctx, "mcp__remote__echo", map[string]any{"message": "down"})
	}
	harness.WaitFor(t, "the breaker open", func() bool { return status(m, "remote").State == supervisor.StateBreakerOpen })

	_, err := m.CallTool(ctx, "mcp__remote__echo", map[string]any{"message": "x"})
	var ue *callerr.Error
	if !(errors.As(err, &ue) && callerr.Unavailable(ue) == ue) || ue.Server != "remote" || ue.State != supervisor.StateBreakerOpen.String() || ue.Cause == nil {
		t.Fatalf("call to a server behind its breaker: %v (%#v)", err, ue)
	}
	if !errors.Is(err, errkind.ErrServerUnavailable) {
		t.Errorf("%v does not match errkind.ErrServerUnavailable", err)
	}
	if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || !strings.Contains(msg, `"remote"`) || !strings.Contains(msg, "breaker open") || !strings.Contains(msg, "503") {
		t.Errorf("message %q: want one line naming the server, its state and its last error", msg)
	}
	var unknown *callerr.Error
	if _, err := m.CallTool(ctx, "mcp__remote__nope", nil); !(errors.As(err, &unknown) && callerr.UnknownTool(unknown) == unknown) {
		t.Errorf("unknown tool: %v", err)
	}

	closeManager(t, m)
	s := httpServer(t, "other", f.URL, config.RestartPolicy{})
	for what, err := range map[string]error{
		"CallTool": func() error { _, err := m.CallTool(ctx, "mcp__remote__echo", nil); return err }(),
		"Add":      m.Add(ctx, s),
		"Remove":   m.Remove(ctx, "remote"),
		"Reload":   m.Reload(ctx, nil),
	} {
		if !errors.Is(err, errkind.ErrStopped) {
			t.Errorf("%s after Close: %v, want errkind.ErrStopped", what, err)
		}
	}
}

// A command that does not exist, or may not be run, cannot heal: the
// server goes straight to failed with the start error, never restarted.
func TestManagerDoesNotRestartWhatCannotStart(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// An executable that is neither a binary of this machine nor a
	// script with a #! line: exec fails with ENOEXEC, exec format error.
	badFormat := filepath.Join(t.TempDir(), "bad-format")
	if err := os.WriteFile(badFormat, []byte("\x00\x01 not a program\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	var servers []*supervisor.Server
	for name, cmd := range map[string]string{"missing": "mcpactor-no-such-command-17", "absent": "/nonexistent/mcp-server", "denied": notExec, "badformat": badFormat} {
		s, err := supervisor.NewServer(supervisor.Server{Name: name, Spec: actors.Spec{Stdio: transport.StdioConfig{Command: cmd}}})
		if err != nil {
			t.Fatal(err)
		}
		servers = append(servers, s)
	}
	start := time.Now()
	m := manage(t, supervisor.ManagerOptions{Servers: servers})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Manage took %v for servers that cannot start", d)
	}
	for _, s := range servers {
		harness.WaitFor(t, s.Name+" failed", func() bool { return status(m, s.Name).State == supervisor.StateFailed })
	}
	time.Sleep(300 * time.Millisecond) // a restart would have begun (the backoff starts at 500 ms / 2)
	for _, s := range servers {
		st := status(m, s.Name)
		if st.State != supervisor.StateFailed || st.Restarts != 0 || !errors.Is(st.LastError, errkind.ErrStart) {
			t.Errorf("%s: %+v, want failed with its start error and no restart", s.Name, st)
		}
		if s.Name == "badformat" && !errors.Is(st.LastError, syscall.ENOEXEC) {
			t.Errorf("%s: last error %v, want its cause, exec format error", s.Name, st.LastError)
		}
	}
}

// Remove cancels the !command values still running for a server's start:
// it returns promptly and the command's process is gone.
func TestRemoveCancelsValueCommands(t *testing.T) {
	srv, pidFile := sleepingCommandServer(t)
	sys := harness.ActorSystem(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	m, _ := supervisor.Manage(ctx, sys.Root, supervisor.ManagerOptions{Servers: []*supervisor.Server{srv}})
	t.Cleanup(func() { closeManager(t, m) })

	pid := waitCommandPID(t, pidFile)
	start := time.Now()
	if err := m.Remove(harness.Context(t), "secret"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Remove took %v", d)
	}
	// Well within the command's own timeout (CommandTimeout, 10 s), which
	// would end it anyway.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if gone, _ := proctest.Gone(pid); gone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command's process %d outlived Remove by 5 s", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A panic in OnEvent is contained: logged at error, on one line, and the
// events after it are still delivered.
func TestOnEventPanicIsContained(t *testing.T) {
	var log harness.Log
	var delivered atomic.Int64
	m := manage(t, supervisor.ManagerOptions{
		Servers: []*supervisor.Server{testServer(t, "alpha", testserver.Options{}, "alpha")},
		Logger:  log.Logger(),
		OnEvent: func(e supervisor.Event) {
			if delivered.Add(1) == 1 {
				panic("subscriber bug\nsecond line")
			}
		}})
	before := delivered.Load()
	if err := m.Remove(harness.Context(t), "alpha"); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "events after the panic", func() bool { return delivered.Load() > before && delivered.Load() >= 2 })
	var line string
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "OnEvent panicked") {
			line = l
		}
	}
	if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "subscriber bug second line") {
		t.Errorf("panic log line %q: want one error line with the panic", line)
	}
}

// timeoutError is a net.Error of a network deadline.
type timeoutError struct{ timeout bool }

func (e timeoutError) Error() string   { return "i/o timeout" }
func (e timeoutError) Timeout() bool   { return e.timeout }
func (e timeoutError) Temporary() bool { return e.timeout }

// Timeouts and cancellations say the caller gave up, not that the server
// is gone: they leave the count of transport failures alone, even when
// the transport reports them as a failed request.
func TestTransportFailureLeavesOutTimeouts(t *testing.T) {
	request := func(err error) error {
		return callerr.NewRequestFailed(&callerr.Error{Server: "s", Method: "tools/call", Cause: err})
	}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"a request that failed", request(errors.New("connection refused")), true},
		{"a network error, not a timeout", request(&net.OpError{Op: "dial", Err: timeoutError{timeout: false}}), true},
		{"cancelled", request(context.Canceled), false},
		{"deadline", request(context.DeadlineExceeded), false},
		{"deadline in a url.Error", request(&url.Error{Op: "Post", URL: "http://x", Err: context.DeadlineExceeded}), false},
		{"a network timeout", request(&net.OpError{Op: "read", Err: timeoutError{timeout: true}}), false},
		{"os deadline", request(os.ErrDeadlineExceeded), false},
		{"a bare cancellation", context.Canceled, false},
	} {
		if got := supervisor.TransportFailure(c.err); got != c.want {
			t.Errorf("%s (%v): %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

// sleepingCommandServer is a server named "secret" whose !command env
// value writes its shell's pid to pidFile and then sleeps 30 s: a start
// that is still resolving while a test removes the server.
func sleepingCommandServer(t *testing.T) (srv *supervisor.Server, pidFile string) {
	t.Helper()
	pidFile = filepath.Join(t.TempDir(), "pid")
	file := filepath.Join(t.TempDir(), "mcp.json")
	doc := `{"mcpServers": {"secret": {"command": "true", "env": {"TOKEN": "!echo $$ > ` + pidFile + `; exec sleep 30"}}}}`
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := config.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return entryServers(f.Servers["secret"])[0], pidFile
}

// waitCommandPID waits for sleepingCommandServer's command to write its
// pid (a whole line, so that a half-written file is not read as a pid).
func waitCommandPID(t *testing.T, pidFile string) int {
	t.Helper()
	var pid int
	harness.WaitFor(t, "the command running", func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}
