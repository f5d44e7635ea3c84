//go:build linux

package transport

import (
	"errors"
	"os"
	"os/exec"

	"golang.org/x/sys/unix"
)

// wait waits for the server to exit, ends whatever it left running in its
// process group, and reaps it. A helper the server started (a watcher, a
// language server, a wrapper's child) holds none of our pipes, so nothing
// else would ever stop it: without this it outlives the transport, and
// Close, for good.
//
// The order is what makes the signal safe: the exit is seen without
// reaping (waitid with WNOWAIT), so the server is a zombie that still holds
// its pid, and with it the process group's id, while the group is
// signalled. Only then is it reaped, and no group signal follows
// (processTree).
func (t *processTree) wait(cmd *exec.Cmd) error {
	pid := cmd.Process.Pid
	exited := awaitExit(pid)
	if exited {
		t.killGroup(pid)
	}
	return t.reap(cmd, exited)
}

// awaitExit waits for the child pid to exit without reaping it, and
// reports whether it could tell. It waits in Go's poller on a pidfd, which
// turns readable when the process ends (pidfd_open(2)), so a running server
// holds no thread blocked in waitid; without pidfds (Linux before 5.10) it
// blocks in waitid.
func awaitExit(pid int) bool {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return blockedAwait(pid)
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return blockedAwait(pid)
	}
	exited, known := false, true
	err = rc.Read(func(fd uintptr) bool {
		var err error
		exited, err = peekExit(int(fd))
		if err != nil {
			known = false
			return true
		}
		return exited
	})
	if err != nil {
		// The poller refused the descriptor: wait without it.
		return blockedAwait(pid)
	}
	return known && exited
}

// peekExit reports whether the process of pidfd has exited, without
// waiting and without reaping it (waitid with WNOWAIT and WNOHANG).
func peekExit(pidfd int) (exited bool, err error) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PIDFD, pidfd, &info, unix.WEXITED|unix.WNOWAIT|unix.WNOHANG, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		// Linux fills si_signo with SIGCHLD for a child that changed
		// state, and zero when WNOHANG found none.
		return err == nil && info.Signo == int32(unix.SIGCHLD), err
	}
}

// blockedAwait is awaitExit holding a thread in waitid.
func blockedAwait(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return err == nil
		}
	}
}
