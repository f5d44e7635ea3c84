package testserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// session is one MCP session: a server of its own (its in-flight table,
// its pending server requests, its tools/call count) and its streams.
type session struct {
	id         string
	h          *HTTPHandler
	srv        *server
	legacy     bool
	stateless  bool // serves the requests without session of Options.Stateless
	standalone *stream
	calls      atomic.Int64 // tools/call POSTs, for HTTPExpireAfter

	mu      sync.Mutex
	ended   bool
	streams map[string]*stream // by id: request streams, for resumption and ending
	order   []string           // stream ids oldest first, to forget the oldest
	nextID  int64
}

// newSession starts a session; nil if the handler is closed.
func (h *HTTPHandler) newSession(legacy bool) *session {
	var raw [16]byte
	_, _ = rand.Read(raw[:])
	s := &session{id: hex.EncodeToString(raw[:]), h: h, legacy: legacy, streams: make(map[string]*stream)}
	s.standalone = newStream(s, "g", streamStandalone)
	s.srv = newServer(h.opts, h.spec, nil, h.errOut, h.exitHook)
	s.srv.ctx, s.srv.stop = context.WithCancelCause(h.ctx)
	s.srv.bcast = s.standalone

	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		s.srv.stop(errHandlerClosed)
		return nil
	}
	h.sessions[s.id] = s
	h.sessionsWG.Add(1)
	h.mu.Unlock()
	s.srv.joinHub()
	go s.watch()
	return s
}

// statelessSession returns the server that answers requests without a
// session (Options.Stateless), started on first use and again after it
// ended (a crash, HTTPExpireAfter); nil if the handler is closed. It is
// not listed among the sessions: no request names it.
func (h *HTTPHandler) statelessSession() *session {
	h.mu.Lock()
	s := h.stateless
	h.mu.Unlock()
	if s != nil && s.srv.ctx.Err() == nil {
		return s
	}
	if s = h.newSession(false); s == nil {
		return nil
	}
	h.forget(s)
	s.stateless = true
	s.srv.setBroadcast(nil) // a stateless client hears only on its listen streams
	h.mu.Lock()
	defer h.mu.Unlock()
	if cur := h.stateless; cur != nil && cur.srv.ctx.Err() == nil {
		s.end(errSessionDeleted) // another request started one first
		return cur
	}
	h.stateless = s
	return s
}

// watch waits for the session's server to stop (DELETE, expiry, an exit,
// Close), then ends its streams and waits for its goroutines.
func (s *session) watch() {
	defer s.h.sessionsWG.Done()
	<-s.srv.ctx.Done()
	s.srv.leaveHub()
	cause := context.Cause(s.srv.ctx)
	s.h.forget(s)
	s.mu.Lock()
	s.ended = true
	streams := make([]*stream, 0, len(s.streams))
	for _, st := range s.streams {
		streams = append(streams, st)
	}
	s.mu.Unlock()
	s.standalone.end(cause)
	for _, st := range streams {
		st.end(cause)
	}
	s.srv.out.drop()
	s.srv.wg.Wait()
}

// end ends the session with cause: its id is unknown from now on.
func (s *session) end(cause error) {
	s.h.forget(s)
	s.srv.stop(cause)
}

func (h *HTTPHandler) forget(s *session) {
	h.mu.Lock()
	if h.sessions[s.id] == s {
		delete(h.sessions, s.id)
	}
	h.mu.Unlock()
}

// newStream makes a request stream of the session. It is born ended if
// the session is.
func (s *session) newStream(kind streamKind) *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	st := newStream(s, "s"+strconv.FormatInt(s.nextID, 10), kind)
	if s.ended {
		st.ended, st.cause = true, context.Cause(s.srv.ctx)
		return st
	}
	s.streams[st.id] = st
	s.order = append(s.order, st.id)
	if len(s.order) > maxStreams {
		delete(s.streams, s.order[0])
		s.order = s.order[1:]
	}
	return st
}

// dropStream forgets a stream that nobody can resume (a JSON answer).
func (s *session) dropStream(st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.streams, st.id)
	if i := slices.Index(s.order, st.id); i >= 0 {
		s.order = slices.Delete(s.order, i, i+1)
	}
}

// findStream returns the stream an SSE id belongs to, and the seq after
// which to resume it.
func (s *session) findStream(lastEventID string) (*stream, int64, bool) {
	id, seq, ok := parseEventID(lastEventID)
	if !ok {
		return nil, 0, false
	}
	if id == s.standalone.id {
		return s.standalone, seq, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.streams[id]
	return st, seq, ok
}
