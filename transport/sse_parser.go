package transport

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
)

// The Streamable HTTP transport
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http)
// and the legacy HTTP+SSE one
// (https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse)
// carry JSON-RPC messages as Server-Sent Events. sseReader turns a
// text/event-stream body into those events by the WHATWG "event stream
// interpretation" rules
// (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation),
// with the differences listed on sseReader.

// sseBOM is the UTF-8 byte order mark, which the stream may start with.
var sseBOM = []byte{0xEF, 0xBB, 0xBF}

// sseKeepCap is the largest buffer an sseReader keeps between events: one
// huge event must not pin its memory for the stream's lifetime.
const sseKeepCap = 1 << 20

// sseReadBufferSize is the bufio buffer of an sseReader. The parser never
// needs a whole line in it (values are copied out piece by piece), so it
// is smaller than the stdio reader's: Streamable HTTP opens a stream for
// many a request, and 16 KiB is a full TLS record.
const sseReadBufferSize = 16 << 10

// sseListenerBufferSize is the read buffer of the GET stream a session
// keeps open for the server's own messages: it is quiet most of its life,
// and a backend with a session per user holds a thousand of them, so it
// reads through a small buffer of its own (the HTTP connection's reader
// buffers 4 KiB below it) rather than holding 16 KiB each.
const sseListenerBufferSize = 1 << 10

// sseMaxRetry is the longest reconnection time, in milliseconds, that a
// time.Duration holds.
const sseMaxRetry = math.MaxInt64 / int64(time.Millisecond)

// sseEvent is one dispatched event.
type sseEvent struct {
	// Type is the event field's value, "message" when there was none or it
	// was empty. MCP servers send "message" for JSON-RPC, and "endpoint"
	// for the legacy transport's first event.
	Type string
	// Data is the event's data lines joined with "\n". It aliases the
	// reader's buffer: it is valid only until the next call to Next. It
	// may be empty: "data:" with no value makes an event whose data is ""
	// (WHATWG appends the value and a "\n", so the buffer is not empty
	// and the event is dispatched). The priming event of MCP 2025-11-25
	// (an id and an empty data field, sent so that the client can resume
	// with Last-Event-ID) is such an event; the transport skips it, since
	// it holds no JSON-RPC message.
	Data []byte
	// ID is the stream's last event id once this event is read: the id
	// field of this event or, failing one, of an earlier event (WHATWG
	// sets MessageEvent.lastEventId the same way). It is what a client
	// resuming after this event sends as Last-Event-ID.
	ID string
	// HasID reports that this event carried an id field that took effect,
	// an empty one included.
	HasID bool
	// Owned reports that Data is a buffer of its own, the caller's to
	// keep: the data of an event too long for one piece is put together
	// in a buffer of its exact size (pieces).
	Owned bool
}

// sseEventTooLargeError reports an event larger than the reader's limit.
// The event was skipped as it arrived, never held whole, and the reader
// went on with the next event: Next may be called again. Its data was
// followed on the way, in constant memory, so that a response it carried
// can fail its request at once (jsonrpc.FrameHeadScanner).
type sseEventTooLargeError struct {
	Limit int   // the reader's limit in bytes
	Size  int64 // bytes of the event's data (as it would have been dispatched) and of all its event and id values
	// ID is the stream's last event id after the event: the event's own
	// id, if it had one, so that resuming from it does not ask for the
	// event again.
	ID   string
	Head jsonrpc.FrameHead // what the top level of the event's data showed
}

func (e *sseEventTooLargeError) Error() string {
	msg := "SSE event of " + strconv.FormatInt(e.Size, 10) + " bytes exceeds the " +
		strconv.Itoa(e.Limit) + "-byte limit; skipped"
	if e.ID != "" {
		msg += " (last event id " + strconv.Quote(e.ID) + ")"
	}
	return msg
}

// sseField is the field a line names.
type sseField uint8

const (
	sseOther   sseField = iota // a field name the spec ignores
	sseComment                 // a line starting with ':'
	sseData
	sseEventType
	sseID
	sseRetry
)

// ssePhase is where the reader stands in the current line.
type ssePhase uint8

const (
	sseInName  ssePhase = iota // before the first ':'
	sseAtValue                 // just after it: one space is dropped
	sseInValue
)

// sseCounter counts the bytes read from the body, for watchdogs on other
// goroutines.
type sseCounter struct {
	r io.Reader
	n atomic.Int64
}

func (c *sseCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// sseReader reads Server-Sent Events from a response body.
//
// Lines are read in place from the bufio buffer and a field's value is
// appended straight to where it is kept, so a line is never buffered whole
// and small events cost no allocation: a string is made only for an id or
// an event type unlike the previous one.
//
// Where it differs from WHATWG, and why:
//   - Bytes are not decoded: invalid UTF-8 passes through as is instead of
//     becoming U+FFFD. Data is JSON, which encoding/json validates and
//     whose strings it repairs the same way; an id is echoed byte for byte
//     in Last-Event-ID, which is what a server can match.
//   - An event is skipped, with an *sseEventTooLargeError, when its data
//     and its event and id values come to more than the limit. Comments,
//     unknown fields and retry are never held, so they have no limit. An
//     id value longer than the limit on its own is ignored, as one holding
//     NUL is, since it cannot be kept.
//   - retry with no digits, or more than a time.Duration holds, is ignored.
//   - An end of stream inside an event is io.ErrUnexpectedEOF, not io.EOF,
//     so that the caller knows to resume; the event is discarded either way.
//
// The last event id becomes the stream's at each blank line, as WHATWG's
// "last event ID string" does, so an id in an event cut off by the end of
// the stream does not count. Retry takes effect at its line.
//
// An sseReader is not safe for concurrent use, except Received.
type sseReader struct {
	// LastEventID is the id to send as Last-Event-ID when reconnecting.
	LastEventID string
	// Retry is the reconnection delay the server last asked for, if
	// RetrySet.
	Retry    time.Duration
	RetrySet bool

	body sseCounter
	br   *bufio.Reader
	max  int
	err  error // sticky: the error that ended the stream

	bomDone bool  // the start of the stream was checked for a BOM
	skipLF  bool  // the last line ended with CR: a LF right after it belongs to it
	noLF    int   // the first noLF buffered bytes hold no LF
	readErr error // an error met while looking for a BOM, reported once the bytes before it are read

	// The line being read.
	inLine   bool // a byte of it was read
	phase    ssePhase
	field    sseField
	name     [5]byte // the field name so far: the longest one we know is 5 bytes
	nameLen  int
	nameLong bool
	idNUL    bool  // the id value holds a NUL
	idLong   bool  // the id value is longer than the limit
	retry    int64 // the retry value so far
	retryN   int   // its digits
	retryBad bool  // a byte other than a digit, or too many

	// The event being built.
	pending  bool   // a field other than a comment was read since the last blank line
	data     []byte // each data value followed by "\n", up to pieceSize bytes
	long     pieces // the rest of them, if any
	typ      []byte // the event field's value
	idv      []byte // the last id field's value
	hasID    bool
	idBuffer string                    // WHATWG's "last event ID buffer": the last id field that took effect
	lastType string                    // the previous event type, reused while it does not change
	meta     int64                     // bytes of all its event and id values so far
	over     bool                      // the event went over the limit and is being skipped
	overData int64                     // then: bytes of its data so far, each value followed by "\n"
	overScan *jsonrpc.FrameHeadScanner // made at the first skipped event: 1.6 KB most streams never need
}

// newSSEReader reads events from r, skipping any whose data (with its event
// and id values) is longer than maxEvent bytes; maxEvent <= 0 means
// defaultMaxFrameSize. The buffers of the event being read hold at most
// maxEvent+1 bytes in all; beside them are the read buffer and the last id
// and event type, kept as strings.
func newSSEReader(r io.Reader, maxEvent int) *sseReader {
	return newSSEReaderSize(r, maxEvent, sseReadBufferSize)
}

// newSSEReaderSize is newSSEReader with a read buffer of bufSize bytes (16
// at least): the GET listener's is small, and tests use a tiny one, so
// that lines outgrow it.
func newSSEReaderSize(r io.Reader, maxEvent, bufSize int) *sseReader {
	if maxEvent <= 0 {
		maxEvent = defaultMaxFrameSize
	}
	s := &sseReader{max: maxEvent}
	s.body.r = r
	if bufSize == sseReadBufferSize {
		s.br = sseReadBuffers.Get().(*bufio.Reader)
		s.br.Reset(&s.body)
	} else {
		s.br = bufio.NewReaderSize(&s.body, bufSize)
	}
	return s
}

// sseReadBuffers lends read buffers to the streams that answer POSTs: a
// Streamable HTTP server may answer every request with a stream of its
// own, and a read buffer made for each was most of what such a call
// allocated (16 KiB).
var sseReadBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, sseReadBufferSize) }}

// release gives the read buffer back, once the stream is read to the end
// wanted; the reader must not be used again (Received excepted).
func (s *sseReader) release() {
	if s.br == nil || s.br.Size() != sseReadBufferSize {
		return
	}
	s.br.Reset(nil)
	sseReadBuffers.Put(s.br)
	s.br = nil
}

// Received returns how many bytes have been read from the body so far. Any
// goroutine may call it, while Next blocks too: comments, which Next never
// returns, move it, so a watchdog can tell a live but quiet stream (one
// sending keep-alive comments) from a dead one.
func (s *sseReader) Received() int64 { return s.body.n.Load() }

// resumeFrom is where a reconnection picks the stream up: its last event
// id, and the retry the server set (0 if none).
func (s *sseReader) resumeFrom() (lastID string, retry time.Duration) {
	if s.RetrySet {
		retry = s.Retry
	}
	return s.LastEventID, retry
}

// Next returns the next event. An *sseEventTooLargeError is not fatal: call
// Next again. The stream ends with io.EOF after a complete event (or none),
// with io.ErrUnexpectedEOF inside one, or with the body's read error; the
// same error is returned from then on. Event.Data is valid until the next
// call.
func (s *sseReader) Next() (sseEvent, error) {
	if s.err != nil {
		return sseEvent{}, s.err
	}
	if cap(s.data) > sseKeepCap {
		s.data = nil
	}
	for {
		seg, eol, err := s.segment()
		if err != nil {
			if err == io.EOF && (s.pending || s.inLine && s.field != sseComment) {
				err = io.ErrUnexpectedEOF
			}
			s.err = err
			s.endEvent()
			return sseEvent{}, err
		}
		if len(seg) > 0 {
			s.feed(seg)
		}
		if !eol {
			continue
		}
		if s.inLine {
			s.endLine()
			continue
		}
		if ev, ok, err := s.blankLine(); ok || err != nil {
			return ev, err
		}
	}
}

// segment returns the next piece of the current line, without its line
// ending, and whether the line ends after it. The piece aliases the bufio
// buffer: it is valid until the next read.
func (s *sseReader) segment() ([]byte, bool, error) {
	for {
		if s.br.Buffered() == 0 {
			if s.readErr != nil {
				return nil, false, s.readErr
			}
			if _, err := s.br.Peek(1); err != nil {
				return nil, false, err
			}
		}
		buf, _ := s.br.Peek(s.br.Buffered())
		if !s.bomDone {
			// Only the stream's first bytes may be a BOM (WHATWG: "One
			// leading U+FEFF BYTE ORDER MARK character must be ignored").
			// It may come split across reads.
			if len(buf) < len(sseBOM) && bytes.HasPrefix(sseBOM, buf) {
				var err error
				buf, err = s.br.Peek(len(sseBOM))
				if err != nil {
					s.readErr = err
				}
			}
			s.bomDone = true
			if bytes.HasPrefix(buf, sseBOM) {
				s.br.Discard(len(sseBOM))
				continue
			}
		}
		if s.skipLF {
			// A CR ended the last line; it was acted on at once, not
			// held back until the next byte showed whether a LF
			// followed, since that byte may be long in coming.
			s.skipLF = false
			if buf[0] == '\n' {
				s.br.Discard(1)
				continue
			}
		}
		// A LF is looked for only past the bytes known to hold none: with
		// CR line ends the next LF may be far off, and looking for it
		// again at every line would make reading quadratic.
		lf := -1
		if i := bytes.IndexByte(buf[s.noLF:], '\n'); i >= 0 {
			lf = s.noLF + i
		}
		head := buf
		s.noLF = len(buf)
		if lf >= 0 {
			head, s.noLF = buf[:lf], lf
		}
		n, seg, eol := len(buf), buf, false
		if cr := bytes.IndexByte(head, '\r'); cr >= 0 {
			n, seg, eol = cr+1, buf[:cr], true
			if cr+1 < len(buf) && buf[cr+1] == '\n' {
				n++
			} else {
				s.skipLF = cr+1 == len(buf) // the LF, if any, is still to come
			}
		} else if lf >= 0 {
			n, seg, eol = lf+1, buf[:lf], true
		}
		s.br.Discard(n)
		s.noLF = max(s.noLF-n, 0)
		return seg, eol, nil
	}
}

// feed reads the next piece of the current line.
func (s *sseReader) feed(p []byte) {
	s.inLine = true
	if s.phase == sseInName {
		colon := bytes.IndexByte(p, ':')
		name := p
		if colon >= 0 {
			name = p[:colon]
		}
		if s.nameLen+len(name) <= len(s.name) {
			s.nameLen += copy(s.name[s.nameLen:], name)
		} else {
			s.nameLong = true
		}
		if colon < 0 {
			return
		}
		s.startField(s.named(true))
		p = p[colon+1:]
	}
	if s.phase == sseAtValue {
		if len(p) == 0 {
			return
		}
		if p[0] == ' ' {
			p = p[1:]
		}
		s.phase = sseInValue
	}
	if len(p) > 0 {
		s.value(p)
	}
}

// named returns the field the line's name stands for; colon reports that
// the name ended at a ':' rather than at the end of the line.
func (s *sseReader) named(colon bool) sseField {
	if s.nameLong {
		return sseOther
	}
	switch string(s.name[:s.nameLen]) {
	case "":
		if colon {
			return sseComment
		}
	case "data":
		return sseData
	case "event":
		return sseEventType
	case "id":
		return sseID
	case "retry":
		return sseRetry
	}
	return sseOther
}

// startField begins the value of a field: a new event or id value replaces
// the event's previous one.
func (s *sseReader) startField(f sseField) {
	s.field = f
	s.phase = sseAtValue
	if f != sseComment {
		s.pending = true
	}
	switch f {
	case sseEventType:
		s.typ = s.typ[:0]
	case sseID:
		s.idv = s.idv[:0]
		s.idNUL, s.idLong = false, false
	}
}

// size is what the limit applies to, if the event ended with extra more
// bytes of the current line's value: its data as it would be dispatched,
// and all its event and id values. Counting every value, not only the last
// (the one held), keeps the size from ever shrinking: an event once too
// large stays so.
func (s *sseReader) size(extra int) int64 {
	d := int64(len(s.data) + s.long.n)
	if s.over {
		d = s.overData
	}
	if s.field != sseData && d > 0 {
		d-- // the last "\n" joins nothing unless a data line follows
	}
	return d + s.meta + int64(extra)
}

// tooLarge reports whether extra more bytes of the current value take the
// event over the limit, for the first time.
func (s *sseReader) tooLarge(extra int) bool {
	return !s.over && s.size(extra) > int64(s.max)
}

// value reads a piece of the current field's value.
func (s *sseReader) value(p []byte) {
	switch s.field {
	case sseData:
		if s.tooLarge(len(p)) {
			s.overflow()
		}
		if s.over {
			s.overData += int64(len(p))
			s.overScan.Write(p)
			return
		}
		s.addData(p)
	case sseEventType:
		if s.tooLarge(len(p)) {
			s.overflow()
		}
		s.meta += int64(len(p))
		if !s.over {
			s.typ = s.grow(s.typ, p)
		}
	case sseID:
		if bytes.IndexByte(p, 0) >= 0 {
			s.idNUL = true
		}
		if s.tooLarge(len(p)) {
			s.overflow()
		}
		s.meta += int64(len(p))
		if s.over {
			// The data is gone, so the id may use the whole limit.
			if s.idLong || len(s.idv)+len(p) > s.max {
				s.idLong = true
				s.idv = shrinkSSE(s.idv)
				return
			}
		}
		s.idv = s.grow(s.idv, p)
	case sseRetry:
		for _, c := range p {
			if s.retryBad {
				return
			}
			if c < '0' || c > '9' {
				s.retryBad = true
				return
			}
			s.retry = s.retry*10 + int64(c-'0')
			s.retryN++
			if s.retry > sseMaxRetry {
				s.retryBad = true
			}
		}
	}
}

// overflow starts skipping the event: what it held is counted, its data fed
// to the scanner, and its buffers let go.
func (s *sseReader) overflow() {
	s.over = true
	s.overData = int64(len(s.data) + s.long.n)
	if s.overScan == nil {
		s.overScan = new(jsonrpc.FrameHeadScanner)
	}
	s.overScan.Reset()
	s.overScan.Write(s.data)
	s.long.each(s.scanOver)
	s.long.reset()
	s.data = shrinkSSE(s.data)
	s.typ = shrinkSSE(s.typ)
	// idv is kept: an id being read may still take effect.
}

// endLine acts on a complete line that is not blank.
func (s *sseReader) endLine() {
	if s.phase == sseInName {
		// No colon: the whole line is the field name, and the value is
		// empty.
		s.startField(s.named(false))
	}
	switch s.field {
	case sseData:
		if s.tooLarge(0) {
			s.overflow() // an empty data line adds a "\n" joiner
		}
		if s.over {
			s.overData++
			s.overScan.Write(sseLF)
		} else {
			s.addData(sseLF)
		}
	case sseID:
		if !s.idNUL && !s.idLong {
			if string(s.idv) != s.idBuffer {
				s.idBuffer = string(s.idv)
			}
			s.hasID = true
		}
	case sseRetry:
		if !s.retryBad && s.retryN > 0 {
			s.Retry = time.Duration(s.retry) * time.Millisecond
			s.RetrySet = true
		}
	}
	s.inLine = false
	s.phase = sseInName
	s.field = sseOther
	s.nameLen = 0
	s.nameLong = false
	s.retry, s.retryN, s.retryBad = 0, 0, false
}

var sseLF = []byte{'\n'}

// blankLine dispatches the event, if it has data; ok reports that it did,
// or that it was too large (the error then).
func (s *sseReader) blankLine() (ev sseEvent, ok bool, err error) {
	s.LastEventID = s.idBuffer
	switch {
	case s.over:
		err = &sseEventTooLargeError{Limit: s.max, Size: s.size(0),
			ID: s.LastEventID, Head: s.overScan.Head()}
		ok = true
	case s.long.n > 0:
		data := s.long.assemble(s.data, nil)
		ev = sseEvent{Type: s.eventType(), Data: data[:len(data)-1], ID: s.LastEventID, HasID: s.hasID, Owned: true}
		ok = true
	case len(s.data) > 0:
		ev = sseEvent{Type: s.eventType(), Data: s.data[:len(s.data)-1], ID: s.LastEventID, HasID: s.hasID}
		ok = true
	}
	s.endEvent()
	return ev, ok, err
}

// eventType returns the event's type as a string, making one only when it
// differs from the last.
func (s *sseReader) eventType() string {
	switch {
	case len(s.typ) == 0 || string(s.typ) == "message":
		return "message"
	case string(s.typ) != s.lastType:
		s.lastType = string(s.typ)
	}
	return s.lastType
}

// endEvent forgets the event being built. The data buffer keeps its bytes
// (a dispatched event's Data still points at them) until the next append.
func (s *sseReader) endEvent() {
	s.pending = false
	s.data = s.data[:0]
	s.long.reset()
	s.typ = shrinkSSE(s.typ)
	s.idv = shrinkSSE(s.idv)
	s.hasID = false
	s.over = false
	s.meta, s.overData = 0, 0
}

// addData appends p to the event's data: to data up to a piece's size,
// then to the pieces, so that a long event is not held in a buffer grown
// by doubling.
func (s *sseReader) addData(p []byte) {
	if s.long.n == 0 && len(s.data)+len(p) <= pieceSize {
		s.data = s.grow(s.data, p)
		return
	}
	s.long.add(p)
}

// scanOver feeds p to the skipped event's scanner.
func (s *sseReader) scanOver(p []byte) { s.overScan.Write(p) }

// grow appends p to b. The buffer grows geometrically but never past the
// limit (and a data line's "\n"), so that the limit bounds the memory an
// event holds rather than append's rounding up.
func (s *sseReader) grow(b, p []byte) []byte {
	need := len(b) + len(p)
	if need > cap(b) {
		n := max(min(2*cap(b), s.max+1), need, 64)
		grown := make([]byte, len(b), n)
		copy(grown, b)
		b = grown
	}
	return append(b, p...)
}

// shrinkSSE empties b, letting a large buffer go.
func shrinkSSE(b []byte) []byte {
	if cap(b) > sseKeepCap {
		return nil
	}
	return b[:0]
}
