//go:build unix

package transport

import (
	"errors"

	"golang.org/x/sys/unix"
)

// canPollInput reports that waitInput works here.
const canPollInput = true

// inputPoll asks whether a descriptor has input, without reading it.
type inputPoll struct {
	fds    [1]unix.PollFd
	waited bool // the poller reported the descriptor ready since start
}

// start readies p for one wait.
func (p *inputPoll) start() { p.waited = false }

// ready is a RawConn.Read callback: true once the descriptor has input, or
// has ended (POLLHUP) or failed, so that the read that follows reports
// which; false sends the caller to wait in the poller. Called again after
// that wait, it is true without asking: the poller woke it for an event.
// (Should the event be spent, the read that follows waits in the poller.)
func (p *inputPoll) ready(fd uintptr) bool {
	if p.waited {
		return true
	}
	p.waited = true
	p.fds[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	for {
		n, err := unix.Poll(p.fds[:], 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err != nil || n > 0
	}
}
