package mcptest

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// maxLog bounds the messages a Server remembers: a load test must not
// grow it without end. Later messages are not recorded.
const maxLog = 1 << 16

// Message is one message a Server received.
type Message struct {
	// Method is the request's or notification's method; "" for a
	// response (to a request the server sent, through Call.Ask).
	Method string
	// ID is the request's or response's id, as JSON; nil for a
	// notification.
	ID json.RawMessage
	// Params are the params as they arrived (a response's result, or its
	// error object).
	Params json.RawMessage
	// Header is the HTTP request's header (Authorization,
	// Mcp-Session-Id, Mcp-Protocol-Version, ...) for a message POSTed
	// over HTTP; nil otherwise.
	Header http.Header
}

// ToolCall is a tools/call a Server received.
type ToolCall struct {
	ID        json.RawMessage
	Name      string
	Arguments json.RawMessage
	// Meta is params._meta: the progress token, the trace context.
	Meta json.RawMessage
	// InputResponses are the client's answers in a 2026-07-28 retry of a
	// call that asked for input (Server.Stateless); nil in a first call.
	InputResponses json.RawMessage
	Header         http.Header
}

// Cancellation is a request a client cancelled: by
// notifications/cancelled
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation),
// or, over Streamable HTTP in the 2026-07-28 revision, which has no such
// notification there, by closing the request's stream before its answer.
type Cancellation struct {
	// RequestID is the id of the request cancelled, as JSON.
	RequestID json.RawMessage
	// Reason is the notification's reason; "" for a closed stream.
	Reason string
	// StreamClosed marks a cancellation by closing the request's stream.
	StreamClosed bool
}

// record is the engine's Observe hook.
func (s *Server) record(r testserver.Received) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.StreamClosed {
		if len(s.closed) < maxLog {
			s.closed = append(s.closed, Cancellation{RequestID: r.ID, StreamClosed: true})
		}
		return
	}
	if len(s.log) < maxLog {
		s.log = append(s.log, Message{Method: r.Method, ID: r.ID, Params: r.Params, Header: r.Header})
	}
}

// Received returns the messages the server has received so far in this
// process, in arrival order (a Stdio child records in its own process,
// not here).
func (s *Server) Received() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Methods returns the methods of the requests and notifications received
// so far, in arrival order: the handshake's among them.
func (s *Server) Methods() []string {
	var out []string
	for _, m := range s.Received() {
		if m.Method != "" {
			out = append(out, m.Method)
		}
	}
	return out
}

// Calls returns the tools/call requests received so far, in arrival
// order, whether they were answered or not.
func (s *Server) Calls() []ToolCall {
	var out []ToolCall
	for _, m := range s.Received() {
		if m.Method != "tools/call" {
			continue
		}
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Meta      json.RawMessage `json:"_meta"`
			Responses json.RawMessage `json:"inputResponses"`
		}
		_ = json.Unmarshal(m.Params, &p)
		out = append(out, ToolCall{ID: m.ID, Name: p.Name, Arguments: p.Arguments, Meta: p.Meta, InputResponses: p.Responses, Header: m.Header})
	}
	return out
}

// Cancellations returns the cancellations received so far: the
// notifications/cancelled in arrival order, then the streams closed
// early.
func (s *Server) Cancellations() []Cancellation {
	s.mu.Lock()
	closed := slices.Clone(s.closed)
	s.mu.Unlock()
	var out []Cancellation
	for _, m := range s.Received() {
		if m.Method != "notifications/cancelled" {
			continue
		}
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		}
		_ = json.Unmarshal(m.Params, &p)
		out = append(out, Cancellation{RequestID: p.RequestID, Reason: p.Reason})
	}
	return append(out, closed...)
}
