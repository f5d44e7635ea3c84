package transport

import (
	"errors"
	"os/exec"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Issue 33: a server's process group is named by its pid, which is ours
// only until the server is reaped; once the group is empty too, the number
// may name a stranger's group. The transport may signal the server at any
// moment (a forced close, an escalation, the drain's expiry), racing the
// server's exit and reap: no group signal may be sent once the server has
// been reaped, whenever it is asked for.
func TestNoGroupSignalAfterReap(t *testing.T) {
	for i := range 40 {
		cmd := exec.Command("/bin/sh", "-c", "exit 0")
		tree := new(processTree)
		tree.prepare(cmd)
		var groupSignals, strays atomic.Int32
		kill := tree.kill
		tree.kill = func(pid int, sig syscall.Signal) error {
			if pid < 0 {
				groupSignals.Add(1)
				if reaped(-pid) {
					strays.Add(1)
				}
			}
			return kill(pid, sig)
		}
		release, err := launch(cmd)
		if err != nil {
			t.Fatal(err)
		}
		tree.started(cmd.Process)
		done := make(chan struct{})
		if i%2 == 0 {
			runWaiter(release, func() {
				tree.wait(cmd)
				close(done)
			})
		} else {
			// As the transport waits: the shared exit watch, then
			// a goroutine for the reap (exit_watch_linux.go).
			tree.waitThen(cmd, func(error) {
				release()
				close(done)
			})
		}
	racing:
		for {
			select {
			case <-done:
				break racing
			default:
				tree.signal(stageTerm)
				runtime.Gosched()
			}
		}
		tree.signal(stageKill) // after the reap
		if n := strays.Load(); n > 0 {
			t.Fatalf("%d of %d group signals were sent after the server was reaped", n, groupSignals.Load())
		}
	}
}

// reaped reports whether our child pid has been reaped (it is no longer
// our child to wait for).
func reaped(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT|unix.WNOHANG, nil)
	return errors.Is(err, unix.ECHILD)
}
