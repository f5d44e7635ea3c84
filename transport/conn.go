package transport

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/callerr"
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
// implements it. Written runs on whichever goroutine writes the request
// (over stdio the writer's, or the one that ran the transport actor as
// its run ended; over HTTP the POST's) and Cancelling in the transport
// actor, so implementations must be cheap and must not block.
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
			return callerr.NewTimeout(&callerr.Error{Server: c.server, Method: method, After: limit})
		}
		return callerr.NewCanceled(&callerr.Error{Server: c.server, Method: method, Cause: context.Cause(ctx)})
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
		return callerr.NewQueueTimeout(&callerr.Error{Server: c.server, Method: method, After: c.queueTimeout, Limit: cap(c.slots)})
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
// at once. Pending requests fail with an ErrTransportClosed error
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
