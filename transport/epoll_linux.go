//go:build linux

package transport

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// polledEpoll makes an epoll instance that waits in Go's poller: readable
// while any descriptor registered in it is ready, so one goroutine can wait
// on many descriptors without holding a thread (the exit watch, the stderr
// watch). It reports false when the instance cannot wait in the poller.
func polledEpoll(name string) (*os.File, syscall.RawConn, bool) {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, nil, false
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, nil, false
	}
	ep := os.NewFile(uintptr(fd), name)
	// Only a file in the poller has deadlines: without them a read
	// would not wait for readiness.
	if errors.Is(ep.SetReadDeadline(time.Time{}), os.ErrNoDeadline) {
		ep.Close()
		return nil, nil, false
	}
	raw, err := ep.SyscallConn()
	if err != nil {
		ep.Close()
		return nil, nil, false
	}
	return ep, raw, true
}

// epollReady waits in the poller until the epoll instance raw has ready
// descriptors, and returns them in events. An error means the instance
// can no longer be waited on: closed, or refused by the poller.
func epollReady(raw syscall.RawConn, events []unix.EpollEvent) ([]unix.EpollEvent, error) {
	n := 0
	err := raw.Read(func(fd uintptr) bool {
		for {
			var err error
			n, err = unix.EpollWait(int(fd), events, 0)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				n = 0
			}
			return n > 0 // none ready: wait in the poller for one
		}
	})
	if err != nil {
		return nil, err
	}
	return events[:n], nil
}
