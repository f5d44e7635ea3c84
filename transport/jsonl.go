package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
)

// defaultMaxFrameSize is the longest stdout line (one JSON-RPC message) a
// stdio transport accepts (docs/architecture.md, "Bounded everything").
const defaultMaxFrameSize = 16 << 20

// A connection's bufio buffer follows its lines. It starts at
// initialReadBuffer, and a line that does not fit it moves the reader to
// readBufferSize at once (what was read of the line is kept in pieces):
// most servers' lines are short, and a thousand connections should not
// hold 64 KiB each. Both sizes come from pools, and go back to them when
// the server is quiet (idle_reads.go). Lines shorter than the buffer are
// returned without a copy.
const (
	initialReadBuffer = 4 << 10
	readBufferSize    = 64 << 10
)

var (
	smallReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, initialReadBuffer) }}
	largeReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufferSize) }}
)

// oversizedError reports a line longer than the frame cap. The line was
// discarded without being buffered whole and the reader resynced at the next
// newline. Its top level was followed on the way, in constant memory, so
// that an answer to one of our requests can fail that request at once,
// even when its id comes after the payload.
type oversizedError struct {
	Limit   int
	Dropped int64             // bytes discarded, line ending ("\n" or "\r\n") excluded
	Head    jsonrpc.FrameHead // what the line's top level showed: id, method, result, error
}

func (e *oversizedError) Error() string {
	return fmt.Sprintf("frame of %d bytes exceeds the %d-byte limit; discarded", e.Dropped, e.Limit)
}

// lineReader splits a byte stream into newline-terminated frames (JSON Lines,
// the stdio framing of basic/transports "stdio"). A line longer than the
// bufio buffer is kept in pieces as it is read and put together once it
// ends, in a buffer of its own that the caller may keep (given).
type lineReader struct {
	r       *bufio.Reader
	resting *bufio.Reader // what r is while the server is quiet; made the first time
	src     *idleSource   // what r reads
	max     int
	long    pieces // the line read so far, when it did not fit the bufio buffer
	last    byte   // its final byte
	// given reports that the line next returned last is a buffer of its
	// own, which the caller may keep: nothing here writes it again.
	given bool
	// scan follows an oversized line as it is discarded; made for the
	// first one (it is over a KB, and most servers never send one).
	scan *jsonrpc.FrameHeadScanner
}

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = defaultMaxFrameSize
	}
	lr := &lineReader{src: newIdleSource(r), max: max}
	lr.r = smallReaders.Get().(*bufio.Reader)
	lr.r.Reset(lr.src)
	return lr
}

// use switches the reader to the buffer of to, only between reads that left
// nothing buffered: after a full buffer or a read that found the server quiet.
// A pooled buffer goes back to its pool, the lines it held having been
// handled (next's slice is valid only until the following call).
func (lr *lineReader) use(to *bufio.Reader) {
	switch lr.r.Size() {
	case initialReadBuffer:
		lr.r.Reset(nil)
		smallReaders.Put(lr.r)
	case readBufferSize:
		lr.r.Reset(nil)
		largeReaders.Put(lr.r)
	}
	to.Reset(lr.src)
	lr.r = to
}

// larger moves to the next larger buffer, after r was full.
func (lr *lineReader) larger() {
	switch lr.r.Size() {
	case restReadBuffer:
		lr.src.wake()
		lr.use(smallReaders.Get().(*bufio.Reader))
	case initialReadBuffer:
		lr.use(largeReaders.Get().(*bufio.Reader))
	}
}

// errQuiet is what next returns when the server has been quiet for
// readerIdle with no line begun: the reader has given its buffer back, and
// its caller waits for input (wait) before it calls next again.
var errQuiet = errors.New("transport: the stream is quiet")

// wait waits for input while the reader rests with nothing buffered, in
// its caller's frame rather than inside a read (idleSource.waitInput says
// why). A busy reader does not wait here: asking first would cost a
// system call for every read.
func (lr *lineReader) wait() {
	if lr.src.raw != nil && lr.r == lr.resting && lr.r.Buffered() == 0 {
		lr.src.waitInput()
	}
}

// rest gives the buffer back and waits for the server with the least.
func (lr *lineReader) rest() {
	if lr.resting == nil {
		lr.resting = bufio.NewReaderSize(nil, restReadBuffer)
	}
	lr.src.rest()
	lr.use(lr.resting)
}

// next returns the next non-blank line without its line ending. The slice is
// valid only until the following call. An *oversizedError is not fatal: call
// next again. A final line without a newline is returned before io.EOF.
func (lr *lineReader) next() ([]byte, error) {
	for {
		line, err := lr.readLine()
		if err != nil {
			return nil, err
		}
		// The line ending cut by hand: bytes.TrimRight builds its set of
		// characters on every call, and this runs for every line.
		for n := len(line); n > 0 && (line[n-1] == '\n' || line[n-1] == '\r'); n-- {
			line = line[:n-1]
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

// lineBuffered reports whether next can return a line without reading from
// the stream: a complete non-blank line is already in the buffer.
func (lr *lineReader) lineBuffered() bool {
	b, _ := lr.r.Peek(lr.r.Buffered())
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return false
		}
		if len(bytes.TrimSpace(b[:i])) > 0 {
			return true
		}
		b = b[i+1:]
	}
}

func (lr *lineReader) readLine() ([]byte, error) {
	lr.given = false
	for {
		frag, err := lr.r.ReadSlice('\n')
		switch {
		case err == nil || (errors.Is(err, io.EOF) && len(frag)+lr.long.n > 0):
			// A whole line, or the last one, which has no newline. The cap
			// applies to the line without its "\n" or "\r\n".
			end := lineEnding(lr.long.n > 0, lr.last, frag)
			if n := lr.long.n + len(frag) - end; n > lr.max {
				lr.startScan()
				lr.long.each(lr.scanWrite)
				lr.scan.Write(frag[:len(frag)-end])
				lr.drop()
				return nil, &oversizedError{Limit: lr.max, Dropped: int64(n), Head: lr.scan.Head()}
			}
			if lr.long.n == 0 {
				return frag, nil
			}
			lr.given = true
			return lr.long.assemble(nil, frag), nil
		case errors.Is(err, bufio.ErrBufferFull), quiet(err):
			n := lr.long.n + len(frag)
			if len(frag) > 0 && frag[len(frag)-1] == '\r' {
				n-- // it may be the start of "\r\n"
			}
			if n > lr.max {
				// Over the cap before its end: stop keeping it now,
				// following its top level to the end of the line.
				seen := int64(lr.long.n + len(frag))
				lr.startScan()
				lr.long.each(lr.scanWrite)
				lr.scan.Write(frag)
				lr.drop()
				return nil, lr.discard(seen, frag[len(frag)-1])
			}
			if len(frag) > 0 {
				lr.long.add(frag)
				lr.last = frag[len(frag)-1]
			}
			// Nothing is buffered behind a full buffer or a quiet
			// read: the buffer can change without losing a byte.
			if !quiet(err) {
				lr.larger()
				continue
			}
			lr.rest()
			if lr.long.n == 0 && lr.src.raw != nil {
				return nil, errQuiet
			}
		default:
			return nil, err
		}
	}
}

// lineEnding returns the length of the line ending of the line that ends
// with frag, after a part before it whose final byte is last (if before):
// 2 for "\r\n", 1 for "\n", 0 for a last line without one.
func lineEnding(before bool, last byte, frag []byte) int {
	if len(frag) == 0 || frag[len(frag)-1] != '\n' {
		return 0
	}
	var prev byte
	switch {
	case len(frag) >= 2:
		prev = frag[len(frag)-2]
	case before:
		prev = last
	}
	if prev == '\r' {
		return 2
	}
	return 1
}

// startScan readies the scanner for a new oversized line.
func (lr *lineReader) startScan() {
	if lr.scan == nil {
		lr.scan = new(jsonrpc.FrameHeadScanner)
	}
	lr.scan.Reset()
}

// scanWrite feeds p to the oversized line's scanner.
func (lr *lineReader) scanWrite(p []byte) { lr.scan.Write(p) }

// discard skips the rest of an oversized line, of which seen bytes (ending
// with last) were read already. It buffers nothing, so an endless line
// costs no memory; it returns when the newline comes or the stream ends.
func (lr *lineReader) discard(seen int64, last byte) error {
	for {
		frag, err := lr.r.ReadSlice('\n')
		seen += int64(len(frag))
		if err == nil {
			lr.scan.Write(frag[:len(frag)-1]) // the "\r" of a "\r\n" is blank space to it
		} else {
			lr.scan.Write(frag)
		}
		if len(frag) > 0 {
			if err == nil && (len(frag) >= 2 && frag[len(frag)-2] == '\r' || len(frag) == 1 && last == '\r') {
				seen-- // the "\r" of "\r\n"
			}
			last = frag[len(frag)-1]
		}
		switch {
		case err == nil:
			return &oversizedError{Limit: lr.max, Dropped: seen - 1, Head: lr.scan.Head()}
		case errors.Is(err, bufio.ErrBufferFull), quiet(err):
		case errors.Is(err, io.EOF):
			// The stream ended inside the line: report the line now; the
			// next call finds the end of the stream.
			return &oversizedError{Limit: lr.max, Dropped: seen, Head: lr.scan.Head()}
		default:
			return err
		}
	}
}

// drop forgets the line being read.
func (lr *lineReader) drop() {
	lr.long.reset()
	lr.last = 0
}
