package main

import (
	"io"
	"time"
)

// config is one soak run: its size, its pace and its bounds.
type config struct {
	short        bool
	duration     time.Duration // the load, quiet baseline included
	quiet        time.Duration // load without faults at the start: the baseline
	grace        time.Duration // after the load stops, for the calls in flight to end
	callers      int
	pace         time.Duration // a caller's mean time from one call to the next
	slow         time.Duration // the mean of the slow answers
	faultsPerMin float64
	servers      int
	seed         int64

	window      time.Duration // the isolation check's windows
	sampleEvery time.Duration
	callLimit   time.Duration // every call's context deadline

	// The bounds of the checks.
	isolationBound float64 // p99 of untouched servers / the quiet baseline's
	isolationMin   int     // calls a (window, kind) needs for its p99 to count
	// isolationFloor: a p99 below it counts as it (the short mode's
	// noise floor: on a shared machine a few ms of scheduling are not
	// isolation); 0 in the long run.
	isolationFloor time.Duration
	// probeBound: a window is judged when the control probe's p99 in it
	// is within this of the probe's quiet-baseline p99 (isolation.go);
	// probeFloor, as isolationFloor, for the probe.
	probeBound   float64
	probeFloor   time.Duration
	heapSlopeMiB float64 // live heap after GC, MiB per minute
	rssSlopeMiB  float64 // RSS, MiB per minute

	docs, charts, historyDir string
	// Diagnostics (diag.go): a line a second of the process and the
	// machine and a control probe, beside the history; CPU profiles per
	// window into profiles.
	diag     bool
	profiles string
	log      io.Writer
}

// longConfig is `make soak`'s run: 30 minutes, 50 servers, 2,000 callers,
// twelve faults a minute.
func longConfig() config {
	return config{
		duration:       30 * time.Minute,
		quiet:          3 * time.Minute,
		grace:          30 * time.Second,
		callers:        2000,
		pace:           4 * time.Second,
		slow:           8 * time.Second,
		faultsPerMin:   12,
		servers:        50,
		window:         time.Minute,
		sampleEvery:    5 * time.Second,
		callLimit:      40 * time.Second,
		isolationBound: 1.5,
		isolationMin:   400,
		probeBound:     1.5,
		heapSlopeMiB:   1,
		rssSlopeMiB:    2,
	}
}

// shortConfig is the short mode of `make test` (soak_test.go): about 60
// s, a dozen servers, every fault kind drawn in turn. A minute on a shared
// machine says nothing about speed or slopes, so its bounds on them are
// loose (5x for isolation, p99s under 50 ms counted as 50 ms, the control
// probe's too, and slopes that only a gross leak exceeds): what it checks
// strictly is the rest (every call ends once, classified, spans agree,
// servers recover, nothing is left after Stop). Its test takes an
// inconclusive isolation for what it is, not a failure (soak_test.go).
func shortConfig() config {
	return config{
		short:          true,
		duration:       60 * time.Second,
		quiet:          12 * time.Second,
		grace:          20 * time.Second,
		callers:        300,
		pace:           1500 * time.Millisecond,
		slow:           2 * time.Second,
		faultsPerMin:   24,
		servers:        12,
		window:         10 * time.Second,
		sampleEvery:    2 * time.Second,
		callLimit:      30 * time.Second,
		isolationBound: 5,
		isolationMin:   50,
		isolationFloor: 50 * time.Millisecond,
		probeBound:     1.5,
		probeFloor:     50 * time.Millisecond,
		heapSlopeMiB:   60,
		rssSlopeMiB:    120,
	}
}
