//go:build linux

package transport

import (
	"errors"
	"io"
	"os/exec"
	"strconv"
	"testing"

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
			tree := new(processTree)
			tree.prepare(cmd)
			release, err := launch(cmd)
			if err != nil {
				t.Fatal(err)
			}
			tree.started(cmd.Process)
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
