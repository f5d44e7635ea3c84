//go:build unix

package transport

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// processTree is the server's own process group. A server started through
// a wrapper (npx, a shell script) is a grandchild of ours; signals sent to
// the group reach it, and anything else the server starts, and not only
// the wrapper. The group also keeps the terminal's Ctrl-C away from the
// servers: the runtime decides when they stop.
//
// The group is named by the server's pid, which is ours only until the
// server is reaped: once the group is empty as well, the kernel may give
// the number to a new process, which may lead a group of its own. So the
// group is signalled only while the server is unreaped (a zombie still
// holds its pid): wait kills what is left of the group before the reap,
// and signal, which may run at any time, checks under mu that the reap
// has not happened. After it, only the server itself is signalled, through
// os.Process, which on Linux holds a pidfd and cannot reach another
// process.
type processTree struct {
	proc *os.Process
	mu   sync.Mutex
	// reaped: the server has been reaped, or is being reaped without mu
	// (its exit could not be seen first): the group's id is not ours.
	reaped bool
	// kill is syscall.Kill; the tests watch what is signalled.
	kill func(pid int, sig syscall.Signal) error
}

// prepare makes cmd start in a new process group whose id is its pid,
// and (on Linux) die with this process (parentDeath).
func (t *processTree) prepare(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	parentDeath(cmd.SysProcAttr)
	if t.kill == nil {
		t.kill = syscall.Kill
	}
	return nil
}

// started records the leader of the group.
func (t *processTree) started(proc *os.Process) error {
	t.proc = proc
	return nil
}

// signal sends SIGTERM (stageTerm) or SIGKILL (stageKill) to the group
// while the server is unreaped, else (or if the group cannot be
// signalled) to the server alone.
func (t *processTree) signal(stage int) {
	if t.proc == nil {
		return
	}
	sig := syscall.SIGTERM
	if stage == stageKill {
		sig = syscall.SIGKILL
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.reaped && t.kill(-t.proc.Pid, sig) == nil {
		return
	}
	t.proc.Signal(sig)
}

// reap reaps the server once its exit has been seen (exited): under mu, so
// that no group signal is sent from the moment the group's id may stop
// being ours. Without the exit seen, cmd.Wait may block, and must not hold
// mu: the group is given up first.
func (t *processTree) reap(cmd *exec.Cmd, exited bool) error {
	t.mu.Lock()
	if exited {
		defer t.mu.Unlock()
		t.reaped = true
		return cmd.Wait()
	}
	t.reaped = true
	t.mu.Unlock()
	return cmd.Wait()
}

// killGroup kills what is left of the group; the caller has seen the
// server exit and not yet reaped it, so the group's id is still ours.
func (t *processTree) killGroup(pid int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.kill(-pid, syscall.SIGKILL)
}

// release has nothing to give back: a process group ends with its last
// member, and the members the server left behind were killed when it
// exited (wait).
func (t *processTree) release() {}
