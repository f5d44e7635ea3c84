package transport

import (
	"context"
	"time"
)

// A POST's goroutine calls net/http, whose calls go deep: a goroutine made
// for one POST grows its stack, by copying it, a few times before the
// answer is read, and that copying was the largest single cost of a call
// that mcpactor adds to the wire's (docs/benchmarks.md). So a goroutine
// that has run a POST waits a while for the next one rather than ending:
// under load the stacks stay grown and no goroutine is made per call.
// The waiting ones are bounded by the POSTs that ran at once; each ends
// after postIdle without work, or when the transport closes (the sink's
// notes end), and the transport's work group counts them, so that Close
// returns only after the last has ended.
//
// postIdle is short: under load the next POST comes within microseconds,
// and a backend holding a thousand sessions, most of them at rest, should
// not hold a goroutine and its grown stack for each one that was used a
// moment ago (bench/cmd/scale measures a session's memory one second
// after the bring-up).

// postIdle is how long a POST's goroutine waits for the next POST (a
// variable for the tests).
var postIdle = 500 * time.Millisecond

// postJob is a POST to run: its context, whose cancel ends it (the
// request's abort, or its timeout for a notification), and the post.
type postJob struct {
	ctx    context.Context
	cancel context.CancelFunc
	p      *post
}

// dispatch runs j on a goroutine waiting for work, or on a new one. The
// hand-off only happens to a goroutine parked in its receive (jobs is
// unbuffered), so a POST never waits behind another.
func (s *postSink) dispatch(j postJob) {
	select {
	case s.jobs <- j:
		return
	default:
	}
	s.a.work.Add(1)
	go s.worker(j)
}

// worker runs j, then the POSTs handed to it, until it has waited
// postIdle for one or the transport closes.
func (s *postSink) worker(j postJob) {
	defer s.a.work.Done()
	idle := time.NewTimer(postIdle)
	defer idle.Stop()
	for {
		s.do(j)
		idle.Reset(postIdle)
		select {
		case j = <-s.jobs:
		case <-idle.C:
			return
		case <-s.notes.Done():
			return
		}
	}
}
