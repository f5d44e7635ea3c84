package transport

import (
	"bytes"
	"strings"
)

// stderrRing keeps the last bytes a server wrote to stderr, so the error that
// ends the connection can show them (behaviour.md §4). It grows only as
// output arrives, so a quiet server costs nearly nothing, and never beyond its
// limit, so a chatty one cannot exhaust memory. Owned by the stderr drain
// goroutine until it hands the ring over in its final message.
type stderrRing struct {
	buf   []byte
	limit int
	start int  // index of the oldest byte once the ring is full
	full  bool // the ring has wrapped
	total int64
}

func newStderrRing(limit int) *stderrRing { return &stderrRing{limit: limit} }

func (r *stderrRing) Write(p []byte) (int, error) {
	n := len(p)
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
	b := r.bytes()
	if len(b) > maxBytes {
		b = b[len(b)-maxBytes:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	return strings.TrimSpace(string(bytes.ToValidUTF8(b, []byte("\uFFFD"))))
}
