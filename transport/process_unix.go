//go:build unix

package transport

import (
	"os"
	"os/exec"
	"syscall"
)

// processTree is the server's own process group. A server started through
// a wrapper (npx, a shell script) is a grandchild of ours; signals sent to
// the group reach it, and anything else the server starts, and not only
// the wrapper. The group also keeps the terminal's Ctrl-C away from the
// servers: the runtime decides when they stop.
type processTree struct {
	proc *os.Process
}

// prepare makes cmd start in a new process group whose id is its pid,
// and (on Linux) die with this process (parentDeath).
func (t *processTree) prepare(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	parentDeath(cmd.SysProcAttr)
	return nil
}

// started records the leader of the group.
func (t *processTree) started(proc *os.Process) error {
	t.proc = proc
	return nil
}

// signal sends SIGTERM (stageTerm) or SIGKILL (stageKill) to the group, or
// to the server alone if the group cannot be signalled.
func (t *processTree) signal(stage int) {
	if t.proc == nil {
		return
	}
	sig := syscall.SIGTERM
	if stage == stageKill {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-t.proc.Pid, sig); err != nil {
		t.proc.Signal(sig)
	}
}

// release has nothing to give back: a process group ends with its last
// member, and the members the server left behind were killed when it
// exited (wait).
func (t *processTree) release() {}
