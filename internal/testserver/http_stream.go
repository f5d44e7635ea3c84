package testserver

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Bounds on what a session keeps for resumption: a stream nobody reads, or
// a session that never ends, must not grow forever.
const (
	// maxStreamEvents is the most events one stream keeps; older ones
	// can no longer be replayed.
	maxStreamEvents = 1024
	// maxStreams is the most request streams a session keeps for
	// resumption; the oldest is forgotten first.
	maxStreams = 1024
)

// streamKind says how a stream's messages reach the client.
type streamKind uint8

const (
	// streamSSE answers one POST with an event stream: everything the
	// request's handling sends, then its response.
	streamSSE streamKind = iota
	// streamJSON answers one POST with one JSON body, the response; what
	// else the handling sends goes to the session's standalone stream.
	streamJSON
	// streamStandalone is a session's stream for what belongs to no
	// request: the GET listener's (Streamable HTTP), or the one event
	// stream of a legacy session, which carries everything.
	streamStandalone
)

// event is one message on a stream, numbered from 1 in the stream's order.
type event struct {
	seq      int64
	data     []byte
	response bool // the request's answer: a request stream ends after it
}

// stream is one stream of messages to the client. It is the outlet of the
// requests it answers: handlers and tools append to it from any goroutine,
// and the HTTP handler attached to it writes what it holds. Events are
// kept, numbered, so that a client whose connection broke can ask for the
// rest with Last-Event-ID
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery);
// their SSE ids are "<stream id>-<seq>", unique in the session.
type stream struct {
	sess *session
	id   string
	kind streamKind

	// onAnswer, if set, runs once the response has been added
	// (HTTPExpireAfter ends the session there).
	onAnswer func()

	mu       sync.Mutex
	events   []event
	next     int64 // the seq of the next event
	answered bool  // the response is in events: nothing more comes here
	ended    bool  // the session is over: nothing more comes at all
	cause    error // why it ended
	attached bool  // an HTTP response is writing the stream
	sent     int64 // the last seq written to any connection
	wake     chan struct{}
}

func newStream(sess *session, id string, kind streamKind) *stream {
	return &stream{sess: sess, id: id, kind: kind, next: 1, wake: make(chan struct{}, 1)}
}

// send implements outlet. A message that cannot go on this stream (it is
// not the response of a JSON answer, or the response has been sent) goes
// to the session's standalone stream, as one that belongs to no request.
func (st *stream) send(isResponse bool, msgs ...[]byte) {
	if len(msgs) == 0 {
		return
	}
	st.mu.Lock()
	if st.ended {
		st.mu.Unlock()
		return
	}
	if st.answered || (st.kind == streamJSON && !isResponse) {
		st.mu.Unlock()
		st.sess.standalone.send(false, msgs...)
		return
	}
	for i, m := range msgs {
		answers := isResponse && st.kind != streamStandalone && i == 0
		st.events = append(st.events, event{seq: st.next, data: m, response: answers})
		st.next++
		if answers {
			// A response answers the request: what follows it in the
			// same call (none of our senders does that) goes elsewhere.
			st.answered = true
			if rest := msgs[i+1:]; len(rest) > 0 {
				defer st.sess.standalone.send(false, rest...)
			}
			break
		}
	}
	if n := len(st.events) - maxStreamEvents; n > 0 {
		st.events = append(st.events[:0:0], st.events[n:]...)
	}
	hook := st.answered && st.onAnswer != nil
	if hook {
		defer st.onAnswer()
		st.onAnswer = nil
	}
	st.mu.Unlock()
	st.poke()
}

// isAnswered reports whether the stream holds its request's answer.
func (st *stream) isAnswered() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.answered
}

// poke wakes the handler writing the stream, if any.
func (st *stream) poke() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// after returns the events after seq cursor, and whether (and why) the
// stream has ended.
func (st *stream) after(cursor int64) ([]event, bool, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var evs []event
	for i := range st.events {
		if st.events[i].seq > cursor {
			evs = st.events[i:]
			break
		}
	}
	return evs, st.ended, st.cause
}

// end marks the stream over: its session has ended with cause.
func (st *stream) end(cause error) {
	st.mu.Lock()
	if !st.ended {
		st.ended, st.cause = true, cause
	}
	st.mu.Unlock()
	st.poke()
}

// attach claims the stream for one HTTP response; false if another one
// holds it.
func (st *stream) attach() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.attached {
		return false
	}
	st.attached = true
	return true
}

func (st *stream) detach() {
	st.mu.Lock()
	st.attached = false
	st.mu.Unlock()
}

// markSent records that the events up to seq have been written.
func (st *stream) markSent(seq int64) {
	st.mu.Lock()
	st.sent = max(st.sent, seq)
	st.mu.Unlock()
}

// unsent is the cursor after which events were never written: where a
// new GET listener starts.
func (st *stream) unsent() int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sent
}

// eventID is the SSE id of the stream's event seq.
func (st *stream) eventID(seq int64) string {
	return st.id + "-" + strconv.FormatInt(seq, 10)
}

// parseEventID splits an SSE id into the stream id and the seq.
func parseEventID(id string) (string, int64, bool) {
	i := strings.LastIndexByte(id, '-')
	if i <= 0 {
		return "", 0, false
	}
	seq, err := strconv.ParseInt(id[i+1:], 10, 64)
	if err != nil || seq < 0 {
		return "", 0, false
	}
	return id[:i], seq, true
}

// pumpSpec says how pump writes a stream.
type pumpSpec struct {
	ids       bool   // give every event its id
	eventType string // the event field ("message" for the legacy transport); "" for none
	drop      bool   // HTTPDropStreams: end the response just before the request's answer
	limit     int    // HTTPGetCloseAfter: end the response after this many events (0: no limit)
}

// pump writes the stream's events after cursor to w as Server-Sent Events
// until the request's answer has been written, the stream ends, the client
// goes away or the handler closes. A session that ended as a process does
// (a crash, the handler closing) aborts the connection instead of ending
// the response, which is what the client of a dying server sees.
func (h *HTTPHandler) pump(w http.ResponseWriter, r *http.Request, st *stream, cursor int64, spec pumpSpec) {
	rc := http.NewResponseController(w)
	written := 0
	for {
		evs, ended, cause := st.after(cursor)
		for _, ev := range evs {
			if spec.limit > 0 && written == spec.limit {
				_ = rc.Flush()
				return
			}
			written++
			if ev.response && spec.drop {
				// The connection closes with the stream unfinished:
				// the answer stays buffered for a resumption.
				_ = rc.Flush()
				return
			}
			id := ""
			if spec.ids {
				id = st.eventID(ev.seq)
			}
			if writeEvent(w, id, spec.eventType, ev.data) != nil {
				return
			}
			cursor = ev.seq
			st.markSent(cursor)
			if ev.response {
				_ = rc.Flush()
				return
			}
		}
		if rc.Flush() != nil {
			return
		}
		if ended {
			abortIf(cause)
			return
		}
		if !await(h, r, st.wake) {
			return
		}
	}
}

// await waits for ch (a stream's wake, a timer) and reports false when
// the client of r went away first. h shutting down aborts the
// connection instead (panic with http.ErrAbortHandler), as a server's
// exit would.
func await[T any](h *HTTPHandler, r *http.Request, ch <-chan T) bool {
	select {
	case <-ch:
		return true
	case <-r.Context().Done():
		return false
	case <-h.ctx.Done():
		panic(http.ErrAbortHandler)
	}
}

// abortIf aborts the connection (panic with http.ErrAbortHandler) when
// a session that ended with cause ends its connections abruptly.
func abortIf(cause error) {
	if abortsConnections(cause) {
		panic(http.ErrAbortHandler)
	}
}

// startEventStream writes the headers of an event stream and, when the
// stream is resumable, the priming event of 2025-11-25 (an id and empty
// data, so that the client has a cursor before anything else), with the
// retry: field when one is set
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
func (h *HTTPHandler) startEventStream(w http.ResponseWriter, primeID string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	var b []byte
	if primeID != "" {
		b = append(b, "id: "+primeID+"\n"...)
	}
	if d := h.opts.HTTPRetry; d > 0 {
		ms := int64((d + time.Millisecond - 1) / time.Millisecond) // rounded up: a set value is never 0
		b = append(b, "retry: "+strconv.FormatInt(ms, 10)+"\n"...)
	}
	if primeID != "" {
		b = append(b, "data: \n"...)
	}
	if len(b) > 0 {
		_, _ = w.Write(append(b, '\n'))
	}
	_ = http.NewResponseController(w).Flush()
}

// writeEvent writes one event. Data holding line breaks (a raw line a
// tool was asked to send) becomes several data lines, which the client
// joins with "\n" again.
func writeEvent(w io.Writer, id, eventType string, data []byte) error {
	b := make([]byte, 0, len(data)+64)
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	if eventType != "" {
		b = append(b, "event: "...)
		b = append(b, eventType...)
		b = append(b, '\n')
	}
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		b = append(b, "data: "...)
		b = append(b, line...)
		b = append(b, '\n')
	}
	_, err := w.Write(append(b, '\n'))
	return err
}

// Why a session ended.
var (
	errSessionDeleted = errors.New("testserver: session ended by DELETE")
	errSessionExpired = errors.New("testserver: session expired (HTTPExpireAfter)")
	errLegacyGone     = errors.New("testserver: the legacy event stream closed")
	errHandlerClosed  = errors.New("testserver: HTTP handler closed")
)

// abortsConnections reports whether a session that ended with cause ends
// its connections abruptly, as a process that exits or a server that shuts
// down does, rather than ending its responses in order.
func abortsConnections(cause error) bool {
	var exit *ExitError
	return errors.As(cause, &exit) || errors.Is(cause, errHandlerClosed)
}
