package actors

// The messages between a client actor and its supervisor (the manager, or
// the runtime's owner): the outcome of each connection generation, and the
// supervisor's decision to start another. Plain serialisable structs, like
// every message that crosses actors without a reply channel.

// ServerReady tells a client's supervisor that a connection generation of
// server is established.
type ServerReady struct {
	Server string
	// Client is the client the news is about: a supervisor that replaced
	// the server under the same name tells the old one's late news from
	// the new one's.
	Client          *Client
	Generation      uint64
	ProtocolVersion string
}

// ServerDown tells a client's supervisor that a connection generation of
// server failed to connect or ended without being asked to (the process
// died, the transport failed). Err says why.
type ServerDown struct {
	Server     string
	Client     *Client // as in ServerReady
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
