package transport

import (
	"encoding/json"

	"github.com/mcpactor/mcpactor/messages"
)

// The messages a transport actor sends its owner (the client actor). They
// cross actor boundaries without reply channels or contexts, so they stay
// plain serialisable structs (docs/architecture.md, "Connection
// generations"); the hot-path messages that carry reply channels are
// private to this package.

// InboundRequest is a server-to-client request (ping, roots/list,
// sampling/createMessage, elicitation/create) that a transport hands to its
// owner. The owner answers with the Conn's Respond.
type InboundRequest struct {
	ID     messages.ID
	Method string
	Params json.RawMessage
	// Generation is the connection generation it arrived on: the
	// answer must go back on that connection, and only while it lives.
	Generation uint64
	// HTTPVersion is the HTTP version of the response it came on ("1.1",
	// "2"): telemetry's network.protocol.version; "" over stdio.
	HTTPVersion string
}

// InboundNotification is a server notification other than progress and
// cancellation of our own requests, which the transport routes itself.
type InboundNotification struct {
	Method string
	Params json.RawMessage
	// Generation is the connection generation it arrived on.
	Generation uint64
	// HTTPVersion is as InboundRequest's.
	HTTPVersion string
}

// TransportClosed tells a transport's owner that it has stopped, and why.
// Every request that was pending has already been failed with Err.
type TransportClosed struct {
	Err        error  // an ErrTransportClosed *callerr.Error
	Generation uint64 // the connection generation that ended
	// Transport identifies the transport that ended (Conn.ID): a
	// generation may run two, one after the other, when a Streamable HTTP
	// attempt falls back to the legacy HTTP+SSE transport.
	Transport uint64
}

// SessionExpired tells an HTTP transport's owner that the server has ended
// the session (a 404, or a 4xx naming the session, to a request that
// carried its id): the owner starts a new connection generation with a
// fresh initialize.
type SessionExpired struct {
	Generation uint64
}
