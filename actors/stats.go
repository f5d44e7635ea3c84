package actors

import "github.com/mcpactor/mcpactor/transport"

// Stats count what a client dropped or refused, over all its connections,
// and the user callbacks that misbehaved. Nothing is dropped silently:
// each drop is counted here, logged, and reported as the
// mcpactor.transport.frames.dropped metric (docs/telemetry.md). The root
// package re-exports it as mcpactor.Stats; Options and ServerConfig below
// are the root package's.
type Stats struct {
	Malformed       int64 // lines that were not JSON, or JSON but not JSON-RPC
	Oversized       int64 // messages over MaxFrameSize, discarded
	UnknownIDs      int64 // responses to ids never issued (or to id null)
	LateResponses   int64 // responses to requests already ended by timeout or cancellation
	DroppedProgress int64 // progress nobody waited for, or a slow OnProgress could not take
	RefusedBatches  int64 // JSON-RPC batches from a server that did not negotiate 2025-03-26
	InboundRequests int64 // server-to-client requests received
	// InvalidRequests counts server requests whose id was null, an object,
	// an array, a boolean or a fraction, answered with Invalid Request.
	InvalidRequests int64
	// BadResponses counts answers that could not be used (both result and
	// error, nested too deeply...); their request failed at once.
	BadResponses int64
	// DroppedStderrLines counts stderr lines a slow Options.StderrLine
	// callback could not take, and those still queued for it when a Close
	// ran out of time.
	DroppedStderrLines int64
	// BusyRetries counts requests sent again after a 429 or 503 with
	// Retry-After (ServerConfig.BusyRetries).
	BusyRetries int64
	// DroppedWrites counts requests whose call ended before they were
	// written; nothing was sent for them.
	DroppedWrites int64
	// WriteOverflow counts the runtime's own small messages
	// (cancellations, error replies) dropped behind a stuck write.
	WriteOverflow int64
	// DroppedNotifications counts notifications dropped because
	// Handlers.Notification fell behind (Options.NotificationQueue).
	DroppedNotifications int64
	// AbandonedCallbacks counts handler and subscriber calls still running
	// when Close returned.
	AbandonedCallbacks int64
	// PanickedCallbacks counts calls of user code (Handlers, their
	// Notification, Options.StderrLine) that panicked: each panic was
	// recovered and logged with its stack, a request handler's answered
	// with an internal error, and the client went on.
	PanickedCallbacks int64
}

// Stats returns the counts so far: the transports' tallies, indexed by
// transport.Count, given their names, and the callbacks' own.
func (c *Client) Stats() Stats {
	t := c.stats.Snapshot()
	return Stats{
		Malformed:            t[transport.Malformed],
		Oversized:            t[transport.Oversized],
		UnknownIDs:           t[transport.UnknownIDs],
		LateResponses:        t[transport.LateResponses],
		DroppedProgress:      t[transport.DroppedProgress],
		RefusedBatches:       t[transport.RefusedBatches],
		InboundRequests:      t[transport.InboundRequests],
		InvalidRequests:      t[transport.InvalidRequests],
		BadResponses:         t[transport.BadResponses],
		DroppedStderrLines:   t[transport.DroppedStderrLines],
		BusyRetries:          t[transport.BusyRetries],
		DroppedWrites:        t[transport.DroppedWrites],
		WriteOverflow:        t[transport.WriteOverflow],
		DroppedNotifications: c.droppedNotes.Load(),
		AbandonedCallbacks:   c.abandoned.Load(),
		PanickedCallbacks:    c.panicked.Load(),
	}
}
