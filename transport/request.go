package transport

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

// A request goes through three steps, whoever makes it: Start hands it to
// the transport actor, Await waits for its end, Finish turns that end into
// the request's result or error and gives back what the request held.
// Call is the three in a row.

// Call sends a request and waits for its single end: the result, a JSON-RPC
// error (*callerr.RPCError), a timeout (ErrTimeout), the
// context's end (its Kind the context's error) or the transport's end
// (ErrTransportClosed), each a *callerr.Error. On timeout or cancellation the server is
// sent notifications/cancelled
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation)
// unless opts.NoCancel, and a late answer is ignored. It is Start, Await
// and Finish.
func (c *Conn) Call(ctx context.Context, method string, params json.RawMessage, opts RequestOptions) (json.RawMessage, error) {
	p, err := c.Start(ctx, method, params, &opts)
	if err != nil {
		return nil, err
	}
	out, woke := c.await(ctx, p, &opts)
	return c.Finish(ctx, p, &out, woke)
}

// Pending is a request that Start has handed to the transport actor, until
// Finish.
type Pending struct {
	cl    *call
	start time.Time // when Start was called: the request's timeout runs from it
}

// Wake says what ended the wait of a Pending request.
type Wake uint8

const (
	Answered       Wake = iota // the request's outcome was delivered
	ContextDone                // the request's context ended
	TransportEnded             // Conn.Done was closed
)

// Start sends a request: it waits, if need be, for an in-flight slot and
// room in the write queue, hands the request to the transport actor and
// returns. The request's timeout runs from here, the wait for a slot
// included. On success the caller must then call Await and Finish, once
// each and in that order, with the same opts; an error means nothing was
// sent and there is nothing to finish. Start only reads opts.
func (c *Conn) Start(ctx context.Context, method string, params json.RawMessage, opts *RequestOptions) (Pending, error) {
	start := time.Now()
	cl, err := c.send(ctx, method, params, opts, start)
	if err != nil {
		return Pending{}, err
	}
	return Pending{cl: cl, start: start}, nil
}

// Await waits for the end of a request Start sent: its outcome, ctx's end
// or the transport's, whichever comes first. Meanwhile it runs
// opts.OnProgress on the calling goroutine for each of the request's
// progress notifications, in order, and keeps the timer that restarts with
// them (opts.ResetTimeoutOnProgress); opts must be the options given to
// Start. Over HTTP it may run the request's POST on the calling goroutine
// (transport/http_caller_posts.go). Its results go to Finish. Should
// OnProgress panic, or the POST (a RoundTripper of the configuration's),
// the panic goes on after the request's in-flight slot has been given
// back, and the request is not to be finished: it ends with its answer,
// its deadline or the transport.
func (c *Conn) Await(ctx context.Context, p Pending, opts *RequestOptions) (Outcome, Wake) {
	return c.await(ctx, p, opts)
}

// Finish ends a request Start sent, once Await has returned out and woke:
// an outcome becomes the result or the error Call returns, and a context
// that ended first retires the request (notifications/cancelled, unless
// opts.NoCancel) and waits for the actor's verdict, so that the request
// ends exactly once. It gives back the request's in-flight slot and
// record; p is spent.
func (c *Conn) Finish(ctx context.Context, p Pending, out *Outcome, woke Wake) (json.RawMessage, error) {
	cl := p.cl
	var res json.RawMessage
	var err error
	switch woke {
	case Answered:
		res, err = c.finish(cl, out, nil)
	case ContextDone:
		res, err = c.canceled(ctx, cl)
	default:
		res, err = c.ended(cl)
	}
	reuse := cl.settled && cl.progress == nil && !cl.ownTimer
	if cl.progress != nil {
		c.settleProgress(cl)
	}
	unslotted := cl.unslotted
	if reuse {
		// The actor has delivered the outcome and forgotten the call:
		// the record can serve another one.
		c.release(cl)
	}
	if !unslotted {
		<-c.slots
	}
	return res, err
}

// send takes an in-flight slot and room in the write queue, waiting for
// them if need be, and hands the request to the actor. The request's
// timeout runs from start: a request that waits for a slot or for room
// in the write queue spends its time there too. On success the caller
// owns the slot. It is a function of its own so that its frame is not on
// the stack while the call waits (see await).
func (c *Conn) send(ctx context.Context, method string, params json.RawMessage, opts *RequestOptions, start time.Time) (*call, error) {
	if err := ctx.Err(); err != nil {
		return nil, callerr.NewCanceled(&callerr.Error{Server: c.server, Method: method, Cause: context.Cause(ctx)})
	}
	if !opts.Unslotted {
		select {
		case c.slots <- struct{}{}:
		default:
			if err := c.waitSlot(ctx, method, opts, start); err != nil {
				return nil, err
			}
		}
	}
	weight := c.budget.weigh(len(method) + len(params))
	if !c.budget.sem.TryAcquire(weight) {
		if err := c.waitBudget(ctx, method, weight, opts, start); err != nil {
			if !opts.Unslotted {
				<-c.slots
			}
			return nil, err
		}
	}
	cl := c.take()
	cl.method, cl.params, cl.token, cl.noCancel, cl.obs, cl.header, cl.values = method, params, opts.ProgressToken, opts.NoCancel, opts.Observer, opts.Header, ctx
	cl.unslotted, cl.recycle, cl.busyRetry, cl.ownTimer = opts.Unslotted, opts.RecycleParams, opts.BusyRetryUnsafe, opts.ResetTimeoutOnProgress
	cl.weight = weight
	if opts.OnProgress != nil && opts.ProgressToken != "" {
		cl.progress = make(chan json.RawMessage, progressBuffer)
	}
	wait := c.timeoutOf(opts)
	if opts.MaxTotalTimeout > 0 && opts.MaxTotalTimeout < wait {
		wait = opts.MaxTotalTimeout
	}
	cl.after.Store(int64(wait))
	// The actor keeps the deadline (transport/deadlines.go) unless
	// progress may move it: then the caller, who sees the progress, keeps
	// a timer of its own (awaitProgress).
	if wait != noTimeout && !opts.ResetTimeoutOnProgress {
		// Whatever was spent waiting to be sent counts.
		cl.deadline = start.Add(wait)
	}
	c.root.Send(c.pid, cl)
	return cl, nil
}

// take returns a call record with an empty reply channel: a pooled one if
// there is one, else a new one.
//
// A record goes back to the pool (release) only once its caller has read
// the outcome: the actor has then removed it from the pending table, the
// progress tokens and the deadlines, and the writer keeps no more than the
// record's pointer in frames the actor alone looks at (batchWriter). What
// may still be on its way to the actor is a cancelCall sent for it, which
// carries the record's life and is ignored once the life has moved on; a
// late answer is matched by id, and ids are never reused, so it cannot
// reach a reused record. Records of calls that had progress or a timer of
// their own, or that ended with the transport before their outcome was
// read, are not reused. An HTTP transport's POST goroutines, which may
// outlive the call, keep copies of what they need of it (post), never the
// record.
func (c *Conn) take() *call {
	if c.pool != nil {
		if cl, ok := c.pool.Get().(*call); ok {
			return cl
		}
	}
	if c.HTTP() {
		// Room for the POST its caller runs (http_caller_posts.go) and
		// the outcome: the actor never waits on a caller.
		return &call{reply: make(chan Outcome, 2)}
	}
	return &call{reply: make(chan Outcome, 1)}
}

// release clears a finished record and puts it back in the pool.
func (c *Conn) release(cl *call) {
	if c.pool == nil {
		return
	}
	cl.life.Add(1)
	cl.method, cl.params, cl.token, cl.noCancel, cl.obs, cl.header, cl.values = "", nil, "", false, nil, nil, nil
	cl.weight, cl.deadline, cl.settled, cl.recycle, cl.busyRetry = 0, time.Time{}, false, false, false
	c.pool.Put(cl)
}

// timeoutOf is the timeout a request runs under.
func (c *Conn) timeoutOf(opts *RequestOptions) time.Duration {
	switch {
	case opts.Timeout == 0:
		return c.timeout
	case opts.Timeout < 0:
		return noTimeout
	}
	return opts.Timeout
}

// progressBuffer is how many progress notifications may wait for a slow
// callback before further ones are dropped (and counted).
const progressBuffer = 64

// await is Await. For a request without progress or a timer of its own
// the deadline is the actor's: when it passes, the actor retires the call
// and its verdict arrives on cl.reply like any other outcome. Everything
// but the wait is done by functions of their own, so that this frame
// stays small (TestWaitPathFitsInFourKiB).
func (c *Conn) await(ctx context.Context, p Pending, opts *RequestOptions) (Outcome, Wake) {
	cl := p.cl
	if cl.progress != nil || cl.ownTimer {
		return c.awaitProgress(ctx, p, opts)
	}
	for {
		select {
		case out := <-cl.reply:
			if out.post != nil {
				c.runOwnPost(ctx, cl, out.post)
				continue
			}
			return out, Answered
		case <-ctx.Done():
			return Outcome{}, ContextDone
		case <-c.end.done:
			return Outcome{}, TransportEnded
		}
	}
}

// awaitProgress is await for a request that takes progress notifications,
// or whose timeout restarts at each of them (ResetTimeoutOnProgress): then
// the caller, who takes the progress, keeps the timer, and when it fires
// asks the actor to retire the call as a cancellation would.
func (c *Conn) awaitProgress(ctx context.Context, p Pending, opts *RequestOptions) (out Outcome, woke Wake) {
	cl := p.cl
	var t ownTimer
	if cl.ownTimer {
		t = c.startOwnTimer(cl, p.start, opts)
		defer t.timer.Stop()
	}
	returned := false
	defer func() {
		if !returned {
			c.abandon(cl) // OnProgress panicked: no Finish will come
		}
	}()
	for {
		select {
		case out = <-cl.reply:
			// Progress sent before the answer is still owed to the
			// caller, in order: the actor queued it before the outcome,
			// but select may have picked the outcome first.
			c.drainProgress(cl, opts)
			returned = true
			return out, Answered
		case raw := <-cl.progress:
			c.limits.tookProgress(cl, raw)
			opts.OnProgress(raw)
			if cl.ownTimer {
				t.restart(cl)
			}
		case <-ctx.Done():
			returned = true
			return out, ContextDone
		case <-c.end.done:
			returned = true
			return out, TransportEnded
		}
	}
}

// ownTimer is the timer of a request whose timeout restarts with progress.
type ownTimer struct {
	timer   *time.Timer
	timeout time.Duration // what each progress notification restarts it at
	limit   time.Time     // the absolute cap (MaxTotalTimeout), zero when none
	max     time.Duration // MaxTotalTimeout
}

// startOwnTimer arms cl's own timer for what remains of its first timeout
// (whatever was spent waiting to be sent counts): when it fires, it asks
// the actor to retire the call, exactly as the caller would.
func (c *Conn) startOwnTimer(cl *call, start time.Time, opts *RequestOptions) ownTimer {
	t := ownTimer{timeout: c.timeoutOf(opts), max: opts.MaxTotalTimeout}
	if opts.MaxTotalTimeout > 0 {
		t.limit = start.Add(opts.MaxTotalTimeout)
	}
	wait := time.Duration(cl.after.Load())
	if wait != noTimeout {
		wait = max(wait-time.Since(start), 0)
	}
	life := cl.life.Load()
	t.timer = time.AfterFunc(wait, func() {
		cl.expired.Store(true)
		c.root.Send(c.pid, cancelCall{c: cl, life: life, reason: timeoutText(time.Duration(cl.after.Load()))})
	})
	return t
}

// restart restarts the timer after a progress notification, never beyond
// the absolute cap.
func (t *ownTimer) restart(cl *call) {
	wait, after := t.timeout, t.timeout
	if !t.limit.IsZero() {
		if rest := time.Until(t.limit); rest < wait {
			wait, after = max(rest, 0), t.max
		}
	}
	cl.after.Store(int64(after))
	t.timer.Reset(wait)
}

// abandon gives back what a request holds when its wait ends in a panic
// of the caller's OnProgress: its in-flight slot and its queued progress.
// The actor still has the request; it ends with its answer, its deadline
// or the transport, and its record is not reused.
func (c *Conn) abandon(cl *call) {
	c.settleProgress(cl)
	if !cl.unslotted {
		<-c.slots
	}
}

// canceled retires a call whose context ended.
func (c *Conn) canceled(ctx context.Context, cl *call) (json.RawMessage, error) {
	why := callerr.NewCanceled(&callerr.Error{Server: c.server, Method: cl.method, Cause: context.Cause(ctx)})
	return c.retire(cl, why.Cause.Error(), why)
}

// ended is the outcome of a call whose transport has ended. The actor
// fails every pending call before it ends, so an outcome is waiting unless
// the call never reached it.
func (c *Conn) ended(cl *call) (json.RawMessage, error) { return c.leftOver(cl, nil) }

// leftOver is the outcome waiting for cl once the transport has ended,
// made the call's result as finish makes it with why, or the transport's
// error when none is waiting.
func (c *Conn) leftOver(cl *call, why error) (json.RawMessage, error) {
	// The transport has ended: whatever the actor sent cl is in reply
	// already, and nothing more comes.
	for len(cl.reply) > 0 {
		if out := <-cl.reply; !dropped(out) {
			return c.finish(cl, &out, why)
		}
	}
	return nil, c.end.err
}

// dropped reports whether out is a POST handed over to the caller rather
// than an end, and gives back what it holds: read where the call is being
// retired or its transport has ended, it is never to be sent.
func dropped(out Outcome) bool {
	if out.post == nil {
		return false
	}
	out.post.drop()
	return true
}

// timeoutError is the error of a call its timer retired.
func (c *Conn) timeoutError(cl *call) error {
	return callerr.NewTimeout(&callerr.Error{Server: c.server, Method: cl.method, After: time.Duration(cl.after.Load())})
}

// timeoutText is the reason sent in notifications/cancelled on a timeout.
func timeoutText(d time.Duration) string {
	return (callerr.NewTimeout(&callerr.Error{After: d})).Error()
}

// noTimeout stands for "no timer": about 292 years.
const noTimeout = time.Duration(1<<63 - 1)

// drainProgress delivers the progress notifications already queued for cl.
func (c *Conn) drainProgress(cl *call, opts *RequestOptions) {
	for {
		select {
		case p := <-cl.progress:
			c.limits.tookProgress(cl, p)
			opts.OnProgress(p)
		default:
			return
		}
	}
}

// settleProgress gives back the budget of progress nobody will take: a call
// retired by its caller leaves its queue behind. The actor sends no more
// once the call has ended, and Finish runs after the end.
func (c *Conn) settleProgress(cl *call) {
	for {
		select {
		case p := <-cl.progress:
			c.limits.tookProgress(cl, p)
		default:
			return
		}
	}
}

// retire asks the actor to drop the call and waits for its verdict: the
// actor alone decides whether the answer or the cancellation came first, so
// the call ends exactly once.
func (c *Conn) retire(cl *call, reason string, why error) (json.RawMessage, error) {
	c.root.Send(c.pid, cancelCall{c: cl, life: cl.life.Load(), reason: reason})
	if cl.expired.Load() {
		why = c.timeoutError(cl) // the timer asked first
	}
	for {
		select {
		case out := <-cl.reply:
			if !dropped(out) {
				return c.finish(cl, &out, why)
			}
		case <-c.end.done:
			return c.leftOver(cl, why)
		}
	}
}

// finish turns the outcome read from cl.reply into the call's result.
func (c *Conn) finish(cl *call, out *Outcome, why error) (json.RawMessage, error) {
	cl.settled = true
	id := messages.Int64ID(out.id)
	if cl.obs != nil && out.id != 0 {
		cl.obs.SetRequestID(id)
	}
	switch err := out.err.(type) {
	case nil:
		return out.result, nil
	case *messages.Error:
		return nil, &callerr.RPCError{Server: c.server, Method: cl.method, ID: id, Code: err.Code, Message: err.Message, Data: err.Data}
	default:
		if err == errExpired {
			// The actor's deadline came first, whatever the caller was
			// about to ask.
			why = c.timeoutError(cl)
			err = errRetired
		}
		if err == errRetired {
			if why == nil { // retired by the caller's timer, not by ctx
				why = c.timeoutError(cl)
			}
			if w, ok := why.(*callerr.Error); ok && (callerr.Timeout(w) == w || callerr.Canceled(w) == w) {
				w.ID = id
			}
			return nil, why
		}
		return nil, err
	}
}
