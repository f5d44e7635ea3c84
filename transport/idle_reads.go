package transport

import (
	"errors"
	"io"
	"os"
	"syscall"
	"time"
)

// A stdio connection's readers give their buffers back when the server
// has been quiet for readerIdle, and wait for its next bytes with a
// buffer of restReadBuffer bytes: a runtime may hold hundreds of servers
// of which most are quiet at any moment, and a server that once sent a long
// line (a tools/list of a few dozen tools is one) would otherwise keep a
// 64 KiB buffer for as long as it lives. The first read after the quiet
// spell takes a buffer again; a busy connection never gives its up.
var readerIdle = 500 * time.Millisecond

// restReadBuffer is what a quiet reader waits with: bufio's least.
const restReadBuffer = 16

// deadliner is a stream that can bound a read in time: an *os.File of a
// pipe, which the runtime's poller serves.
type deadliner interface {
	SetReadDeadline(t time.Time) error
}

// idleSource is a stream whose reads, while armed, end with
// os.ErrDeadlineExceeded after readerIdle without input. Reads of a stream
// that cannot be bounded (dl nil) are never armed: its reader keeps its
// buffer, as it would without this.
type idleSource struct {
	r     io.Reader
	dl    deadliner
	armed bool
	until time.Time // the deadline set last
	// raw waits for input without reading it (waitInput); nil where the
	// platform or the stream cannot. ready is poll.ready, bound once: a
	// method value made at each wait would be an allocation per wait.
	raw   syscall.RawConn
	poll  inputPoll
	ready func(uintptr) bool
}

// newIdleSource returns r as an idleSource, armed if r can be bounded.
func newIdleSource(r io.Reader) *idleSource {
	s := &idleSource{r: r}
	// An *os.File that the poller does not serve says so here
	// (os.ErrNoDeadline); so does anything else that cannot.
	if d, ok := r.(deadliner); ok && d.SetReadDeadline(time.Time{}) == nil {
		s.dl, s.armed = d, true
		if c, ok := r.(syscall.Conn); ok && canPollInput {
			s.raw, _ = c.SyscallConn()
			s.ready = s.poll.ready
		}
	}
	return s
}

// waitInput waits until the stream has input, has ended or has failed,
// without reading: the caller reads then, and does not wait inside the
// read with its deeper frames. Only a disarmed source waits here (a quiet
// reader's), so the wait has no deadline.
//
// That keeps a quiet stdio reader's stack at 4 KiB: waiting inside a
// buffered read it was about 1.7 KB deep, here about 0.9 KB, and the
// runtime halves a waiting goroutine's stack only while less than a
// quarter of it is in use (counting 800 bytes of margin).
func (s *idleSource) waitInput() {
	s.poll.start()
	// An error (the pipe closed) is the next read's to report.
	_ = s.raw.Read(s.ready)
}

// Read reads from the stream, with a deadline of readerIdle ahead if
// armed. The deadline is moved only once half of readerIdle has gone since
// it was set, not at every read (a busy reader makes many reads a
// millisecond), so a read gives up after between half of readerIdle and
// all of it without input; and a reader that took long over what it read
// last never finds its deadline already past.
func (s *idleSource) Read(p []byte) (int, error) {
	if s.armed {
		if now := time.Now(); now.After(s.until.Add(-readerIdle / 2)) {
			s.until = now.Add(readerIdle)
			if err := s.dl.SetReadDeadline(s.until); err != nil {
				// Closed, most likely: the read reports it.
				s.armed = false
			}
		}
	}
	return s.r.Read(p)
}

// rest disarms s: the next reads wait for input without a bound.
func (s *idleSource) rest() {
	s.armed, s.until = false, time.Time{}
	_ = s.dl.SetReadDeadline(time.Time{})
}

// wake arms s again, if it can be.
func (s *idleSource) wake() { s.armed = s.dl != nil }

// quiet reports whether err ended a read that found no input for
// readerIdle.
func quiet(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }
