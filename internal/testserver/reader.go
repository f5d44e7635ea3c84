package testserver

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// MaxLineBytes is the longest line the server accepts on stdin. Longer lines
// are skipped and answered with a parse error. It is well above the 64 MiB
// a client may legitimately send.
const MaxLineBytes = 128 << 20

// readLoop reads stdin line by line and routes each message, until EOF, a
// read error, or the server stopping. It returns nil at EOF.
//
// Decoding happens here, on the reading goroutine, so that a request is
// registered as in flight before any later line (such as its cancellation)
// is looked at. Requests that answer at once are answered here too; the
// others run concurrently (see startRequest).
func (s *server) readLoop(in io.Reader) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var scratch []byte
	held := false
	defer func() {
		if held {
			s.out.release()
		}
	}()
	for {
		// Flush the answers written so far before waiting for input, but
		// not while more complete lines are already buffered: their
		// answers then leave together.
		if complete := hasCompleteLine(r); complete != held {
			if complete {
				s.out.hold()
			} else {
				s.out.release()
			}
			held = complete
		}
		if d := s.opts.ReadDelay; d > 0 && !sleep(s.ctx, d) {
			return nil
		}
		line, tooLong, err := readLine(r, &scratch, MaxLineBytes)
		if s.ctx.Err() != nil {
			return nil
		}
		switch {
		case tooLong:
			s.sendError(s.out, nil, newError(codeParseError, "Parse error: line longer than %d bytes", MaxLineBytes))
		case len(line) > 0:
			s.handleLine(line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if s.ctx.Err() != nil {
			return nil
		}
		if s.stopReading.Load() {
			// The stop-reading tool: stdin is left alone, as a server
			// stuck elsewhere would leave it, until the server stops.
			<-s.ctx.Done()
			return nil
		}
	}
}

// readLine returns the next line without its line ending and surrounding
// blanks. The line is only valid until the next call: it may point into
// r's buffer (the common case, no copy) or into *scratch, which grows to
// hold lines longer than that buffer. A line over limit bytes is consumed
// and reported as tooLong instead.
func readLine(r *bufio.Reader, scratch *[]byte, limit int) (line []byte, tooLong bool, err error) {
	chunk, err := r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return bytes.TrimSpace(chunk), false, err
	}
	buf := append((*scratch)[:0], chunk...)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = r.ReadSlice('\n')
		if tooLong || len(buf)+len(chunk) > limit {
			tooLong = true
			continue
		}
		buf = append(buf, chunk...)
	}
	// Keep a moderately sized scratch buffer for reuse, but do not pin the
	// memory of a one-off giant line.
	if cap(buf) <= 4<<20 {
		*scratch = buf
	} else {
		*scratch = nil
	}
	if tooLong {
		return nil, true, err
	}
	return bytes.TrimSpace(buf), false, err
}

// hasCompleteLine reports whether r holds a whole line already, so that
// reading it will not block.
func hasCompleteLine(r *bufio.Reader) bool {
	b, _ := r.Peek(r.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}
