package transport

import "context"

// A request's POST runs on its caller's goroutine when the caller waits on
// nothing but the answer (no progress to take, no timer of its own): the
// transport actor hands the POST over on the request's reply channel, the
// caller runs it from Conn.Await, and the answer it reads is resolved by
// the actor on that same goroutine when the actor is idle. A goroutine of
// the sink's (http_post_workers.go) would cost two hand-offs per call, one
// to wake it and one to wake the caller with the answer, which the
// hand-written net/http client does not pay, and a second deep stack
// while the request waits.
//
// The POST runs in a context made from the caller's: the caller's
// cancellation or deadline ends it, as it would the caller's own net/http
// request, and the actor's abort of the request (its timeout, the answer
// coming another way, Close) ends it through post.abort, before or after
// it has begun. A POST handed over counts in the transport's work group
// until its caller has run or dropped it, so that Close still returns
// only after the last POST has ended.

// handOver gives p's POST to its caller. Its reply channel has room for
// the POST and the outcome, and the POST goes first: the send never waits.
func (s *postSink) handOver(p *post) {
	p.sink = s
	s.a.work.Add(1)
	p.caller <- Outcome{post: p}
}

// runOwnPost runs the POST handed over to cl's caller, whose context is
// ctx. Should it panic (a RoundTripper of the configuration's), the panic
// goes on after the request's in-flight slot has been given back, as when
// OnProgress panics (Conn.Await).
func (c *Conn) runOwnPost(ctx context.Context, cl *call, p *post) {
	ran := false
	defer func() {
		if !ran {
			c.abandon(cl)
		}
	}()
	runPost(ctx, p)
	ran = true
}

// runPost runs a POST handed over to the caller whose context is ctx.
func runPost(ctx context.Context, p *post) {
	s := p.sink
	defer s.a.work.Done()
	ctx, cancel := context.WithCancel(ctx)
	if !p.begin(cancel) {
		// The request ended before its caller got here (its timeout,
		// the transport closing): nothing to send.
		s.a.conn.budget.release(p.weight)
		return
	}
	s.do(postJob{ctx: ctx, cancel: cancel, p: p})
}

// drop gives back what a POST handed over holds when its caller will not
// run it: the request is being retired, or the transport has ended.
func (p *post) drop() {
	p.abort()
	p.sink.a.conn.budget.release(p.weight)
	p.sink.a.work.Done()
}
