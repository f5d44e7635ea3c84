package transport

import "sync/atomic"

// counters are the transport's tallies of input it could not use. They are
// written by the reader goroutine and the actor, and read by anyone, so they
// are atomics rather than actor state: nothing decides on them.
type counters struct {
	malformed          atomic.Int64
	oversized          atomic.Int64
	unknownIDs         atomic.Int64
	lateResponses      atomic.Int64
	droppedProgress    atomic.Int64
	refusedBatches     atomic.Int64
	inboundRequests    atomic.Int64
	droppedStderrLines atomic.Int64

	// onDrop, if set, hears of every drop (telemetry's dropped-frames
	// counter); it is fixed before the transport starts.
	onDrop func(reason string)
}

// Reasons passed to StdioConfig.OnDrop; they match telemetry's
// mcpactor.drop.reason values.
const (
	dropMalformed    = "malformed"
	dropOversized    = "oversized"
	dropUnknownID    = "unknown_id"
	dropLateResponse = "late_response"
	dropProgress     = "progress"
	dropBatch        = "batch"
)

// drop counts one dropped frame of the given reason in n and reports it.
func (c *counters) drop(reason string, n *atomic.Int64) int64 {
	v := n.Add(1)
	if c.onDrop != nil {
		c.onDrop(reason)
	}
	return v
}

// Stats is a snapshot of what a transport dropped or refused. Nothing is
// dropped silently: each drop is counted here and logged.
type Stats struct {
	Malformed       int64 // lines that were not JSON, or JSON but not JSON-RPC
	Oversized       int64 // frames over the size cap, discarded
	UnknownIDs      int64 // responses to ids we never issued
	LateResponses   int64 // responses to requests already retired (timeout, cancel) or answered
	DroppedProgress int64 // progress notifications the caller was too slow to take
	RefusedBatches  int64 // batches from a peer that did not negotiate 2025-03-26
	InboundRequests int64 // server-to-client requests received
	// DroppedStderrLines counts stderr lines a slow StderrLine callback
	// could not take; the stderr ring still holds the newest output.
	DroppedStderrLines int64
}

func (c *counters) snapshot() Stats {
	return Stats{
		Malformed:          c.malformed.Load(),
		Oversized:          c.oversized.Load(),
		UnknownIDs:         c.unknownIDs.Load(),
		LateResponses:      c.lateResponses.Load(),
		DroppedProgress:    c.droppedProgress.Load(),
		RefusedBatches:     c.refusedBatches.Load(),
		InboundRequests:    c.inboundRequests.Load(),
		DroppedStderrLines: c.droppedStderrLines.Load(),
	}
}
