//go:build unix

package transport

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// nonBlocking returns a writer to f's descriptor when it is in
// non-blocking mode, as the pipes made by os.Pipe are: a write there
// returns at once with what the pipe took. Anything else (a dialed
// stream, a descriptor in blocking mode) gives nil: a write could block
// the goroutine that runs the actor.
func nonBlocking(f io.Writer) *nowWriter {
	sc, ok := f.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	flags, ferr := 0, error(nil)
	if err := raw.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
		return nil
	}
	if flags&unix.O_NONBLOCK == 0 {
		return nil
	}
	return newNowWriter(raw)
}

// nowWriter writes to a descriptor without waiting (write); its function
// for RawConn.Write is made once, so that a write allocates nothing.
type nowWriter struct {
	raw syscall.RawConn
	p   []byte
	n   int
	err error
	fn  func(fd uintptr) bool
}

func newNowWriter(raw syscall.RawConn) *nowWriter {
	w := &nowWriter{raw: raw}
	w.fn = func(fd uintptr) bool {
		w.n, w.err = unix.Write(int(fd), w.p)
		return true // never wait for room: the writer goroutine does
	}
	return w
}

// another returns a second writer to the same descriptor, for a goroutine
// that writes while the first one's owner does not (their fields are not
// to be shared).
func (w *nowWriter) another() *nowWriter { return newNowWriter(w.raw) }

// write writes p without waiting and returns how much of it went: all of
// it, part when the pipe filled up, none on an error (which the writer
// goroutine meets again and reports).
func (w *nowWriter) write(p []byte) int {
	w.p, w.n, w.err = p, 0, nil
	err := w.raw.Write(w.fn)
	w.p = nil
	if err != nil || w.err != nil || w.n < 0 {
		return 0
	}
	return w.n
}
