package actors_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/proctest"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// markVar is set in each child's environment so that the test can find
// its pid in /proc; callers never see pids (architecture.md).
const markVar = "MCPACTOR_ACTORS_TEST_MARK"

var marks atomic.Int64

// server is one client of a test server child.
type server struct {
	t      *testing.T
	c      *actors.Client
	stderr *harness.Lines
	mark   string
}

// config returns the configuration that starts the test server with opts.
func config(opts testserver.Options, mark string) actors.Spec {
	path, args, env := testserver.Command(opts)
	vars := map[string]string{markVar: mark}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return actors.Spec{Stdio: transport.StdioConfig{Command: path, Args: args, Env: vars, CloseGrace: time.Second, TermGrace: time.Second}}
}

// open spawns a client of the test server with opts and returns without
// waiting for the handshake. tune adjusts the configuration; env.StderrLine
// is set by open. The client is closed when the test ends.
func open(t *testing.T, opts testserver.Options, env actors.Env, tune func(*actors.Spec)) *server {
	t.Helper()
	s := &server{t: t, stderr: &harness.Lines{}, mark: fmt.Sprintf("%d-%d", os.Getpid(), marks.Add(1))}
	cfg := config(opts, s.mark)
	if tune != nil {
		tune(&cfg)
	}
	env.StderrLine = func(_, line string) { s.stderr.Add(line) }
	sys := harness.ActorSystem(t)
	s.c = actors.Spawn(context.Background(), sys.Root, "ts", cfg, env, nil)
	t.Cleanup(func() { s.close() })
	return s
}

// connect is open followed by a handshake that must succeed.
func connect(t *testing.T, opts testserver.Options, env actors.Env, tune func(*actors.Spec)) *server {
	t.Helper()
	s := open(t, opts, env, tune)
	if err := s.c.WaitReady(harness.Context(t)); err != nil {
		t.Fatalf("handshake: %v", err)
	}
	return s
}

// close closes the client, failing the test if that hangs.
func (s *server) close() {
	s.t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), harness.Bound)
		defer cancel()
		s.c.Close(ctx)
	}()
	select {
	case <-done:
	case <-time.After(harness.Bound + 5*time.Second):
		s.t.Fatal("Close hung")
	}
}

// pid finds the child's process id in /proc by its mark.
func (s *server) pid() int {
	s.t.Helper()
	return proctest.WaitChild(s.t, markVar+"="+s.mark)
}

// failedButOpen checks what a failed connect leaves: a client that stays
// open, showing its error, until its owner closes it (or reconnects: the
// manager retries a failed start on the same client). Closing it then
// releases everything. The teardown of the failed connection itself is over
// before its error is reported; callers check the process with AssertGone.
func (s *server) failedButOpen() {
	s.t.Helper()
	select {
	case <-s.c.Done():
		s.t.Fatal("a failed connect closed the client for good")
	default:
	}
	s.close()
	s.waitDone()
}

// waitDone waits for the client to release everything.
func (s *server) waitDone() {
	s.t.Helper()
	select {
	case <-s.c.Done():
	case <-time.After(harness.Bound):
		s.t.Fatal("the client never finished closing")
	}
}

// text returns the first text content of a tool result.
func text(t *testing.T, res *messages.CallToolResult) string {
	t.Helper()
	if res == nil || len(res.Content) == 0 {
		t.Fatalf("no content in %+v", res)
	}
	return res.Content[0].Text
}

// echo calls the echo tool.
func (s *server) echo(ctx context.Context, msg string) (string, error) {
	res, err := s.c.CallTool(ctx, "echo", map[string]any{"message": msg})
	if err != nil {
		return "", err
	}
	if len(res.Content) != 1 {
		return "", fmt.Errorf("echo answered %+v", res)
	}
	return res.Content[0].Text, nil
}

func (s *server) mustEcho(msg string) {
	s.t.Helper()
	if got, err := s.echo(harness.Context(s.t), msg); err != nil || got != msg {
		s.t.Fatalf("echo %q = %q, %v", msg, got, err)
	}
}

// concurrently runs n calls at once and returns their errors, failing the
// test if any does not end.
func concurrently(t *testing.T, n int, call func(i int) error) []error {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = call(i)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(harness.Bound + 5*time.Second):
		t.Fatal("calls did not all end")
	}
	return errs
}
