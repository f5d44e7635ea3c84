//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package transport

import (
	"errors"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// wait waits for the server to exit, ends whatever it left running in its
// process group, and reaps it, as on Linux (process_wait_linux.go): a
// kqueue's EVFILT_PROC NOTE_EXIT sees the exit without reaping, so the
// group is killed while the server, a zombie, still holds the group's id.
func (t *processTree) wait(cmd *exec.Cmd) error {
	pid := cmd.Process.Pid
	exited := awaitExit(pid)
	if exited {
		t.killGroup(pid)
	}
	return t.reap(cmd, exited)
}

// awaitExit waits for the child pid to exit without reaping it, and
// reports whether it could tell.
func awaitExit(pid int) bool {
	kq, err := unix.Kqueue()
	if err != nil {
		return false
	}
	defer unix.Close(kq)
	for {
		ev := make([]unix.Kevent_t, 1)
		unix.SetKevent(&ev[0], pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
		ev[0].Fflags = unix.NOTE_EXIT
		n, err := unix.Kevent(kq, ev, ev, nil)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ESRCH):
			// It exited before it could be watched: only we reap our
			// children, so it is a zombie.
			return true
		case err != nil || n != 1:
			return false
		case ev[0].Flags&unix.EV_ERROR != 0:
			return syscall.Errno(ev[0].Data) == unix.ESRCH
		}
		return ev[0].Fflags&unix.NOTE_EXIT != 0
	}
}
