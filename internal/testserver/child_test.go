package testserver

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// childServer is this test binary re-executed as a server (see TestMain),
// talked to over real pipes.
type childServer struct {
	*client
	cmd *exec.Cmd
}

// startChild starts the child with opts; cleanup kills it if still running.
func startChild(t *testing.T, opts Options) *childServer {
	t.Helper()
	c := &childServer{client: &client{t: t, stderr: &harness.Log{}}}
	cmd, stdin, stdout := startCommand(t, opts, c.stderr)
	c.cmd = cmd
	c.w = stdin
	c.lines = readLines(stdout)
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		for range c.lines {
		}
		_ = cmd.Wait()
	})
	return c
}

// startCommand starts the child server Command gives for opts, its
// stderr going to stderr, and returns it with its stdin and stdout. The
// caller stops it.
func startCommand(t *testing.T, opts Options, stderr io.Writer) (*exec.Cmd, io.WriteCloser, io.ReadCloser) {
	t.Helper()
	path, args, env := Command(opts)
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdin, stdout
}

// exitCode waits for the child to exit and returns its status.
func (c *childServer) exitCode() int {
	c.t.Helper()
	for range c.lines { // Wait must not race the stdout reader
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			c.t.Fatal(err)
		}
		return 0
	case <-time.After(wait):
		c.t.Fatal("child did not exit")
		return -1
	}
}

func TestChildEndToEnd(t *testing.T) {
	c := startChild(t, Options{Banner: "child banner", ReportCancels: true})
	if l := string(c.recvLine()); l != "child banner" {
		t.Errorf("banner = %q", l)
	}
	c.initialize()
	if r := c.callTool("echo", map[string]any{"message": "over real pipes"}); r.text() != "over real pipes" {
		t.Errorf("echo = %q", r.text())
	}
	id := c.request("tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 60000}})
	c.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "stop"})
	harness.WaitFor(t, "the cancel report", func() bool {
		return hasLine(c.stderr.String(), fmt.Sprintf("cancelled %d stop", id))
	})
	c.call("ping", nil)

	c.w.Close()
	if code := c.exitCode(); code != 0 {
		t.Errorf("exit status %d after stdin EOF, stderr %q", code, c.stderr.String())
	}
}

func TestChildCrash(t *testing.T) {
	c := startChild(t, Options{})
	c.initialize()
	c.request("tools/call", map[string]any{"name": "crash", "arguments": map[string]any{"code": 3, "stderr": "fatal: boom"}})
	if code := c.exitCode(); code != 3 {
		t.Errorf("exit status %d", code)
	}
	if !hasLine(c.stderr.String(), "fatal: boom") {
		t.Errorf("stderr = %q", c.stderr.String())
	}
}

func TestChildExitAtStart(t *testing.T) {
	c := startChild(t, Options{ExitAtStart: true, ExitCode: 4, StderrOnExit: "refusing to start"})
	if code := c.exitCode(); code != 4 || c.stderr.String() != "refusing to start\n" {
		t.Errorf("exit status %d, stderr %q", code, c.stderr.String())
	}
}

func TestChildSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	c := startChild(t, Options{})
	c.initialize()
	c.request("tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 60000}})
	start := time.Now()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := c.exitCode(); code != 0 || time.Since(start) > 2*time.Second {
		t.Errorf("exit status %d after %v", code, time.Since(start))
	}
}

func TestChildIgnoreSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	c := startChild(t, Options{IgnoreSIGTERM: true})
	c.initialize() // the handler is installed by now
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	c.w.Close()
	c.expectSilence(300 * time.Millisecond) // stdout stays open: still alive
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if code := c.exitCode(); code != -1 {
		t.Errorf("exit status %d, want -1 (killed)", code)
	}
}

func TestChildExitAfterRequests(t *testing.T) {
	c := startChild(t, Options{ExitAfterRequests: 1, ExitCode: 2, StderrOnExit: "gone"})
	c.initialize()
	c.request("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}})
	if code := c.exitCode(); code != 2 || !hasLine(c.stderr.String(), "gone") {
		t.Errorf("exit status %d, stderr %q", code, c.stderr.String())
	}
}
