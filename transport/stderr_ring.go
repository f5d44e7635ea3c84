package transport

import (
	"bytes"
	"strconv"
	"strings"
)

// stderrRing keeps the last bytes a server wrote to stderr, and its first
// ones, so the error that ends the connection can show them: a server that
// fails at start often prints its cause first and pages of usage after.
// It grows only as output arrives, so a quiet server costs nearly nothing,
// and never beyond its limit, so a chatty one cannot exhaust memory. Owned
// by the stderr drain goroutine until it hands the excerpt over in its
// final message.
type stderrRing struct {
	buf   []byte
	limit int
	start int  // index of the oldest byte once the ring is full
	full  bool // the ring has wrapped
	total int64
	first []byte // the first stderrHeadBytes written
}

// stderrHeadBytes is how much of the start of stderr is kept apart from
// the ring, and at most how much of it the closing error shows.
const stderrHeadBytes = 1 << 10

func newStderrRing(limit int) *stderrRing { return &stderrRing{limit: limit} }

func (r *stderrRing) Write(p []byte) (int, error) {
	n := len(p)
	if room := stderrHeadBytes - len(r.first); room > 0 {
		r.first = append(r.first, p[:min(room, n)]...)
	}
	r.total += int64(n)
	if len(p) >= r.limit {
		r.buf = r.buf[:0]
		r.grow(r.limit)
		r.buf = append(r.buf, p[len(p)-r.limit:]...)
		r.start, r.full = 0, true
		return n, nil
	}
	if !r.full {
		if room := r.limit - len(r.buf); len(p) <= room {
			r.grow(len(p))
			r.buf = append(r.buf, p...)
			return n, nil
		}
		// Fill to the limit, then wrap.
		room := r.limit - len(r.buf)
		r.grow(room)
		r.buf = append(r.buf, p[:room]...)
		p = p[room:]
		r.full = true
	}
	for len(p) > 0 {
		c := copy(r.buf[r.start:], p)
		p = p[c:]
		r.start = (r.start + c) % r.limit
	}
	return n, nil
}

// grow makes room for n more bytes, doubling as output arrives but never
// beyond the limit (append's own growth could overshoot it).
func (r *stderrRing) grow(n int) {
	need := len(r.buf) + n
	if need <= cap(r.buf) {
		return
	}
	grown := make([]byte, len(r.buf), min(max(2*cap(r.buf), need, 512), r.limit))
	copy(grown, r.buf)
	r.buf = grown
}

// bytes returns the kept bytes, oldest first.
func (r *stderrRing) bytes() []byte {
	if !r.full {
		return bytes.Clone(r.buf)
	}
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.start:]...)
	return append(out, r.buf[:r.start]...)
}

// tail returns at most maxBytes of the newest output, starting at a line
// boundary when one is near, with surrounding blank space trimmed.
func (r *stderrRing) tail(maxBytes int) string {
	return clean(tailOf(r.bytes(), maxBytes))
}

// excerpt is what the closing error shows of stderr: all of it when it is
// short; else its first lines (up to stderrHeadBytes, ending at a line
// end) and its last ones (up to tailBytes), with a mark where the middle
// was cut.
func (r *stderrRing) excerpt(tailBytes int) string {
	if r.total <= int64(stderrHeadBytes+tailBytes) {
		return r.tail(stderrHeadBytes + tailBytes)
	}
	head := r.first
	if i := bytes.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i]
	}
	tail := tailOf(r.bytes(), tailBytes)
	cut := r.total - int64(len(head)) - int64(len(tail))
	// The tail starts at a line: keep its indentation (usage text is
	// indented), trim only the line breaks around it.
	return clean(head) + "\n[... " + strconv.FormatInt(cut, 10) + " bytes of stderr cut ...]\n" +
		strings.TrimRight(strings.TrimLeft(string(bytes.ToValidUTF8(tail, []byte("\uFFFD"))), "\r\n"), " \t\r\n")
}

// tailOf returns at most n of the last bytes of b, starting at a line
// boundary when one is near.
func tailOf(b []byte, n int) []byte {
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	return b
}

// clean makes stderr bytes fit for an error message: valid UTF-8, no
// surrounding blank space.
func clean(b []byte) string {
	return strings.TrimSpace(string(bytes.ToValidUTF8(b, []byte("\uFFFD"))))
}
