package transport

import "sync/atomic"

// Counters are a connection's tallies of input it could not use and output
// it gave up. They are written by reader goroutines and actors and read by
// anyone, so they are atomics rather than actor state: nothing decides on
// them. One Counters may be shared by the successive transports of a
// client, so that its totals survive reconnections.
type Counters struct {
	counts [NumCounts]atomic.Int64

	// onDrop, if set, hears of every drop (telemetry's dropped-frames
	// counter); it is fixed before the first transport starts.
	onDrop func(reason string)

	// stderr counts the stderr lines queued for the StderrLine callback.
	stderr stderrBacklog
}

// NewCounters returns empty counters that report each drop to onDrop (which
// may be nil; it must be cheap and must not block).
func NewCounters(onDrop func(reason string)) *Counters {
	return &Counters{onDrop: onDrop}
}

// Count names one tally of Stats. What each counts is documented on the
// root package's Stats, which has a field of the same name for each.
type Count int

// The tallies of a connection. Nothing is dropped silently: each drop is
// counted here and logged.
const (
	Malformed Count = iota
	Oversized
	UnknownIDs
	LateResponses
	DroppedProgress
	RefusedBatches
	InboundRequests
	InvalidRequests
	BadResponses
	DroppedStderrLines
	DroppedWrites
	WriteOverflow
	// BusyRetries counts requests sent again after a 429 or 503 with
	// Retry-After (HTTP; HTTPConfig.BusyRetries).
	BusyRetries
	NumCounts
)

// dropReasons are the reasons passed to the onDrop callback, by Count:
// telemetry's mcpactor.drop.reason values. A tally without one (requests
// received, stderr lines, writes a caller gave up) is not a dropped frame.
var dropReasons = [NumCounts]string{
	Malformed:       "malformed",
	Oversized:       "oversized",
	UnknownIDs:      "unknown_id",
	LateResponses:   "late_response",
	DroppedProgress: "progress",
	RefusedBatches:  "batch",
	InvalidRequests: "invalid_request",
	BadResponses:    "bad_response",
	WriteOverflow:   "write_overflow",
}

// drop counts one of k and reports it as a dropped frame when it is one; it
// returns the new count.
func (c *Counters) drop(k Count) int64 {
	v := c.counts[k].Add(1)
	if r := dropReasons[k]; r != "" && c.onDrop != nil {
		c.onDrop(r)
	}
	return v
}

// Stats is a snapshot of a connection's tallies, indexed by Count.
type Stats [NumCounts]int64

// Snapshot returns the counts so far.
func (c *Counters) Snapshot() Stats {
	var s Stats
	for i := range c.counts {
		s[i] = c.counts[i].Load()
	}
	return s
}
