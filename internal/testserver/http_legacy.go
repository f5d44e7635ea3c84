package testserver

import (
	"net"
	"net/http"
)

// The legacy HTTP+SSE transport of protocol 2024-11-05
// (https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse):
// a GET on SSEPath opens the session's one event stream, whose first event,
// "endpoint", names the URL to POST messages to; everything the server
// sends (answers, its requests, notifications) arrives as "message" events
// on that stream, and the POSTs are answered 202. The session lives as long
// as the stream.

// legacyStream serves the event stream of a new legacy session.
func (h *HTTPHandler) legacyStream(w *statusWriter, r *http.Request) {
	if !h.originAllowed(w, r) {
		return
	}
	s := h.newSession(true)
	if s == nil {
		httpError(w, http.StatusServiceUnavailable, codeServerError, "testserver closed")
		return
	}
	defer s.end(errLegacyGone)
	h.note(w.rec, func(e *HTTPExchange) { e.SessionID = s.id })
	endpoint := MessagesPath + "?sessionId=" + s.id
	if h.opts.HTTPLegacyOtherOrigin {
		endpoint = otherOrigin(r) + endpoint
	}
	g := s.standalone
	g.attach()
	defer g.detach()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if writeEvent(w, "", "endpoint", []byte(endpoint)) != nil {
		return
	}
	h.pump(w, r, g, 0, pumpSpec{eventType: "message"})
}

// legacyPost takes one message for a legacy session: 202, and whatever it
// causes goes on the session's stream.
func (h *HTTPHandler) legacyPost(w *statusWriter, r *http.Request) {
	if !h.originAllowed(w, r) {
		return
	}
	h.mu.Lock()
	s := h.sessions[r.URL.Query().Get("sessionId")]
	h.mu.Unlock()
	if s == nil || !s.legacy {
		h.sessionNotFound(w)
		return
	}
	m, ok := h.readMessage(w, r)
	if !ok {
		return
	}
	s.srv.observe(m, r.Header.Clone())
	s.srv.handleMessage(m, s.standalone)
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte("Accepted"))
}

// otherOrigin is the origin the HTTPLegacyOtherOrigin fault names: the
// same port under another host name, reachable but not the stream's
// origin, so that a client that follows it is caught doing so.
func otherOrigin(r *http.Request) string {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, "80"
	}
	other := "127.0.0.1"
	if host == "127.0.0.1" {
		other = "localhost"
	}
	return "http://" + net.JoinHostPort(other, port)
}
