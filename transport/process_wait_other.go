//go:build unix && !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package transport

import (
	"os/exec"
	"syscall"
)

// wait waits for the server to exit and reaps it, then ends whatever it
// left running in its process group: a helper holding none of our pipes
// would otherwise outlive the transport. Without a way to see the exit
// before the reap (Linux's waitid(WNOWAIT), the BSDs' kqueue), the group
// is signalled just after the reap, and only if it still has members:
// while it has, its id cannot be given to another group. (An empty group's
// id could be taken in the instant between the check and the signal.)
func (t *processTree) wait(cmd *exec.Cmd) error {
	pid := cmd.Process.Pid
	err := t.reap(cmd, false)
	if t.kill(-pid, 0) == nil {
		t.kill(-pid, syscall.SIGKILL)
	}
	return err
}
