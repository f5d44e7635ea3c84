//go:build linux

package transport

import (
	"errors"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// stderrWatcher drains every server's stderr on one goroutine, as
// exitWatch sees every exit on one: each stderr pipe is registered in one
// epoll instance, which waits in Go's poller, and the goroutine reads
// whichever pipe is readable into a buffer of its own. A server at rest
// then holds one goroutine (its stdout reader), not two, and no stderr
// buffer. The goroutine ends with the last pipe watched.
//
// The watch alone closes a pipe it holds, under mu and after taking it out
// of the epoll instance, so that a descriptor it reads or takes out is
// always the pipe's, never a number the process has given to another file.
type stderrWatcher struct {
	mu     sync.Mutex
	ep     *os.File             // the epoll instance; nil while nothing is watched
	drains map[int]*stderrDrain // by pipe descriptor
	buf    [stderrReadBuffer]byte
}

var stderrWatch stderrWatcher

// stderrTurn bounds what the watch reads from one pipe before it looks at
// the others: a server that floods stderr waits its turn.
const stderrTurn = 64 << 10

// watchStderr hands d's pipe to the shared watch. It reports false, and
// the pipe is untouched, when the watch cannot take it: d.run drains it
// then.
func watchStderr(d *stderrDrain) bool {
	raw, err := d.p.stderr.SyscallConn()
	if err != nil {
		return false
	}
	// Control, not Fd: Fd would put the pipe in blocking mode.
	fd := -1
	if raw.Control(func(f uintptr) { fd = int(f) }) != nil || fd < 0 {
		return false
	}
	w := &stderrWatch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ep == nil && !w.start() {
		return false
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
	if err := unix.EpollCtl(int(w.ep.Fd()), unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		w.stopIfIdle()
		return false
	}
	d.fd = fd
	w.drains[fd] = d
	return true
}

// unwatchStderr ends d's drain if the watch has it: its pipe is taken out
// and closed, and the end reported. False if the watch does not have it:
// it has ended already, or d.run drains it.
func unwatchStderr(d *stderrDrain) bool {
	if d == nil {
		return false
	}
	w := &stderrWatch
	w.mu.Lock()
	if d.fd < 0 || w.drains[d.fd] != d {
		w.mu.Unlock()
		return false
	}
	w.forget(d)
	w.mu.Unlock()
	d.finish()
	return true
}

// forget takes d's pipe out of the watch and closes it; with mu held.
func (w *stderrWatcher) forget(d *stderrDrain) {
	delete(w.drains, d.fd)
	unix.EpollCtl(int(w.ep.Fd()), unix.EPOLL_CTL_DEL, d.fd, nil)
	d.fd = -1
	d.p.stderr.Close()
	w.stopIfIdle()
}

// start makes the epoll instance and starts its goroutine; with mu held.
// It reports false when the instance cannot wait in Go's poller.
func (w *stderrWatcher) start() bool {
	ep, raw, ok := polledEpoll("stderr watch")
	if !ok {
		return false
	}
	w.ep, w.drains = ep, make(map[int]*stderrDrain)
	go w.watch(ep, raw)
	return true
}

// stopIfIdle closes the epoll instance when nothing is watched, which ends
// its goroutine; with mu held.
func (w *stderrWatcher) stopIfIdle() {
	if w.ep != nil && len(w.drains) == 0 {
		w.ep.Close()
		w.ep, w.drains = nil, nil
	}
}

// watch waits for readable pipes on the epoll instance ep (raw) until it
// is closed.
func (w *stderrWatcher) watch(ep *os.File, raw syscall.RawConn) {
	events := make([]unix.EpollEvent, 16)
	for {
		ready, err := epollReady(raw, events)
		if err != nil {
			w.abandon(ep)
			return
		}
		for _, ev := range ready {
			w.ready(int(ev.Fd))
		}
	}
}

// ready reads what pipe fd holds, up to stderrTurn, and ends its drain at
// EOF (or at an error, which a pipe has no other way to report).
func (w *stderrWatcher) ready(fd int) {
	w.mu.Lock()
	d, ok := w.drains[fd]
	if !ok {
		w.mu.Unlock()
		return
	}
	ended := false
	for read := 0; read < stderrTurn; {
		n, err := unix.Read(fd, w.buf[:])
		if n > 0 {
			d.take(w.buf[:n])
			read += n
			continue
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		// Nothing more for now (EAGAIN: the pipe stays registered), or
		// the end (0 bytes and no error: the server's end is closed).
		ended = !errors.Is(err, unix.EAGAIN)
		break
	}
	if ended {
		w.forget(d)
	}
	w.mu.Unlock()
	if ended {
		d.finish()
	}
}

// abandon ends the watch on ep, once its goroutine can no longer wait on
// it. Closed because nothing is watched, there is nothing to do; failed
// otherwise (the poller refused it), each pipe still watched is taken out
// and drained on a goroutine of its own.
func (w *stderrWatcher) abandon(ep *os.File) {
	w.mu.Lock()
	if w.ep != ep {
		w.mu.Unlock()
		return
	}
	drains := w.drains
	for fd := range drains {
		unix.EpollCtl(int(ep.Fd()), unix.EPOLL_CTL_DEL, fd, nil)
	}
	w.ep.Close()
	w.ep, w.drains = nil, nil
	for _, d := range drains {
		d.fd = -1
	}
	w.mu.Unlock()
	for _, d := range drains {
		go d.run()
	}
}
