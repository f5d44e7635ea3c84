package fastserver

import (
	"crypto/rand"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/mcpactor/mcpactor/bench/internal/jsonscan"
)

// MaxHTTPBody bounds the body of a POST; a longer one is answered 413.
const MaxHTTPBody = 4 << 20

// MaxSessions bounds the sessions the HTTP handler holds at once; an
// initialize beyond them is answered 503 until one is deleted.
const MaxSessions = 10000

// keepBuffer is the largest buffer a request's scratch keeps for the next
// request.
const keepBuffer = 1 << 20

// NewHTTPHandler is the server over Streamable HTTP
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http),
// answering as Serve does (or ServeStateless, if stateless), one POST at a
// time on net/http's own goroutine: see the package doc.
func NewHTTPHandler(stateless bool) http.Handler {
	h := &httpHandler{stateless: stateless, sessions: make(map[string]struct{}), maxSessions: MaxSessions}
	h.scratch.New = func() any {
		c := &httpCall{s: server{stateless: stateless, bigN: -1}}
		c.s.out = &c.reply
		return c
	}
	return h
}

type httpHandler struct {
	stateless bool
	scratch   sync.Pool // of *httpCall

	mu          sync.Mutex
	sessions    map[string]struct{} // the live session ids
	maxSessions int                 // MaxSessions, but in tests
}

// httpCall is one request's scratch, reused by later requests once its
// answer is written.
type httpCall struct {
	s     server // its out is &reply
	reply capture
	in    []byte // the request's body
}

// capture takes the one answer to the request being served: at once, from
// the request's goroutine, or later, from a sleep's timer.
type capture struct {
	mu    sync.Mutex
	body  []byte
	got   bool
	ready chan struct{} // made when the handler waits; closed by Write
}

func (r *capture) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.got {
		r.body, r.got = b, true
		if r.ready != nil {
			close(r.ready)
		}
	}
	return len(b), nil
}

// wait returns a channel closed when the answer is there, or nil if it is
// already.
func (r *capture) wait() chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.got {
		return nil
	}
	r.ready = make(chan struct{})
	return r.ready
}

// Header values, shared and read-only.
var (
	hvJSON  = []string{"application/json"}
	hvAllow = []string{"POST, DELETE"}
)

const sessionHeader = "Mcp-Session-Id"

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A server MUST validate Origin against DNS rebinding (see the
	// transport's security warning): browsers send it, our clients do not.
	if o := r.Header["Origin"]; len(o) > 0 && !loopbackOrigin(o[0]) {
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	if v := r.Header["Mcp-Protocol-Version"]; len(v) > 0 && !knownVersion(v[0]) {
		// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header
		http.Error(w, "unsupported MCP-Protocol-Version", http.StatusBadRequest)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		// GET would open the stream of the server's own messages; a server
		// that sends none may answer 405 (the spec allows it).
		w.Header()["Allow"] = hvAllow
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// knownVersion says whether v is a protocol version the server knows. The
// session-era server knows 2026-07-28 too, so that a dual-era client's
// server/discover probe gets -32601 and falls back to initialize
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#backward-compatibility).
func knownVersion(v string) bool {
	switch v {
	case "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28":
		return true
	}
	return false
}

func (h *httpHandler) post(w http.ResponseWriter, r *http.Request) {
	c := h.scratch.Get().(*httpCall)
	var err error
	c.in, err = readBody(c.in[:0], http.MaxBytesReader(w, r.Body, MaxHTTPBody))
	if err != nil {
		h.scratch.Put(c) // nothing in flight refers to it
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
		return
	}

	// The session era: every message but initialize carries a live
	// session (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management),
	// and a dual-era client's server/discover probe comes before any.
	initialize := false
	if !h.stateless {
		if sid := r.Header[sessionHeader]; len(sid) > 0 {
			if !h.live(sid[0]) {
				h.scratch.Put(c)
				http.Error(w, "unknown session", http.StatusNotFound)
				return
			}
		} else {
			m := methodOf(c.in)
			initialize = m == "initialize"
			if !initialize && m != "server/discover" {
				h.scratch.Put(c)
				http.Error(w, "missing "+sessionHeader, http.StatusBadRequest)
				return
			}
		}
	}

	c.reply.body, c.reply.got, c.reply.ready = nil, false, nil
	switch c.s.handle(c.in) {
	case handledNone:
		h.done(c)
		w.WriteHeader(http.StatusAccepted)
		return
	case handledMalformed:
		w.Header()["Content-Type"] = hvJSON
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(c.reply.body)
		h.done(c)
		return
	}
	if ready := c.reply.wait(); ready != nil {
		select {
		case <-ready:
		case <-r.Context().Done():
			// The client went away, or the server is closing: the timer
			// still holds the scratch, which is not reused.
			return
		}
	}
	if initialize {
		sid, ok := h.newSession()
		if !ok {
			h.done(c)
			http.Error(w, "too many sessions", http.StatusServiceUnavailable)
			return
		}
		w.Header()[sessionHeader] = []string{sid}
	}
	w.Header()["Content-Type"] = hvJSON
	// A body shorter than net/http's chunking buffer gets its
	// Content-Length from net/http when the handler returns.
	if len(c.reply.body) >= 2048 {
		w.Header()["Content-Length"] = []string{strconv.Itoa(len(c.reply.body))}
	}
	_, _ = w.Write(c.reply.body)
	h.done(c)
}

// done gives a request's scratch back for the next, without the buffers
// a huge request or answer made.
func (h *httpHandler) done(c *httpCall) {
	c.reply.body = nil
	if cap(c.in) > keepBuffer {
		c.in = nil
	}
	if cap(c.s.buf) > keepBuffer {
		c.s.buf = nil
	}
	if cap(c.s.bigBody) > keepBuffer {
		c.s.bigBody, c.s.bigN = nil, -1
	}
	h.scratch.Put(c)
}

// delete ends a session.
func (h *httpHandler) delete(w http.ResponseWriter, r *http.Request) {
	if h.stateless {
		w.Header()["Allow"] = hvAllow[:1:1]
		http.Error(w, "no sessions", http.StatusMethodNotAllowed)
		return
	}
	sid := r.Header[sessionHeader]
	if len(sid) == 0 {
		http.Error(w, "missing "+sessionHeader, http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	_, ok := h.sessions[sid[0]]
	delete(h.sessions, sid[0])
	h.mu.Unlock()
	if !ok {
		http.Error(w, "unknown session", http.StatusNotFound)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *httpHandler) live(sid string) bool {
	h.mu.Lock()
	_, ok := h.sessions[sid]
	h.mu.Unlock()
	return ok
}

// newSession makes a session id, unless MaxSessions are live. The id is
// random (crypto/rand.Text: 26 characters of base32), as the spec asks of
// a session id: globally unique and cryptographically secure.
func (h *httpHandler) newSession() (string, bool) {
	sid := rand.Text()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sessions) >= h.maxSessions {
		return "", false
	}
	h.sessions[sid] = struct{}{}
	return sid, true
}

// methodOf is the message's method, as it came (unescaped: the methods
// it is compared with need no escapes).
func methodOf(msg []byte) string {
	var method []byte
	jsonscan.ScanObject(msg, 0, func(k []byte, v int) int {
		if !jsonscan.KeyIs(k, "method") || v >= len(msg) || msg[v] != '"' {
			return jsonscan.Skip
		}
		e := jsonscan.StrEnd(msg, v)
		if e > 0 {
			method = msg[v+1 : e-1]
		}
		return e
	})
	return string(method)
}

// loopbackOrigin says whether an Origin header names a loopback host.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// readBody reads r to its end after dst's contents, in dst's space where
// it fits.
func readBody(dst []byte, r io.Reader) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}
