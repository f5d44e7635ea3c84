package messages

import "encoding/json"

// The messages below cross actor boundaries without reply channels or
// contexts, so they stay plain serialisable structs (architecture.md, "Scale
// beyond one machine"). The hot-path messages that carry reply channels are
// private to the transport package.

// InboundRequest is a server-to-client request (ping, roots/list,
// sampling/createMessage, elicitation/create) that a transport hands to its
// owner. The owner answers with the transport's Respond.
type InboundRequest struct {
	ID     ID
	Method string
	Params json.RawMessage
	// Generation is the connection generation it arrived on: the
	// answer must go back on that connection, and only while it lives.
	Generation uint64
}

// InboundNotification is a server notification other than progress and
// cancellation of our own requests, which the transport routes itself.
type InboundNotification struct {
	Method string
	Params json.RawMessage
	// Generation is the connection generation it arrived on.
	Generation uint64
}

// TransportClosed tells a transport's owner that it has stopped, and why.
// Every request that was pending has already been failed with Err.
type TransportClosed struct {
	Err        error  // a *TransportClosedError
	Generation uint64 // the connection generation that ended
	// Transport identifies the transport that ended (transport.Conn.ID):
	// a generation may run two, one after the other, when a Streamable
	// HTTP attempt falls back to the legacy HTTP+SSE transport.
	Transport uint64
}

// SessionExpired tells an HTTP transport's owner that the server has ended
// the session (a 404 to a request that carried its id): the owner starts
// a new connection generation with a fresh initialize.
type SessionExpired struct {
	Generation uint64
}

// ServerReady tells a client's supervisor that a connection generation of
// server is established.
type ServerReady struct {
	Server          string
	Generation      uint64
	ProtocolVersion string
}

// ServerDown tells a client's supervisor that a connection generation of
// server failed to connect or ended without being asked to (the process
// died, the transport failed). Err says why.
type ServerDown struct {
	Server     string
	Generation uint64
	Err        error
	// Connecting is true when the generation never got ready.
	Connecting bool
}

// RestartServer asks a client actor for a new connection generation. With
// Hold, callers that arrive before it is ready wait for it (bounded by
// their context and the connect timeout) instead of failing at once; a
// supervisor sends Hold first, at the start of a backoff, and Now when the
// backoff is over.
type RestartServer struct {
	Hold bool // publish the next generation now; connect at the next RestartServer
	Now  bool // connect now
}
