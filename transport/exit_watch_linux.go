//go:build linux

package transport

import (
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// exitWatch sees every server of the process exit on one goroutine, which
// holds no thread: each server's pidfd (pidfd_open(2), readable once the
// process has exited) is registered in one epoll instance, and that
// instance, itself readable while any of them is, waits in Go's poller.
// It replaces a goroutine per server waiting on its own pidfd, one of the
// four goroutines a server held at rest (docs/benchmarks.md, "One runtime
// at scale", says what that bought). The goroutine ends when the last
// server watched has exited; the next one starts it again.
var exitWatch struct {
	mu   sync.Mutex
	ep   *os.File           // the epoll instance; nil while nothing is watched
	then map[int]func(bool) // by pidfd: what to do once it is readable
}

// waitThen is wait without a goroutine of its own while the server runs:
// once it has exited, a goroutine kills what is left of its group, reaps
// it and calls then with wait's result. Where the shared watch cannot take
// the server, a goroutine waits as wait does.
func (t *processTree) waitThen(cmd *exec.Cmd, then func(error)) {
	pid := cmd.Process.Pid
	if watchExit(pid, func(exited bool) {
		if exited {
			t.killGroup(pid)
		}
		then(t.reap(cmd, exited))
	}) {
		return
	}
	go func() { then(t.wait(cmd)) }()
}

// watchExit arranges for done to run on a goroutine of its own once pid
// has exited, still unreaped (exited: the exit was seen; false: it could
// not be told, and the reap will wait). It reports false, and done never
// runs, when the shared watch cannot take pid.
func watchExit(pid int, done func(exited bool)) bool {
	pidfd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return false
	}
	w := &exitWatch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ep == nil && !startExitWatch() {
		unix.Close(pidfd)
		return false
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(pidfd)}
	if err := unix.EpollCtl(int(w.ep.Fd()), unix.EPOLL_CTL_ADD, pidfd, &ev); err != nil {
		unix.Close(pidfd)
		stopExitWatchIfIdle()
		return false
	}
	w.then[pidfd] = done
	return true
}

// startExitWatch makes the epoll instance and starts its goroutine; with
// exitWatch.mu held. It reports false when the instance cannot wait in
// Go's poller.
func startExitWatch() bool {
	ep, raw, ok := polledEpoll("exit watch")
	if !ok {
		return false
	}
	exitWatch.ep, exitWatch.then = ep, make(map[int]func(bool))
	go watchExits(ep, raw)
	return true
}

// stopExitWatchIfIdle closes the epoll instance when nothing is watched,
// which ends its goroutine; with exitWatch.mu held.
func stopExitWatchIfIdle() {
	if w := &exitWatch; w.ep != nil && len(w.then) == 0 {
		w.ep.Close()
		w.ep, w.then = nil, nil
	}
}

// watchExits waits for exits on the epoll instance ep (raw) until it is
// closed.
func watchExits(ep *os.File, raw syscall.RawConn) {
	events := make([]unix.EpollEvent, 16)
	for {
		ready, err := epollReady(raw, events)
		if err != nil {
			abandonExitWatch(ep)
			return
		}
		for _, ev := range ready {
			exitSeen(int(ev.Fd))
		}
	}
}

// abandonExitWatch ends the watch on ep, once its goroutine can no longer
// wait on it. Closed because nothing is watched, there is nothing to do;
// failed otherwise (the poller refused it), every server still watched is
// handed to its done unseen, whose reap then waits for the exit.
func abandonExitWatch(ep *os.File) {
	w := &exitWatch
	w.mu.Lock()
	if w.ep != ep {
		w.mu.Unlock()
		return
	}
	then := w.then
	w.ep.Close()
	w.ep, w.then = nil, nil
	w.mu.Unlock()
	for pidfd, done := range then {
		unix.Close(pidfd)
		go done(false)
	}
}

// exitSeen hands a readable pidfd's server to its done, off the watch.
func exitSeen(pidfd int) {
	w := &exitWatch
	w.mu.Lock()
	done, ok := w.then[pidfd]
	if ok {
		delete(w.then, pidfd)
		unix.EpollCtl(int(w.ep.Fd()), unix.EPOLL_CTL_DEL, pidfd, nil)
		stopExitWatchIfIdle()
	}
	w.mu.Unlock()
	if !ok {
		return
	}
	exited, _ := peekExit(pidfd) // an error: not seen, and the reap waits
	unix.Close(pidfd)
	go done(exited)
}
