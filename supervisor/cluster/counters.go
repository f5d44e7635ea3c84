package cluster

import "sync/atomic"

// Counters are what a member refused or contained since it started: each
// is an input from outside (another process on the network, a peer, a
// user callback) that the member survived without acting on it. A
// non-zero count is worth an alert; the member's Logger has the details.
type Counters struct {
	// MalformedMessages counts remote messages refused before protoactor
	// saw them (a MessageBatch whose indices, type ids, serializer ids or
	// type names do not hold, or a target on another address); each
	// closed its stream.
	MalformedMessages uint64
	// StreamPanics counts panics recovered at a remote stream's boundary;
	// each closed its stream.
	StreamPanics uint64
	// RefusedResponses counts responses (and progress notifications)
	// to this member's requests that did not name the member the
	// request was sent to or did not carry the request's token (forged,
	// or misrouted); each was dropped and its call kept waiting for the
	// real one.
	RefusedResponses uint64
	// RefusedRequests counts requests not served because their reply
	// address is not the inbox of the member they name, as registered
	// in etcd: no reply was sent.
	RefusedRequests uint64
	// CallbackPanics counts panics of user callbacks (Config.ServerFor)
	// recovered; each failed its activation with a *CallbackPanicError.
	CallbackPanics uint64
	// Backlogged counts messages to other members not sent because the
	// member's backlog was at Config.MaxOutboundBytes: a request failed
	// with *BackloggedError, a reply was dropped.
	Backlogged uint64
	// StalledPeers counts evictions of a member's connections whose
	// backlog made no progress for Config.OutboundStallTimeout (a
	// handshake that never completed, a peer that does not read); each
	// dropped what was queued for it.
	StalledPeers uint64
	// DroppedProgress counts progress notifications of this member's
	// calls to other members that were not handed to the call's
	// OnProgress: the oldest beyond a call's queue bound (1 MiB of
	// params), those that arrived after the call's result (or after its
	// caller gave up), and any that did not decode. The owner's
	// notifications refused by its outbound bound are counted in its
	// Backlogged instead.
	DroppedProgress uint64
}

// counters are a member's Counters as they are kept.
type counters struct {
	malformed, streamPanics, refusedResponses, refusedRequests, callbackPanics atomic.Uint64
	backlogged, stalledPeers, droppedProgress                                  atomic.Uint64
}

func (c *counters) snapshot() Counters {
	return Counters{
		MalformedMessages: c.malformed.Load(),
		StreamPanics:      c.streamPanics.Load(),
		RefusedResponses:  c.refusedResponses.Load(),
		RefusedRequests:   c.refusedRequests.Load(),
		CallbackPanics:    c.callbackPanics.Load(),
		Backlogged:        c.backlogged.Load(),
		StalledPeers:      c.stalledPeers.Load(),
		DroppedProgress:   c.droppedProgress.Load(),
	}
}

// Counters returns what the member refused or contained so far.
func (m *Member) Counters() Counters { return m.counts.snapshot() }
