//go:build linux

package transport

import (
	"errors"
	"io"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// Servers running at once are watched for their exit by one goroutine, not
// one each; each one's exit is seen and it is reaped with its status; the
// goroutine ends with the last of them, and the next server starts it again.
func TestServersShareOneExitWatch(t *testing.T) {
	const servers = 8
	type ended struct {
		i   int
		err error
	}
	for round := range 2 {
		ends := make(chan ended, servers)
		var stdins []io.WriteCloser
		for i := range servers {
			// Each exits with its own status once it reads a line.
			cmd := exec.Command("/bin/sh", "-c", "read x; exit $((10 + $0))", strconv.Itoa(i))
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			tree, release := launched(t, cmd)
			tree.waitThen(cmd, func(err error) {
				defer release()
				ends <- ended{i, err}
			})
			stdins = append(stdins, stdin)
		}
		if n := goroutinesIn(t, "transport.watchExits("); n != 1 {
			t.Errorf("round %d: %d exit-watching goroutines for %d servers, want 1", round, n, servers)
		}
		if n := goroutinesIn(t, "transport.awaitExit("); n != 0 {
			t.Errorf("round %d: %d servers waited for on a goroutine of their own", round, n)
		}
		for _, w := range stdins {
			w.Write([]byte("go\n"))
			w.Close()
		}
		for range servers {
			e := <-ends
			var ee *exec.ExitError
			if !errors.As(e.err, &ee) || ee.ExitCode() != 10+e.i {
				t.Errorf("round %d: server %d ended with %v, want exit status %d", round, e.i, e.err, 10+e.i)
			}
		}
		harness.WaitFor(t, "the exit watch to end with its last server", func() bool {
			return goroutinesIn(t, "transport.watchExits(") == 0
		})
	}
}

// Should the poller give the watch up, every server still watched is
// handed on unseen: its reap waits for the exit itself, and the exit is
// still reported, once.
func TestAbandonedExitWatchStillReaps(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 60")
	tree, release := launched(t, cmd)
	ended := make(chan error, 2)
	tree.waitThen(cmd, func(err error) {
		defer release()
		ended <- err
	})
	exitWatch.mu.Lock()
	ep := exitWatch.ep
	exitWatch.mu.Unlock()
	if ep == nil {
		t.Fatal("the server is not in the exit watch")
	}
	abandonExitWatch(ep) // as watchExits does when its read fails
	harness.WaitFor(t, "the exit watch to end", func() bool { return goroutinesIn(t, "transport.watchExits(") == 0 })
	select {
	case err := <-ended:
		t.Fatalf("the exit was reported before the server exited: %v", err)
	default:
	}
	cmd.Process.Kill()
	select {
	case err := <-ended:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != -1 {
			t.Errorf("the killed server ended with %v, want killed by a signal", err)
		}
	case <-time.After(harness.Bound):
		t.Fatalf("the exit of a server handed on from an abandoned watch was not reported in %v", harness.Bound)
	}
	select {
	case err := <-ended:
		t.Errorf("the exit was reported twice, then with %v", err)
	case <-time.After(100 * time.Millisecond):
	}
}
