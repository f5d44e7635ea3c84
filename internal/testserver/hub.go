package testserver

import (
	"encoding/json"
	"sync"
)

// Hub links the servers running one Spec (Spec.Hub), so that whoever
// hosts them can reach them outside any request: a notification to every
// connected client (Notify), and a catalogue that changes (SetCatalog).
// Servers join it when they start (a Serve call, an HTTP session) and
// leave it when they stop. The zero Hub is ready to use; a child process
// has servers of its own and is no part of its parent's Hub.
type Hub struct {
	mu      sync.Mutex
	servers map[*server]struct{}
	cat     *Catalog // nil: each server's Spec's own
}

// Catalog is what a server lists and serves by name: the Spec fields of
// the same names, which SetCatalog replaces.
type Catalog struct {
	Tools                                 []*Tool
	Resources, ResourceTemplates, Prompts []json.RawMessage
}

// SetCatalog replaces the catalogue of every server of the hub, those
// running and those to come: their next tools/list, resources/list,
// resources/templates/list, prompts/list and tools/call see c. Calls in
// progress go on with the tool they found. Capabilities, told at
// initialize, do not change.
func (h *Hub) SetCatalog(c *Catalog) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cat = c
}

// Notify sends the notification to the client of every server of the hub
// and returns how many it went to: over stdio on the stream itself; over
// Streamable HTTP on the session's GET stream (kept for the client until
// it opens one); on the legacy transport's event stream; to a server
// without session (Options.Stateless over HTTP), on every
// subscriptions/listen stream open, none if there is none. params may be
// nil.
func (h *Hub) Notify(method string, params json.RawMessage) int {
	h.mu.Lock()
	servers := make([]*server, 0, len(h.servers))
	for s := range h.servers {
		servers = append(servers, s)
	}
	h.mu.Unlock()
	msg := appendNotification(nil, method, params)
	n := 0
	for _, s := range servers {
		if s.broadcast(msg) {
			n++
		}
	}
	return n
}

func (h *Hub) join(s *server) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.servers == nil {
		h.servers = make(map[*server]struct{})
	}
	h.servers[s] = struct{}{}
}

func (h *Hub) leave(s *server) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.servers, s)
}

// catalog is what s lists now: its hub's catalogue, when one was set,
// else its spec's.
func (s *server) catalog() *Catalog {
	if h := s.spec.Hub; h != nil {
		h.mu.Lock()
		c := h.cat
		h.mu.Unlock()
		if c != nil {
			return c
		}
	}
	return &s.own
}

// joinHub and leaveHub enter s into its spec's hub while it runs.
func (s *server) joinHub() {
	if h := s.spec.Hub; h != nil {
		h.join(s)
	}
}

func (s *server) leaveHub() {
	if h := s.spec.Hub; h != nil {
		h.leave(s)
	}
}

// setBroadcast sets where s sends what is not about a request: stdout,
// a session's GET stream, or nil for the listen streams only.
func (s *server) setBroadcast(o outlet) {
	s.mu.Lock()
	s.bcast = o
	s.mu.Unlock()
}

// broadcast sends msg where s sends what is not about a request, and
// reports whether it went anywhere.
func (s *server) broadcast(msg []byte) bool {
	if s.ctx == nil || s.ctx.Err() != nil {
		return false
	}
	s.mu.Lock()
	var outs []outlet
	if s.bcast != nil {
		outs = append(outs, s.bcast)
	} else {
		for _, o := range s.listeners {
			outs = append(outs, o)
		}
	}
	s.mu.Unlock()
	for _, o := range outs {
		o.send(false, msg)
	}
	return len(outs) > 0
}
