package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Paths the HTTP server answers on.
const (
	// HTTPPath is the Streamable HTTP endpoint: POST, GET and DELETE
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http).
	HTTPPath = "/mcp"
	// SSEPath is the event stream of the legacy HTTP+SSE transport
	// (https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse).
	// A POST there is answered 405, so a client configured with this URL
	// finds the legacy transport by the fallback the specification gives.
	SSEPath = "/sse"
	// MessagesPath is where the legacy transport's endpoint event sends
	// the client's messages, with the session in the sessionId query.
	MessagesPath = "/messages"
)

// HTTPHandler serves the test server over HTTP: Streamable HTTP at
// HTTPPath and the legacy HTTP+SSE transport at SSEPath. Each session (an
// initialize POST, or a legacy GET) is a server of its own, with the same
// tools and request handling as Serve; what a request's handling sends
// goes on that request's stream (http_stream.go). Options' HTTP fields
// shape the answers and inject the faults.
//
// Use it with net/http/httptest (httptest.NewServer(h)), or run it as a
// child process with Options.HTTPAddr. Close it before closing the
// httptest server: streams and requests that never end (NeverAnswer,
// HTTPIgnoreBodyOver) hold their handler until then.
type HTTPHandler struct {
	opts     Options
	spec     *Spec
	errOut   *errWriter
	exitHook func(int) // nil in-process: an exit ends the session only

	ctx    context.Context // ends with Close
	cancel context.CancelCauseFunc

	sessionsWG sync.WaitGroup // session watchers
	handlers   sync.WaitGroup // ServeHTTP calls in progress
	active     atomic.Int64

	failedCalls  atomic.Int64 // tools/call POSTs counted by HTTPFailCalls
	droppedCalls atomic.Int64 // tools/call streams counted by HTTPDropStreams

	mu        sync.Mutex
	closed    bool
	stateless *session // serves the requests of the 2026-07-28 revision, which have none
	sessions  map[string]*session
	exchanges []HTTPExchange
}

// maxExchanges bounds the exchanges an HTTPHandler remembers.
const maxExchanges = 1 << 16

// HTTPExchange is one HTTP request the handler received, for tests to
// assert on what a client sent (HTTPHandler.Exchanges).
type HTTPExchange struct {
	Method      string // GET, POST, DELETE...
	Path        string
	SessionID   string // the Mcp-Session-Id header (legacy: the sessionId query)
	LastEventID string
	RPCMethod   string // a POST's JSON-RPC method; "" for a response or an unread body
	RPCID       string // a POST's JSON-RPC id, as JSON; "" for a notification
	Status      int    // the status answered; 0 if none was
	Start       time.Time
	End         time.Time // zero while the handler runs
}

// NewHTTPHandler returns a handler serving with opts (HTTPAddr is
// ignored), writing diagnostics to errOut (nil discards). The crash tool
// and ExitAfterRequests end the session they happen in, aborting its
// connections, as the exit of a process would.
func NewHTTPHandler(opts Options, errOut io.Writer) *HTTPHandler {
	return newHTTPHandler(opts, nil, errOut, nil)
}

func newHTTPHandler(opts Options, spec *Spec, errOut io.Writer, exitHook func(int)) *HTTPHandler {
	if spec == nil {
		spec = DefaultSpec(opts)
	}
	if errOut == nil {
		errOut = io.Discard
	}
	h := &HTTPHandler{opts: opts, spec: spec, errOut: &errWriter{w: errOut}, exitHook: exitHook, sessions: make(map[string]*session)}
	h.ctx, h.cancel = context.WithCancelCause(context.Background())
	return h
}

// Close ends every session (their requests are abandoned, their
// connections aborted) and waits for the handler's goroutines and every
// ServeHTTP call to return. Requests arriving later are answered 503.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel(errHandlerClosed)
	h.sessionsWG.Wait()
	h.handlers.Wait()
}

// Exchanges returns the HTTP requests received so far, in arrival order.
func (h *HTTPHandler) Exchanges() []HTTPExchange {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.exchanges)
}

// Active is the number of HTTP requests being handled right now: a client
// that aborts a request it gave up on leaves none behind (except those of
// HTTPIgnoreBodyOver, whose handler cannot see the client leave).
func (h *HTTPHandler) Active() int { return int(h.active.Load()) }

// Sessions returns the ids of the sessions alive now.
func (h *HTTPHandler) Sessions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	ids := make([]string, 0, len(h.sessions))
	for id := range h.sessions {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// EndSessions ends every session now, as a server that forgets its
// sessions does: requests carrying their ids are answered 404 from then on.
func (h *HTTPHandler) EndSessions() {
	h.mu.Lock()
	all := make([]*session, 0, len(h.sessions))
	for _, s := range h.sessions {
		all = append(all, s)
	}
	h.mu.Unlock()
	for _, s := range all {
		s.end(errSessionExpired)
	}
}

// ServeHTTP implements http.Handler.
func (h *HTTPHandler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		http.Error(rw, "testserver closed", http.StatusServiceUnavailable)
		return
	}
	h.handlers.Add(1)
	h.active.Add(1)
	rec := -1
	if len(h.exchanges) < maxExchanges {
		rec = len(h.exchanges)
		sid := r.Header.Get("Mcp-Session-Id")
		if r.URL.Path == MessagesPath {
			sid = r.URL.Query().Get("sessionId")
		}
		h.exchanges = append(h.exchanges, HTTPExchange{Method: r.Method, Path: r.URL.Path, SessionID: sid,
			LastEventID: r.Header.Get("Last-Event-ID"), Start: time.Now()})
	}
	h.mu.Unlock()
	w := &statusWriter{ResponseWriter: rw, h: h, rec: rec}
	defer func() {
		h.note(rec, func(e *HTTPExchange) { e.End = time.Now() })
		h.active.Add(-1)
		h.handlers.Done()
	}()

	switch {
	case r.URL.Path == HTTPPath && r.Method == http.MethodPost:
		h.post(w, r)
	case r.URL.Path == HTTPPath && r.Method == http.MethodGet:
		h.get(w, r)
	case r.URL.Path == HTTPPath && r.Method == http.MethodDelete:
		h.delete(w, r)
	case r.URL.Path == HTTPPath:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, codeServerError, "Method not allowed")
	case r.URL.Path == SSEPath && r.Method == http.MethodGet:
		h.legacyStream(w, r)
	case r.URL.Path == MessagesPath && r.Method == http.MethodPost:
		h.legacyPost(w, r)
	case r.URL.Path == SSEPath || r.URL.Path == MessagesPath:
		httpError(w, http.StatusMethodNotAllowed, codeServerError, "Method not allowed")
	default:
		http.NotFound(w, r)
	}
}

// note updates the record of exchange rec.
func (h *HTTPHandler) note(rec int, f func(*HTTPExchange)) {
	if rec < 0 {
		return
	}
	h.mu.Lock()
	f(&h.exchanges[rec])
	h.mu.Unlock()
}

// statusWriter records the status a handler answers with.
type statusWriter struct {
	http.ResponseWriter
	h     *HTTPHandler
	rec   int
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		w.h.note(w.rec, func(e *HTTPExchange) { e.Status = code })
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the flusher underneath.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// post handles a POST to the Streamable HTTP endpoint: one JSON-RPC
// message (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
func (h *HTTPHandler) post(w *statusWriter, r *http.Request) {
	if !accepts(r, "application/json") || !accepts(r, "text/event-stream") {
		httpError(w, http.StatusNotAcceptable, codeServerError, "Not Acceptable: Accept must list application/json and text/event-stream")
		return
	}
	if !isMediaType(r.Header.Get("Content-Type"), "application/json") {
		httpError(w, http.StatusUnsupportedMediaType, codeServerError, "Unsupported Media Type: Content-Type must be application/json")
		return
	}
	if !h.originAllowed(w, r) {
		return
	}
	if n := h.opts.HTTPIgnoreBodyOver; n > 0 && r.ContentLength > int64(n) {
		h.ignoreBody(r)
		return
	}
	m, ok := h.readMessage(w, r)
	if !ok {
		return
	}
	var s *session
	version := r.Header.Get("Mcp-Protocol-Version")
	if m.kind() == kindRequest && m.Method == "initialize" {
		if s = h.newSession(false); s == nil {
			httpError(w, http.StatusServiceUnavailable, codeServerError, "testserver closed")
			return
		}
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		version = p.ProtocolVersion
	} else if h.opts.Stateless && r.Header.Get("Mcp-Session-Id") == "" {
		// The 2026-07-28 revision has no session: every request stands
		// alone (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports).
		if s = h.statelessSession(); s == nil {
			httpError(w, http.StatusServiceUnavailable, codeServerError, "testserver closed")
			return
		}
	} else if s = h.sessionOf(w, r); s == nil {
		return
	}
	s.srv.observe(m, r.Header.Clone())
	if m.kind() != kindRequest {
		// A notification or a response: taken, nothing to answer.
		if m.kind() == kindNotification && !h.delay(r, h.opts.HTTPNotifyDelay) {
			return
		}
		s.srv.handleMessage(m, s.standalone)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.request(w, r, s, m, version)
}

// readMessage reads a POST body holding one JSON-RPC message; a body that
// is not one is answered 400 with the JSON-RPC error stdio would write.
func (h *HTTPHandler) readMessage(w *statusWriter, r *http.Request) (*message, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxLineBytes+1))
	if err != nil {
		return nil, false // the client has gone
	}
	if len(body) > MaxLineBytes {
		httpError(w, http.StatusRequestEntityTooLarge, codeInvalidRequest, "Request body too large")
		return nil, false
	}
	body = bytes.TrimSpace(body)
	m := new(message)
	if !parseMessage(body, m) {
		e := decodeError(body)
		httpError(w, http.StatusBadRequest, e.Code, e.Message)
		return nil, false
	}
	h.note(w.rec, func(e *HTTPExchange) { e.RPCMethod, e.RPCID = m.Method, string(m.ID) })
	if m.kind() == kindInvalid {
		e := invalidRequestError(m)
		httpError(w, http.StatusBadRequest, e.Code, e.Message)
		return nil, false
	}
	return m, true
}

// request answers one JSON-RPC request, with JSON or an event stream.
func (h *HTTPHandler) request(w *statusWriter, r *http.Request, s *session, m *message, version string) {
	isCall := m.Method == "tools/call"
	if isCall && h.callFault(w, r, m) {
		return
	}
	kind := streamJSON
	if h.opts.HTTPStream || m.Method == "subscriptions/listen" {
		// A listen request's answer is its stream of notifications.
		kind = streamSSE
	}
	st := s.newStream(kind)
	if isCall && h.opts.HTTPExpireAfter > 0 && s.calls.Add(1) >= int64(h.opts.HTTPExpireAfter) {
		st.onAnswer = func() { s.end(errSessionExpired) }
	}
	if m.Method == "initialize" {
		w.Header().Set("Mcp-Session-Id", s.id)
	}
	if s.stateless {
		defer h.closedEarly(r, s, st, m)
	}
	if kind == streamJSON {
		defer s.dropStream(st)
		s.srv.startRequest(m, st)
		h.answerJSON(w, r, st)
		return
	}
	drop := isCall && h.droppedCalls.Add(1) <= int64(h.opts.HTTPDropStreams)
	ids := !h.opts.HTTPNoEventIDs
	prime := ""
	if ids && version >= "2025-11-25" {
		prime = st.eventID(0)
	}
	st.attach()
	defer st.detach()
	h.startEventStream(w, prime)
	s.srv.startRequest(m, st)
	h.pump(w, r, st, 0, pumpSpec{ids: ids, drop: drop})
}

// closedEarly treats a stateless request whose client went away before
// its answer as cancelled: its handling stops, and the observer hears of
// it. A session-era client that disconnects has not cancelled anything
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
func (h *HTTPHandler) closedEarly(r *http.Request, s *session, st *stream, m *message) {
	if r.Context().Err() == nil || st.isAnswered() {
		return
	}
	key := idKey(m.ID)
	s.srv.mu.Lock()
	entry := s.srv.inflight[key]
	s.srv.mu.Unlock()
	if entry != nil {
		entry.cancel()
	}
	if s.srv.spec.Observe != nil {
		s.srv.spec.Observe(Received{Method: m.Method, ID: clone(m.ID), Header: r.Header.Clone(), StreamClosed: true})
	}
}

// answerJSON waits for the response and writes it as the body. A session
// that ended first (DELETE, expiry) makes it a 404.
func (h *HTTPHandler) answerJSON(w *statusWriter, r *http.Request, st *stream) {
	for {
		evs, ended, cause := st.after(0)
		for _, ev := range evs {
			if ev.response {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write(ev.data)
				return
			}
		}
		if ended {
			abortIf(cause)
			h.sessionNotFound(w)
			return
		}
		if !await(h, r, st.wake) {
			return
		}
	}
}

// get opens the session's standalone stream, or resumes a stream with
// Last-Event-ID
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server).
// HTTPGetStatus replaces the standalone stream, not resumption.
func (h *HTTPHandler) get(w *statusWriter, r *http.Request) {
	if !accepts(r, "text/event-stream") {
		httpError(w, http.StatusNotAcceptable, codeServerError, "Not Acceptable: Accept must list text/event-stream")
		return
	}
	if !h.originAllowed(w, r) {
		return
	}
	s := h.sessionOf(w, r)
	if s == nil {
		return
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		h.resume(w, r, s, last)
		return
	}
	if status := h.opts.HTTPGetStatus; status != 0 {
		h.getFault(w, r, status)
		return
	}
	g := s.standalone
	if !g.attach() {
		httpError(w, http.StatusConflict, codeServerError, "Conflict: Only one SSE stream is allowed per session")
		return
	}
	defer g.detach()
	cursor := g.unsent()
	prime := ""
	if !h.opts.HTTPNoEventIDs && r.Header.Get("Mcp-Protocol-Version") >= "2025-11-25" {
		prime = g.eventID(cursor)
	}
	h.startEventStream(w, prime)
	h.pump(w, r, g, cursor, pumpSpec{ids: !h.opts.HTTPNoEventIDs, limit: h.opts.HTTPGetCloseAfter})
}

// resume replays a stream after the event last and goes on with it live.
func (h *HTTPHandler) resume(w *statusWriter, r *http.Request, s *session, last string) {
	st, seq, ok := s.findStream(last)
	if !ok {
		httpError(w, http.StatusBadRequest, codeServerError, "Bad Request: unknown Last-Event-ID "+last)
		return
	}
	if !st.attach() {
		httpError(w, http.StatusConflict, codeServerError, "Conflict: the stream is being sent already")
		return
	}
	defer st.detach()
	h.startEventStream(w, "")
	limit := 0
	if st == s.standalone {
		limit = h.opts.HTTPGetCloseAfter
	}
	h.pump(w, r, st, seq, pumpSpec{ids: true, limit: limit})
}

// delete ends the session
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
func (h *HTTPHandler) delete(w *statusWriter, r *http.Request) {
	if !h.originAllowed(w, r) {
		return
	}
	s := h.sessionOf(w, r)
	if s == nil {
		return
	}
	s.end(errSessionDeleted)
	w.WriteHeader(http.StatusOK)
}

// sessionOf finds the session a request names, answering 400 when it
// names none and 404 when it is unknown or over; and 400 for a protocol
// version header this server does not speak.
func (h *HTTPHandler) sessionOf(w *statusWriter, r *http.Request) *session {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		httpError(w, http.StatusBadRequest, codeServerError, "Bad Request: Mcp-Session-Id header is required")
		return nil
	}
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s == nil || s.legacy {
		h.sessionNotFound(w)
		return nil
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(supportedVersions, v) {
		httpError(w, http.StatusBadRequest, codeServerError, "Bad Request: Unsupported protocol version: "+v)
		return nil
	}
	return s
}

// originAllowed refuses, with 403, a request whose Origin is not the
// server's own (DNS rebinding; 2025-11-25 basic/transports, "Security
// Warning"). Clients that are not browsers send no Origin.
func (h *HTTPHandler) originAllowed(w *statusWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || strings.TrimPrefix(strings.TrimPrefix(origin, "http://"), "https://") == r.Host {
		return true
	}
	httpError(w, http.StatusForbidden, codeServerError, "Forbidden: Origin "+origin+" is not allowed")
	return false
}

// sessionNotFound refuses a session id the server does not know: 404, as
// the specification has it, or 400 as the reference TypeScript server
// answers (HTTPSessionRefusal400).
func (h *HTTPHandler) sessionNotFound(w http.ResponseWriter) {
	if h.opts.HTTPSessionRefusal400 {
		httpError(w, http.StatusBadRequest, codeServerError, "Bad Request: No valid session ID provided")
		return
	}
	httpError(w, http.StatusNotFound, -32001, "Session not found")
}

// httpError answers status with a JSON-RPC error body without id, as the
// TypeScript SDK's server does.
func httpError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(appendErrorResponse(nil, nil, &rpcError{Code: code, Message: msg}))
}

// accepts reports whether the Accept header lists mediaType (or a
// wildcard covering it).
func accepts(r *http.Request, mediaType string) bool {
	major, _, _ := strings.Cut(mediaType, "/")
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err == nil && (mt == mediaType || mt == "*/*" || mt == major+"/*") {
				return true
			}
		}
	}
	return false
}

// isMediaType compares a Content-Type's media type, parameters aside.
func isMediaType(contentType, want string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == want
}
