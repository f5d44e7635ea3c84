//go:build linux

package transport

import (
	"errors"
	"os/exec"

	"golang.org/x/sys/unix"
)

// wait waits for the server to exit, ends whatever it left running in its
// process group, and reaps it. A helper the server started (a watcher, a
// language server, a wrapper's child) holds none of our pipes, so nothing
// else would ever stop it: without this it outlives the transport, and
// Close, for good.
//
// The order is what makes the signal safe: waitid with WNOWAIT sees the
// exit without reaping, so the server is a zombie that still holds its pid,
// and with it the process group's id, while the group is signalled. Only
// then is it reaped, and no group signal follows (processTree).
func (t *processTree) wait(cmd *exec.Cmd) error {
	pid := cmd.Process.Pid
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			if err == nil {
				t.killGroup(pid)
			}
			return t.reap(cmd, err == nil)
		}
	}
}
