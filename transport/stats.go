package transport

import "sync/atomic"

// Counters are a connection's tallies of input it could not use and output
// it gave up. They are written by reader goroutines and actors and read by
// anyone, so they are atomics rather than actor state: nothing decides on
// them. One Counters may be shared by the successive transports of a
// client, so that its totals survive reconnections.
type Counters struct {
	malformed          atomic.Int64
	oversized          atomic.Int64
	unknownIDs         atomic.Int64
	lateResponses      atomic.Int64
	droppedProgress    atomic.Int64
	refusedBatches     atomic.Int64
	inboundRequests    atomic.Int64
	invalidRequests    atomic.Int64
	badResponses       atomic.Int64
	droppedStderrLines atomic.Int64
	droppedWrites      atomic.Int64
	writeOverflow      atomic.Int64

	// onDrop, if set, hears of every drop (telemetry's dropped-frames
	// counter); it is fixed before the first transport starts.
	onDrop func(reason string)
}

// NewCounters returns empty counters that report each drop to onDrop (which
// may be nil; it must be cheap and must not block).
func NewCounters(onDrop func(reason string)) *Counters {
	return &Counters{onDrop: onDrop}
}

// Reasons passed to the OnDrop callbacks; they are telemetry's
// mcpactor.drop.reason values.
const (
	dropMalformed      = "malformed"
	dropOversized      = "oversized"
	dropUnknownID      = "unknown_id"
	dropLateResponse   = "late_response"
	dropProgress       = "progress"
	dropBatch          = "batch"
	dropInvalidRequest = "invalid_request"
	dropBadResponse    = "bad_response"
	dropWriteOverflow  = "write_overflow"
)

// drop counts one dropped frame of the given reason in n and reports it.
func (c *Counters) drop(reason string, n *atomic.Int64) int64 {
	v := n.Add(1)
	if c.onDrop != nil {
		c.onDrop(reason)
	}
	return v
}

// Stats is a snapshot of what a connection dropped or refused. Nothing is
// dropped silently: each drop is counted here and logged.
type Stats struct {
	Malformed       int64 // lines that were not JSON, or JSON but not JSON-RPC
	Oversized       int64 // frames over the size cap, discarded
	UnknownIDs      int64 // responses to ids we never issued (or to id null)
	LateResponses   int64 // responses to requests already retired (timeout, cancel) or answered
	DroppedProgress int64 // progress notifications nobody waited for, or a slow caller could not take
	RefusedBatches  int64 // batches from a peer that did not negotiate 2025-03-26
	InboundRequests int64 // server-to-client requests received
	// InvalidRequests counts server requests whose id was null, an
	// object, an array, a boolean or a fraction; each was answered with
	// JSON-RPC's Invalid Request error.
	InvalidRequests int64
	// BadResponses counts answers to a pending request that could not be
	// used (both result and error, too deeply nested, over the frame cap);
	// the request failed at once.
	BadResponses int64
	// DroppedStderrLines counts stderr lines a slow StderrLine callback
	// could not take; the stderr ring still holds the newest output.
	DroppedStderrLines int64
	// DroppedWrites counts requests whose call ended (timeout,
	// cancellation) before their frame was written; the frame was
	// dropped, and nothing was sent for them.
	DroppedWrites int64
	// WriteOverflow counts frames of the runtime's own (cancellations,
	// error replies) dropped because a stuck write had too many queued.
	WriteOverflow int64
}

// Snapshot returns the counts so far.
func (c *Counters) Snapshot() Stats {
	return Stats{
		Malformed:          c.malformed.Load(),
		Oversized:          c.oversized.Load(),
		UnknownIDs:         c.unknownIDs.Load(),
		LateResponses:      c.lateResponses.Load(),
		DroppedProgress:    c.droppedProgress.Load(),
		RefusedBatches:     c.refusedBatches.Load(),
		InboundRequests:    c.inboundRequests.Load(),
		InvalidRequests:    c.invalidRequests.Load(),
		BadResponses:       c.badResponses.Load(),
		DroppedStderrLines: c.droppedStderrLines.Load(),
		DroppedWrites:      c.droppedWrites.Load(),
		WriteOverflow:      c.writeOverflow.Load(),
	}
}
