package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// A fence (StdioConfig.Fence, HTTPConfig.Fence) is asked at the last moment
// before frames go to the server: before the write system call that starts
// a frame on stdin, and as an HTTP request's body is about to be sent. A
// supervisor that owns a server only under a lease (supervisor/cluster)
// sets one, so that a member paused after its last check and resumed after
// its lease lapsed writes nothing: the requests queued meanwhile end with
// the fence's error instead. What remains is the time between the check
// and the write system call itself.

// FencePanicError is the error of frames refused because the fence
// panicked: a panic in a user's callback must not take the process down,
// and a fence that cannot answer has not allowed the write.
type FencePanicError struct {
	Value any // what was passed to panic
}

func (e *FencePanicError) Error() string {
	return fmt.Sprintf("the write fence (ServerConfig.Fence) panicked: %v", e.Value)
}

// checkFence asks fence whether frames may be written now; nil allows.
func checkFence(fence func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &FencePanicError{Value: r}
		}
	}()
	return fence()
}

// writeFenced writes b's frames as writeChunked would, asking fence before
// each write system call that starts at a frame's beginning: a write the
// fence refuses is not made, and neither is any after it. Frames that fit
// go together in writes of up to writeChunk bytes; a frame longer than that
// is written whole once begun, in chunks with no check between them, since
// a torn line would corrupt every frame after it. Observers hear of each
// frame just before its first write. It returns how many frames were
// written whole, the fence's refusal and the write's error.
func writeFenced(f io.Writer, b *writeBatch, progress *atomic.Int64, fence func() error) (sent int, refused, err error) {
	start := 0
	for sent < len(b.frames) {
		if refused = checkFence(fence); refused != nil {
			return sent, refused, nil
		}
		n := sent + 1
		for n < len(b.frames) && b.frames[n].end-start <= writeChunk {
			n++
		}
		for _, fr := range b.frames[sent:n] {
			if fr.obs != nil {
				fr.obs.Written()
			}
		}
		end := b.frames[n-1].end
		if err = writeChunked(f, b.buf[start:end], progress); err != nil {
			return sent, nil, err
		}
		start, sent = end, n
		if sent < len(b.frames) {
			progress.Store(time.Now().UnixNano())
		}
	}
	return sent, nil, nil
}

// refusedBody is the error a fenced request body returns from Read when
// the fence refuses: net/http gives it back from the round trip, and the
// POST's goroutine tells it from a network error by its type.
type refusedBody struct{ err error }

func (e *refusedBody) Error() string { return e.err.Error() }
func (e *refusedBody) Unwrap() error { return e.err }

// fenceRefusal returns the fence's own error if err is a refusal of it.
func fenceRefusal(err error) (error, bool) {
	if err == nil {
		return nil, false // without the allocation errors.As's target costs
	}
	var r *refusedBody
	if errors.As(err, &r) {
		return r.err, true
	}
	return nil, false
}

// fencedBody is the body of every POST: one object that is both its reader
// and its closer (bytes.NewReader and io.NopCloser would be two per
// request). With a fence it asks the fence at its first Read:
// net/http reads the body when it writes the request on a connection it
// holds, after any dial, TLS handshake or Authorizer's token fetch, so the
// check is as late as the client can make it. A refused body fails the
// request before any of its bytes are sent; under HTTP/1.1 the request's
// headers stay in the connection's buffer and the connection is dropped,
// under HTTP/2 the stream is reset after its headers: either way the
// server never has the message. Each attempt (an Authorizer's retry, a
// redirect) gets a body of its own through GetBody, and is asked again.
//
// Without a fence, a small body is read through mem instead (the request's
// reader, http_request.go): net/http writes a body it knows to be in
// memory together with the request's headers, and flushes the headers on
// their own before any other reader, which costs a write, and a TCP
// segment for the server to read, per request.
type fencedBody struct {
	rest    []byte
	all     []byte       // the whole body, for GetBody
	fence   func() error // nil: no fence to ask
	asked   bool
	written func() // the observer's Written, or nil; with a fence only
	mem     bytes.Reader
}

func (b *fencedBody) Read(p []byte) (int, error) {
	if !b.asked && b.fence != nil {
		b.asked = true
		if err := checkFence(b.fence); err != nil {
			b.rest = nil
			return 0, &refusedBody{err: err}
		}
		if b.written != nil {
			b.written()
		}
	}
	if len(b.rest) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

func (b *fencedBody) Close() error { return nil }

// again is the body of a further attempt (GetBody): the whole body, the
// fence asked again, the observer not told twice.
func (b *fencedBody) again() (io.ReadCloser, error) {
	if b.inMemory() {
		return io.NopCloser(bytes.NewReader(b.all)), nil
	}
	return &fencedBody{rest: b.all, all: b.all, fence: b.fence}, nil
}

// inMemory reports whether the body is sent through mem: no fence, and
// small enough that holding it until the answer is read costs little (a
// large one is let go once written, and its headers' write of their own
// is little beside it).
func (b *fencedBody) inMemory() bool { return b.fence == nil && len(b.all) < earlyReleaseBytes }

// reader is what net/http reads the body from.
func (b *fencedBody) reader() io.ReadCloser {
	if b.inMemory() {
		b.mem.Reset(b.all)
		return io.NopCloser(&b.mem)
	}
	return b
}

// refuse ends the requests among frames, which the fence kept from the
// server, with its error. A request that has already ended (retired,
// answered) is left alone, so each ends once; the frames' records may
// serve other calls by now, which is why the ids are matched.
func (r *rpcCore) refuse(frames []queuedFrame, err error) {
	for _, fr := range frames {
		if fr.c != nil {
			r.resolve(fr.id, Outcome{err: err})
		}
	}
	r.log.Warn("mcp: frames not written: the write fence refused", "server", r.server, "frames", len(frames), "err", err)
}
