package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxFrameSize is the longest stdout line (one JSON-RPC message) a
// stdio transport accepts (behaviour.md §4, "Frame cap").
const DefaultMaxFrameSize = 16 << 20

// readBufferSize is the bufio buffer: lines shorter than this are returned
// without a copy.
const readBufferSize = 64 << 10

// OversizedError reports a line longer than the frame cap. The line was
// discarded without being buffered whole and the reader resynced at the next
// newline.
type OversizedError struct {
	Limit   int
	Dropped int64 // bytes discarded, newline excluded
}

func (e *OversizedError) Error() string {
	return fmt.Sprintf("frame of %d bytes exceeds the %d-byte limit; discarded", e.Dropped, e.Limit)
}

// lineReader splits a byte stream into newline-terminated frames (JSON Lines,
// the stdio framing of basic/transports "stdio").
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte // holds a line that did not fit the bufio buffer
}

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxFrameSize
	}
	return &lineReader{r: bufio.NewReaderSize(r, readBufferSize), max: max}
}

// next returns the next non-blank line without its line ending. The slice is
// valid only until the following call. An *OversizedError is not fatal: call
// next again. A final line without a newline is returned before io.EOF.
func (lr *lineReader) next() ([]byte, error) {
	for {
		line, err := lr.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

func (lr *lineReader) readLine() ([]byte, error) {
	lr.release()
	for {
		frag, err := lr.r.ReadSlice('\n')
		switch {
		case err == nil || (errors.Is(err, io.EOF) && len(frag)+len(lr.buf) > 0):
			if len(lr.buf)+len(frag) > lr.max+1 { // +1: the newline
				n := int64(len(lr.buf) + len(frag))
				lr.buf = lr.buf[:0]
				return nil, &OversizedError{Limit: lr.max, Dropped: n - 1}
			}
			if len(lr.buf) == 0 {
				return frag, nil
			}
			lr.buf = append(lr.buf, frag...)
			return lr.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(lr.buf)+len(frag) > lr.max {
				n := int64(len(lr.buf) + len(frag))
				lr.buf = lr.buf[:0]
				return nil, lr.discard(n)
			}
			lr.buf = append(lr.buf, frag...)
		default:
			return nil, err
		}
	}
}

// discard skips the rest of an oversized line. It buffers nothing, so an
// endless line costs no memory; it returns when the newline comes or the
// stream ends.
func (lr *lineReader) discard(n int64) error {
	for {
		frag, err := lr.r.ReadSlice('\n')
		n += int64(len(frag))
		switch {
		case err == nil:
			return &OversizedError{Limit: lr.max, Dropped: n - 1}
		case errors.Is(err, bufio.ErrBufferFull):
		default:
			return err
		}
	}
}

// release drops a large accumulation buffer so that one huge frame does not
// pin its memory for the connection's lifetime.
func (lr *lineReader) release() {
	if cap(lr.buf) > 1<<20 {
		lr.buf = nil
	}
	lr.buf = lr.buf[:0]
}
