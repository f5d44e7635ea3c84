package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/messages"
)

// DefaultRequestTimeout applies when neither the call nor the server
// configuration sets one
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#timeouts).
const DefaultRequestTimeout = 30 * time.Second

// defaultMaxInFlight bounds the requests a connection has queued or awaiting
// an answer. Callers beyond it wait (backpressure) instead of growing queues.
const defaultMaxInFlight = 1 << 14

// Conn is the caller's handle on a transport actor. Its methods are safe for
// concurrent use; the state they act on belongs to the actor, which they
// reach only by messages.
type Conn struct {
	server  string
	gen     uint64
	id      uint64 // unique in the process: which transport a TransportClosed is from
	root    *actor.RootContext
	pid     *actor.PID
	slots   chan struct{} // one token per request in flight
	inbound chan struct{} // the reader's credits: runs of frames waiting for the actor
	timeout time.Duration
	end     *ending
	stats   *Counters
	budget  *writeBudget
	limits  *limits
	// session is the HTTP session id once the server gave one (written by
	// the actor, read by anyone); nil for transports without sessions.
	session *atomic.Pointer[string]
	// queueTimeout bounds the wait for an in-flight slot of a full
	// connection, apart from the request's own timeout; 0: the request's
	// timeout alone.
	queueTimeout time.Duration
	// pool recycles call records (take, release); nil: every call
	// allocates its own (HTTP).
	pool *sync.Pool
	// skipped keeps the stdout lines a stdio server wrote that were not
	// JSON-RPC (SkippedStdout); nil for HTTP.
	skipped *skippedStdout
}

// DefaultQueueTimeout is how long a request waits for an in-flight slot
// of a full connection (MaxInFlight) when the configuration does not say:
// a server that is full for this long is overloaded, and the caller hears
// of it rather than waiting out its whole timeout.
const DefaultQueueTimeout = 10 * time.Second

// QueueTimeoutError fails a request that waited for an in-flight slot of
// a full connection longer than its queue timeout. It was never sent.
type QueueTimeoutError struct {
	Server      string
	Method      string
	After       time.Duration
	MaxInFlight int
}

func (e *QueueTimeoutError) Error() string {
	return fmt.Sprintf("MCP server %q: %s waited %dms for one of its %d in-flight slots; not sent", e.Server, e.Method, e.After.Milliseconds(), e.MaxInFlight)
}

// Is makes errors.Is(err, messages.ErrTimeout) true: it is a timeout, of
// the queue rather than of the server.
func (e *QueueTimeoutError) Is(target error) bool { return target == messages.ErrTimeout }

// newConn builds the handle of a transport about to be spawned.
func newConn(server string, gen uint64, root *actor.RootContext, l Limits, stats *Counters) *Conn {
	return &Conn{
		server:       server,
		gen:          gen,
		id:           connIDs.Add(1),
		root:         root,
		slots:        make(chan struct{}, l.MaxInFlight),
		timeout:      l.RequestTimeout,
		queueTimeout: queueTimeout(l.QueueTimeout),
		end:          newEnding(),
		inbound:      make(chan struct{}, inboundCredits),
		stats:        stats,
		budget:       newWriteBudget(l.MaxWriteBytes),
		limits:       &limits{callProgress: int64(l.MaxCallProgressBytes), connProgress: int64(l.MaxProgressBytes)},
	}
}

// isDone reports whether the transport has published its end.
func (c *Conn) isDone() bool {
	select {
	case <-c.end.done:
		return true
	default:
		return false
	}
}

// HTTP reports whether the transport speaks HTTP (Streamable HTTP or the
// legacy HTTP+SSE), where requests carry headers of their own.
func (c *Conn) HTTP() bool { return c.session != nil }

// SessionID returns the HTTP session id the server assigned, or "" (stdio,
// a stateless server, or before the handshake).
func (c *Conn) SessionID() string {
	if c.session == nil {
		return ""
	}
	if id := c.session.Load(); id != nil {
		return *id
	}
	return ""
}

// ending is written once by the actor, then published by closing done.
type ending struct {
	done   chan struct{}
	err    error
	byUser bool // Close was asked for, so err is not a failure
	// life ends with done; waits that must not outlive the transport
	// (for write budget) select on it through a context.
	life    context.Context
	endLife context.CancelFunc
}

func newEnding() *ending {
	life, end := context.WithCancel(context.Background())
	return &ending{done: make(chan struct{}), life: life, endLife: end}
}

// RequestOptions tune one request. The zero value uses the connection's
// request timeout and asks for no progress.
type RequestOptions struct {
	// Timeout bounds the wait for the answer; 0 means the connection
	// default, and a negative value no timeout: only ctx (and
	// MaxTotalTimeout) bound the wait, as the connect deadline bounds
	// initialize.
	Timeout time.Duration
	// ProgressToken is the token the caller put in params._meta, as a key
	// from messages.ProgressTokenKey; OnProgress receives its notifications.
	ProgressToken string
	// OnProgress runs on the calling goroutine for each progress
	// notification of this request, in order.
	OnProgress func(params json.RawMessage)
	// ResetTimeoutOnProgress restarts the timeout at each progress
	// notification, never beyond MaxTotalTimeout.
	ResetTimeoutOnProgress bool
	// MaxTotalTimeout caps the whole wait whatever progress arrives; 0 = no cap.
	MaxTotalTimeout time.Duration
	// NoCancel: never send notifications/cancelled for this request (initialize).
	NoCancel bool
	// Observer, if set, is told what happens to the request on its way
	// (telemetry's span events). It must be safe for concurrent use.
	Observer CallObserver
	// Header holds HTTP headers of this request alone (the stateless
	// protocol's Mcp-Method, Mcp-Name, Mcp-Param-*); stdio ignores it.
	Header map[string]string
	// Unslotted: the request takes no in-flight slot, so MaxInFlight
	// requests already out do not hold it back. For a ping: its answer is
	// what tells a server busy with that many slow calls from a stuck
	// one, and a ping that waited for a slot would call a busy server
	// stuck (basic/utilities/ping).
	Unslotted bool
	// BusyRetryUnsafe: over HTTP, this request may be sent again after a
	// 429 or 503 with Retry-After although its method is not known to be
	// safe to repeat (a tools/call, an extension's method): the caller
	// knows that acting twice does no harm (HTTPConfig.BusyRetryUnsafe
	// says it for every request of a server).
	BusyRetryUnsafe bool
	// RecycleParams: params are in a buffer of jsonrpc.ParamsBuffer's
	// (jsonrpc.Pooled holds), which the caller will not read again; the
	// actor recycles it once it has copied params into the frame.
	RecycleParams bool
}

// CallObserver follows one request through the transport: *telemetry.Op
// implements it. Written runs on the writer goroutine and Cancelling in the
// transport actor, so implementations must be cheap and must not block.
type CallObserver interface {
	Queued(reason string) // waiting for a free in-flight slot
	Dequeued()            // the wait is over
	Written()             // the request is being written (called as the write starts)
	// Cancelling is told that notifications/cancelled is about to be
	// queued for the request, with its params; it returns the params to
	// send (an observer may add its trace context to _meta).
	Cancelling(reason string, params json.RawMessage) json.RawMessage
	SetRequestID(id messages.ID) // the id the request was sent with
	LateResponse()               // an answer came after the call was retired
}

// Server returns the name of the server this connection talks to.
func (c *Conn) Server() string { return c.server }

// connIDs numbers the transports of the process.
var connIDs atomic.Uint64

// ID tells this transport from another of the same generation (the legacy
// HTTP+SSE fallback runs a second transport in the generation whose
// Streamable HTTP attempt failed): TransportClosed carries it.
func (c *Conn) ID() uint64 { return c.id }

// Generation returns the connection generation the transport was started
// with; messages it sends its owner carry the same number.
func (c *Conn) Generation() uint64 { return c.gen }

// Done is closed when the transport has stopped and released everything.
func (c *Conn) Done() <-chan struct{} { return c.end.done }

// Err returns the error that ended the transport, or nil while it runs.
func (c *Conn) Err() error {
	select {
	case <-c.end.done:
		return c.end.err
	default:
		return nil
	}
}

// Stats returns the counts of dropped or refused input so far (shared with
// the other transports of the same Counters).
func (c *Conn) Stats() Stats { return c.stats.Snapshot() }

// Call sends a request and waits for its single end: the result, a JSON-RPC
// error (*messages.RPCError), a timeout (*messages.TimeoutError), the
// context's end (*messages.CanceledError) or the transport's end
// (*messages.TransportClosedError). On timeout or cancellation the server is
// sent notifications/cancelled
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation)
// unless opts.NoCancel, and a late answer is ignored.
func (c *Conn) Call(ctx context.Context, method string, params json.RawMessage, opts RequestOptions) (json.RawMessage, error) {
	start := time.Now()
	cl, err := c.send(ctx, method, params, &opts, start)
	if err != nil {
		return nil, err
	}
	if !opts.Unslotted {
		// Deferred: an OnProgress callback that panics must not keep the
		// slot.
		defer func() { <-c.slots }()
	}
	ownTimer := opts.ResetTimeoutOnProgress
	res, err := c.await(ctx, cl, start, &opts, ownTimer)
	if cl.settled && !ownTimer && cl.progress == nil {
		// The actor has delivered the outcome and forgotten the call:
		// the record can serve another one.
		c.release(cl)
	}
	return res, err
}

// Pending is a request that Start has handed to the transport actor. Its
// caller waits, in a frame of its own, for the first of Reply, its
// context's end and the transport's Done, and hands what ended the wait to
// Finish, exactly once.
type Pending struct{ cl *call }

// Reply delivers the request's outcome, once; receive it into an Outcome
// for Finish.
func (p Pending) Reply() <-chan Outcome { return p.cl.reply }

// Wake says what ended the wait of a Pending request.
type Wake uint8

const (
	Answered       Wake = iota // Reply delivered the outcome
	ContextDone                // the request's context ended
	TransportEnded             // Conn.Done was closed
)

// Start is Call cut in two around its wait: it sends the request (waiting,
// if need be, for an in-flight slot and room in the write queue, as Call
// does) and returns at once; the caller selects on p.Reply(), ctx.Done()
// and c.Done() and passes what it got to Finish, exactly once. The
// caller's own frame can so be the one that waits (docs/architecture.md,
// "The request path").
//
// Only for plain requests: opts must ask for no progress (OnProgress) and
// keep no timer of its own (ResetTimeoutOnProgress), which need a wait
// that takes progress; those go through Call. The deadline is the
// actor's, as with Call. Start only reads opts.
func (c *Conn) Start(ctx context.Context, method string, params json.RawMessage, opts *RequestOptions) (Pending, error) {
	if opts.OnProgress != nil || opts.ResetTimeoutOnProgress {
		panic("transport: Start takes no progress; use Call")
	}
	cl, err := c.send(ctx, method, params, opts, time.Now())
	if err != nil {
		return Pending{}, err
	}
	return Pending{cl: cl}, nil
}

// Finish ends a request sent by Start, as Call would have once its wait
// ended as woke says (out holds what Reply delivered when woke is
// Answered): a cancellation retires the call and tells the server, an
// outcome becomes the result or error Call would return. It gives back
// the request's in-flight slot and record; p is spent.
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
	unslotted := cl.unslotted
	if cl.settled {
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
		return nil, &messages.CanceledError{Server: c.server, Method: method, Err: context.Cause(ctx)}
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
	cl.unslotted, cl.recycle, cl.busyRetry = opts.Unslotted, opts.RecycleParams, opts.BusyRetryUnsafe
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
	// a timer of its own.
	if wait != noTimeout && !opts.ResetTimeoutOnProgress {
		// Whatever was spent waiting to be sent counts.
		cl.deadline = start.Add(wait)
	}
	c.root.Send(c.pid, cl)
	return cl, nil
}

// take returns a call record with an empty reply channel: a pooled one on
// a stream transport, else a new one.
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
// read, are not reused. HTTP transports hand records to POST goroutines
// that may outlive the call, so they do not pool.
func (c *Conn) take() *call {
	if c.pool != nil {
		if cl, ok := c.pool.Get().(*call); ok {
			return cl
		}
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

// errQueueTimeout ends a wait before sending that the request's timeout
// (or its absolute cap) ran out.
var errQueueTimeout = errors.New("request timeout while queued")

// queueWait bounds a wait before sending by ctx and by the request's
// timeout counted from start. It returns the context to wait with and
// how to turn its end into the request's error.
func (c *Conn) queueWait(ctx context.Context, method string, opts *RequestOptions, start time.Time) (context.Context, context.CancelFunc, func() error) {
	timeout := c.timeoutOf(opts)
	limit := timeout
	if opts.MaxTotalTimeout > 0 && opts.MaxTotalTimeout < limit {
		limit = opts.MaxTotalTimeout
	}
	wctx, cancel := ctx, context.CancelFunc(func() {})
	if limit != noTimeout {
		wctx, cancel = context.WithDeadlineCause(ctx, start.Add(limit), errQueueTimeout)
	}
	why := func() error {
		if context.Cause(wctx) == errQueueTimeout && ctx.Err() == nil {
			return &messages.TimeoutError{Server: c.server, Method: method, After: limit}
		}
		return &messages.CanceledError{Server: c.server, Method: method, Err: context.Cause(ctx)}
	}
	return wctx, cancel, why
}

// waitBudget waits for room in the write queue: the backpressure of a
// server that reads its input more slowly than it is sent.
func (c *Conn) waitBudget(ctx context.Context, method string, w int64, opts *RequestOptions, start time.Time) error {
	if obs := opts.Observer; obs != nil {
		obs.Queued("write")
		defer obs.Dequeued()
	}
	wctx, cancel, why := c.queueWait(ctx, method, opts, start)
	defer cancel()
	if err := c.budget.acquire(wctx, c.end.life, w); err != nil {
		if c.end.life.Err() != nil {
			<-c.end.done
			return c.end.err
		}
		return why()
	}
	return nil
}

// waitSlot waits for an in-flight slot: the backpressure of a full
// connection. Only the slow path reports the wait to the observer.
func (c *Conn) waitSlot(ctx context.Context, method string, opts *RequestOptions, start time.Time) error {
	if obs := opts.Observer; obs != nil {
		obs.Queued("concurrency")
		defer obs.Dequeued()
	}
	wctx, cancel, why := c.queueWait(ctx, method, opts, start)
	defer cancel()
	var queue <-chan time.Time
	if c.queueTimeout > 0 {
		t := time.NewTimer(c.queueTimeout - time.Since(start))
		defer t.Stop()
		queue = t.C
	}
	select {
	case c.slots <- struct{}{}:
		return nil
	case <-wctx.Done():
		return why()
	case <-queue:
		return &QueueTimeoutError{Server: c.server, Method: method, After: c.queueTimeout, MaxInFlight: cap(c.slots)}
	case <-c.end.done:
		return c.end.err
	}
}

// MailboxDepth reports the messages from the reader waiting in the transport
// actor's mailbox, each a run of frames read together (bounded by the
// reader's credits).
func (c *Conn) MailboxDepth() int { return len(c.inbound) }

// InFlight reports the requests queued or awaiting an answer.
func (c *Conn) InFlight() int { return len(c.slots) }

// progressBuffer is how many progress notifications may wait for a slow
// callback before further ones are dropped (and counted).
const progressBuffer = 64

func (c *Conn) await(ctx context.Context, cl *call, start time.Time, opts *RequestOptions, ownTimer bool) (json.RawMessage, error) {
	switch {
	case ownTimer:
		return c.awaitTimed(ctx, cl, start, opts)
	case cl.progress != nil:
		return c.awaitProgress(ctx, cl, opts)
	}
	// The deadline is the actor's: when it passes, the actor retires the
	// call and its verdict arrives on cl.reply like any other outcome.
	// Everything but the wait is done by functions of their own, so that
	// this frame stays small (TestWaitPathFitsInFourKiB).
	select {
	case out := <-cl.reply:
		return c.finish(cl, &out, nil)
	case <-ctx.Done():
		return c.canceled(ctx, cl)
	case <-c.end.done:
		return c.ended(cl)
	}
}

// awaitProgress is await for a call that takes progress notifications.
func (c *Conn) awaitProgress(ctx context.Context, cl *call, opts *RequestOptions) (json.RawMessage, error) {
	defer c.settleProgress(cl)
	for {
		select {
		case out := <-cl.reply:
			// Progress sent before the answer is still owed to the
			// caller, in order: the actor queued it before the outcome,
			// but select may have picked the outcome first.
			c.drainProgress(cl, opts)
			return c.finish(cl, &out, nil)
		case p := <-cl.progress:
			c.limits.tookProgress(cl, p)
			opts.OnProgress(p)
		case <-ctx.Done():
			return c.canceled(ctx, cl)
		case <-c.end.done:
			return c.ended(cl)
		}
	}
}

// canceled retires a call whose context ended.
func (c *Conn) canceled(ctx context.Context, cl *call) (json.RawMessage, error) {
	why := &messages.CanceledError{Server: c.server, Method: cl.method, Err: context.Cause(ctx)}
	return c.retire(cl, why.Err.Error(), why)
}

// ended is the outcome of a call whose transport has ended. The actor
// fails every pending call before it ends, so an outcome is waiting unless
// the call never reached it.
func (c *Conn) ended(cl *call) (json.RawMessage, error) {
	select {
	case out := <-cl.reply:
		return c.finish(cl, &out, nil)
	default:
		return nil, c.end.err
	}
}

// awaitTimed is await for a call whose timeout restarts at each progress
// notification (ResetTimeoutOnProgress): the caller, who takes the
// progress, keeps the timer. When it fires, the timer asks the actor to
// retire the call, exactly as the caller would.
func (c *Conn) awaitTimed(ctx context.Context, cl *call, start time.Time, opts *RequestOptions) (json.RawMessage, error) {
	timeout := c.timeoutOf(opts)
	var limit time.Time // the absolute cap, zero when none
	if opts.MaxTotalTimeout > 0 {
		limit = start.Add(opts.MaxTotalTimeout)
	}
	wait := time.Duration(cl.after.Load())
	if wait != noTimeout {
		// Whatever was spent waiting to be sent counts.
		wait = max(wait-time.Since(start), 0)
	}
	life := cl.life.Load()
	timer := time.AfterFunc(wait, func() {
		cl.expired.Store(true)
		c.root.Send(c.pid, cancelCall{c: cl, life: life, reason: timeoutText(time.Duration(cl.after.Load()))})
	})
	defer timer.Stop()
	if cl.progress != nil {
		defer c.settleProgress(cl)
	}
	for {
		select {
		case out := <-cl.reply:
			c.drainProgress(cl, opts)
			return c.finish(cl, &out, nil)
		case p := <-cl.progress:
			c.limits.tookProgress(cl, p)
			opts.OnProgress(p)
			wait, after := timeout, timeout
			if !limit.IsZero() {
				if rest := time.Until(limit); rest < wait {
					wait, after = max(rest, 0), opts.MaxTotalTimeout
				}
			}
			cl.after.Store(int64(after))
			timer.Reset(wait)
		case <-ctx.Done():
			why := &messages.CanceledError{Server: c.server, Method: cl.method, Err: context.Cause(ctx)}
			return c.retire(cl, why.Err.Error(), why)
		case <-c.end.done:
			return c.ended(cl)
		}
	}
}

// timeoutError is the error of a call its timer retired.
func (c *Conn) timeoutError(cl *call) error {
	return &messages.TimeoutError{Server: c.server, Method: cl.method, After: time.Duration(cl.after.Load())}
}

// timeoutText is the reason sent in notifications/cancelled on a timeout.
func timeoutText(d time.Duration) string {
	return (&messages.TimeoutError{After: d}).Error()
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
// once the call has ended, and every path here returns after the end.
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
	select {
	case out := <-cl.reply:
		return c.finish(cl, &out, why)
	case <-c.end.done:
		select {
		case out := <-cl.reply:
			return c.finish(cl, &out, why)
		default:
			return nil, c.end.err
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
		return nil, &messages.RPCError{Server: c.server, Method: cl.method, ID: id, Code: err.Code, Message: err.Message, Data: err.Data}
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
			switch w := why.(type) {
			case *messages.TimeoutError:
				w.ID = id
			case *messages.CanceledError:
				w.ID = id
			}
			return nil, why
		}
		return nil, err
	}
}

// Notify sends a notification. It returns once the notification is queued,
// which may wait for room in the write queue (bounded by ctx); an error
// means the transport has already ended or ctx did.
func (c *Conn) Notify(ctx context.Context, method string, params json.RawMessage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-c.end.done:
		return c.end.err
	default:
	}
	w := c.budget.weigh(len(method) + len(params))
	if err := c.budget.acquire(ctx, c.end.life, w); err != nil {
		if c.end.life.Err() != nil {
			return c.end.err
		}
		return err
	}
	c.root.Send(c.pid, notify{method: method, params: params, weight: w})
	return nil
}

// Respond answers the server-to-client request id with a result or, when
// rpcErr is set, an error. It may wait for room in the write queue, bounded
// by ctx; an answer that cannot be queued (ctx ended, transport gone) is
// dropped, and the error says why.
func (c *Conn) Respond(ctx context.Context, id messages.ID, result json.RawMessage, rpcErr *messages.Error) error {
	select {
	case <-c.end.done:
		return c.end.err
	default:
	}
	size := len(result)
	if rpcErr != nil {
		size = len(rpcErr.Message) + len(rpcErr.Data)
	}
	w := c.budget.weigh(size)
	if err := c.budget.acquire(ctx, c.end.life, w); err != nil {
		if c.end.life.Err() != nil {
			return c.end.err
		}
		return err
	}
	c.root.Send(c.pid, respond{id: id, result: result, err: rpcErr, weight: w})
	return nil
}

// RespondNow is Respond for an owner that must not wait (an actor
// answering ping, or refusing a request): the answer is queued outside the
// write budget, as the transport's own small frames are, and dropped and
// counted if those have piled up behind a stuck write.
func (c *Conn) RespondNow(id messages.ID, result json.RawMessage, rpcErr *messages.Error) {
	select {
	case <-c.end.done:
	default:
		c.root.Send(c.pid, respond{id: id, result: result, err: rpcErr})
	}
}

// Establish tells the transport what the handshake settled, before the
// requests that follow it: the protocol version (an HTTP transport sends it
// in MCP-Protocol-Version; batches are accepted only under 2025-03-26).
func (c *Conn) Establish(e Established) { c.root.Send(c.pid, e) }

// Close shuts the transport down in order (for stdio: close stdin, wait,
// SIGTERM, wait, SIGKILL) and waits until everything is released, or until
// ctx ends: then the remaining grace periods are skipped (the process is
// killed) and Close returns at once with the context's error, while the
// transport finishes on its own (Done tells when). Pending requests fail
// with ErrTransportClosed. The returned error is the transport's final
// error when it had already failed, else nil.
func (c *Conn) Close(ctx context.Context) error {
	select {
	case <-c.end.done:
		return c.closeResult()
	default:
	}
	c.BeginClose(nil)
	select {
	case <-c.end.done:
	case <-ctx.Done():
		c.Kill()
		select {
		case <-c.end.done:
		default:
			return context.Cause(ctx)
		}
	}
	return c.closeResult()
}

// BeginClose starts the orderly shutdown that Close waits for and returns
// at once. Pending requests fail with a *messages.TransportClosedError
// whose Cause is cause (nil for a plain close).
func (c *Conn) BeginClose(cause error) {
	c.root.Send(c.pid, closeRequest{cause: cause})
}

// Kill skips what remains of the shutdown's grace periods: the server is
// killed at once. It returns at once; Done tells when all is released.
func (c *Conn) Kill() {
	c.root.Send(c.pid, forceClose{})
}

func (c *Conn) closeResult() error {
	if c.end.byUser {
		return nil
	}
	return c.end.err
}
