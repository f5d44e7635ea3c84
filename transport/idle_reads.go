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
	// raw waits for input without reading it (waitInput); nil where the
	// platform or the stream cannot.
	raw  syscall.RawConn
	poll inputPoll
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
		}
	}
	return s
}

// waitInput waits until the stream has input, has ended or has failed,
// without reading: the caller reads then, and does not wait inside the
// read with its deeper frames. It reports whether it gave up after
// readerIdle without input instead (armed only).
//
// That keeps a stdio reader's stack at 4 KiB while it waits, which is most
// of a server's life: waiting inside a buffered read, it was about 1.7 KB
// deep, and the runtime halves a waiting goroutine's stack only while less
// than a quarter of it is in use (counting 800 bytes of margin).
func (s *idleSource) waitInput() (quiet bool) {
	if s.armed {
		if err := s.dl.SetReadDeadline(time.Now().Add(readerIdle)); err != nil {
			s.armed = false
		}
	}
	s.poll.start()
	err := s.raw.Read(s.poll.ready)
	return isQuiet(err)
}

// Read reads from the stream, with a deadline of readerIdle from now if
// armed: each read is bounded on its own, so a reader that took long over
// what it read last never finds its deadline already past.
func (s *idleSource) Read(p []byte) (int, error) {
	if s.armed {
		if err := s.dl.SetReadDeadline(time.Now().Add(readerIdle)); err != nil {
			// Closed, most likely: the read reports it.
			s.armed = false
		}
	}
	return s.r.Read(p)
}

// rest disarms s: the next reads wait for input without a bound.
func (s *idleSource) rest() {
	s.armed = false
	_ = s.dl.SetReadDeadline(time.Time{})
}

// wake arms s again, if it can be.
func (s *idleSource) wake() { s.armed = s.dl != nil }

// quiet reports whether err ended a read that found no input for
// readerIdle.
func quiet(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// isQuiet is quiet for waitInput's frame, kept small: not inlined there.
//
//go:noinline
func isQuiet(err error) bool { return quiet(err) }
