//go:build unix && !linux

package transport

import (
	"os/exec"
	"syscall"
)

// wait waits for the server to exit and reaps it, then ends whatever it
// left running in its process group: a helper holding none of our pipes
// would otherwise outlive the transport. Without Linux's waitid(WNOWAIT)
// the group is signalled just after the reap; its id stays taken while any
// member lives, so the signal reaches only the server's leftovers (an
// empty group's id would have to be handed to a new group in between).
func (t *processTree) wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return err
}
