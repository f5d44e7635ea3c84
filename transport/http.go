package transport

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/redact"
	"github.com/mcpactor/mcpactor/messages"
)

// HTTPConfig describes an MCP server reached over Streamable HTTP
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http).
// The zero values of the tuning fields select the documented defaults.
type HTTPConfig struct {
	Server  string            // the server's name, used in errors and logs
	URL     string            // the MCP endpoint
	Headers map[string]string // sent with every request (already expanded)
	// Client sends the requests; nil uses NewHTTPClient(). A runtime shares
	// one among its servers. Redirects to another origin are refused
	// whatever its own policy.
	Client *http.Client
	// Auth, if set, authorizes the requests: Client's transport is
	// wrapped by it (transport/oauth).
	Auth Authorizer

	Generation uint64    // see StdioConfig.Generation
	Counters   *Counters // see StdioConfig.Counters

	// Limits bound the connection (MaxFrameSize: the largest JSON body
	// or SSE event accepted, MaxWriteBytes: request bodies not yet sent);
	// their zero values select the defaults.
	Limits

	// ResumeAttempts bounds the resumptions of one broken SSE stream in a
	// row; a new event id from the server resets the count. Default 5.
	ResumeAttempts int
	// RetryDelay is the wait before resuming a stream or reconnecting the
	// GET listener when the server gave no retry: field; it doubles (with
	// jitter) up to MaxRetryDelay, which caps a server's retry: too.
	// Defaults 500 ms and 30 s.
	RetryDelay    time.Duration
	MaxRetryDelay time.Duration
	// BusyRetries bounds the times one request is sent again after a 429
	// or 503 whose Retry-After asks to come back later
	// (https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3): each after
	// the delay asked, if the request is safe to repeat, the delay is at
	// most MaxRetryDelay and it ends before the call's deadline. Default
	// 3; negative: never.
	BusyRetries int
	// BusyRetryUnsafe lets every request of the server be sent again so,
	// tools/call included, as RequestOptions.BusyRetryUnsafe does for one.
	BusyRetryUnsafe bool
	// CloseTimeout bounds the DELETE that ends the session on Close.
	// Default 2 s.
	CloseTimeout time.Duration

	// Fence, if set, is asked immediately before each message is sent:
	// as net/http starts writing a POST's body, on a connection it
	// holds (each attempt of it, if an Authorizer sends it again). A
	// non-nil error means the message is not sent: a request ends with
	// that error, as it was returned. Requests that carry no message
	// (the GET listener and its resumptions, the DELETE that ends the
	// session) are not asked. Otherwise as StdioConfig.Fence.
	Fence func() error

	OnDrop func(reason string) // see StdioConfig
	Logger *slog.Logger        // nil discards
}

func (c *HTTPConfig) setDefaults() {
	if c.Client == nil {
		c.Client = NewHTTPClient()
	}
	if c.Auth != nil {
		c.Client = authorized(c.Client, c.Auth, c.URL)
	}
	c.Client = guarded(c.Client)
	c.Limits.setDefaults()
	if c.ResumeAttempts <= 0 {
		c.ResumeAttempts = 5
	}
	if c.RetryDelay <= 0 {
		c.RetryDelay = 500 * time.Millisecond
	}
	if c.MaxRetryDelay <= 0 {
		c.MaxRetryDelay = 30 * time.Second
	}
	if c.BusyRetries == 0 {
		c.BusyRetries = 3
	}
	if c.CloseTimeout <= 0 {
		c.CloseTimeout = 2 * time.Second
	}
	if c.Counters == nil {
		c.Counters = NewCounters(c.OnDrop)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// SpawnHTTP starts a Streamable HTTP transport actor under parent and
// returns the handle callers use. Nothing is sent until the first request
// (initialize); the GET listener starts when the owner calls Listen.
func SpawnHTTP(parent actor.SpawnerContext, root *actor.RootContext, owner *actor.PID, cfg HTTPConfig) *Conn {
	cfg.setDefaults()
	conn := newConn(cfg.Server, cfg.Generation, root, cfg.Limits, cfg.Counters)
	conn.session = new(atomic.Pointer[string])
	conn.pool = new(sync.Pool) // call records are reused (Conn.take)
	props := actor.PropsFromProducer(func() actor.Actor { return newHTTPActor(&cfg, conn, owner) },
		append(guardianAtRoot(parent), actor.WithMailbox(httpMailbox()))...)
	conn.pid = parent.Spawn(props)
	return conn
}

// httpActor owns one Streamable HTTP connection: the session id, the
// protocol version header, the pending table (through rpcCore), the POSTs
// in flight and the GET listener. Blocking I/O runs on goroutines (one per
// POST, the listener, resumptions, the final DELETE) that report back by
// message.
type httpActor struct {
	cfg     *HTTPConfig // the spawn's, which its producer holds; never written
	conn    *Conn
	core    rpcCore
	self    *actor.PID
	sink    *postSink
	feed    *feed
	session string // Mcp-Session-Id, once the initialize answer gave one
	version string // MCP-Protocol-Version, once the owner established it
	listen  *listener
	expired bool // a 404 (or the like) told us the session is gone; the owner was told
	// expiredStatus is the status that told it.
	expiredStatus int
	// secrets are the configured header values, masked in the texts of
	// errors (a server may quote a request's headers back).
	secrets []string
	// draining holds the close of an expired session's connection until
	// its pending requests have come back (see close); drainEnd bounds it.
	draining   bool
	drainCause error // the replacement, for what is left when the drain ends
	drainEnd   *time.Timer
	closing    bool
	byUser     bool
	work       sync.WaitGroup // every goroutine started for this transport
	panicked   any
	endErr     error        // why the connection failed, if it did
	stateless  bool         // the 2026-07-28 era: no resumption
	legacy     *legacyState // set for the legacy HTTP+SSE transport
	// headers are the configured headers (cfg.Headers) in the form every
	// request carries them, made once: read-only, their values shared by
	// every request.
	headers http.Header
	// sessionValue and versionValue are the values of Mcp-Session-Id and
	// MCP-Protocol-Version as a request's header carries them, made once
	// when the session or version is set: every POST shares them.
	sessionValue []string
	versionValue []string
	// target is cfg.URL parsed once (nil if it does not parse: each
	// request then fails as it tries), shared read-only by every request
	// to it.
	target *url.URL
}

// headerOf is m as an http.Header, its keys canonical: the form a request
// carries, made once for a connection rather than once per request.
func headerOf(m map[string]string) http.Header {
	if len(m) == 0 {
		return nil
	}
	h := make(http.Header, len(m))
	for k, v := range m {
		h.Set(k, v)
	}
	return h
}

func newHTTPActor(cfg *HTTPConfig, conn *Conn, owner *actor.PID) *httpActor {
	a := &httpActor{cfg: cfg, conn: conn, secrets: redact.Values(cfg.Headers), headers: headerOf(cfg.Headers), target: parseTarget(cfg.URL)}
	a.sink = &postSink{a: a, aborts: make(map[int64]*post), jobs: make(chan postJob)}
	a.sink.notes, a.sink.endNotes = context.WithCancel(conn.end.life)
	a.core = newRPCCore(cfg.Server, owner, cfg.Generation, a.sink, cfg.Logger, conn.stats, conn.budget, conn.limits)
	return a
}

// Messages from the actor's goroutines.
type (
	// sessionAssigned carries the Mcp-Session-Id of the initialize answer.
	sessionAssigned struct{ id string }
	// postFailed fails request id (0 for a notification or response)
	// with err.
	postFailed struct {
		id  int64
		err error
	}
	// sessionLost reports the refusal of the session id a message
	// carried (a 404, or what sessionRefused takes for one); id is 0 for
	// a GET (the listener's, or a stream's resumption).
	sessionLost struct {
		id      int64
		method  string
		session string
		status  int
	}
	// drained: every goroutine of a closing transport has returned.
	drained struct{}
	// initializedSent: the POST of notifications/initialized has ended;
	// the messages held behind it may go.
	initializedSent struct{}
	// listenerState reports how the GET listener's last attempt went.
	listenerState struct {
		status int    // the HTTP status, 0 for a network error
		note   string // what was recorded (405: no stream offered...)
	}
)

func (a *httpActor) Receive(ctx actor.Context) {
	defer a.recoverPanic()
	switch m := ctx.Message().(type) {
	case fed:
		a.handle(ctx, m.msg)
		a.feed.release(m.bytes)
		a.drainStep()
	case inboundOne:
		a.core.receiveOne(ctx, m) // not through handle: m would be boxed again
		a.feed.release(m.bytes)
		a.drainStep()
	case *actor.Started:
		a.self = ctx.Self()
		a.feed = newFeed(a.conn, a.self)
		a.cfg.Logger.Debug("mcp: HTTP transport ready", "server", a.cfg.Server, "url", redact.URL(a.cfg.URL), "legacy_sse", a.legacy != nil)
		if a.legacy != nil {
			a.openStream()
		}
	case Established:
		a.version = m.ProtocolVersion
		a.versionValue = headerValue(m.ProtocolVersion)
		a.stateless = m.Stateless
		a.core.batches = m.ProtocolVersion == messages.Version20250326
	case listen:
		a.startListener(m)
	case closeRequest:
		a.close(ctx, m.cause)
	case forceClose:
		a.close(ctx, nil)
	case drainOver:
		if a.draining {
			a.closeNow(a.drainCause)
		}
	case drained:
		a.finish(ctx)
	case injectedPanic:
		panic(m.value)
	case *actor.Stopping:
		a.stopping(ctx)
	case *actor.Stopped:
		a.publish(a.stoppedError())
	default:
		a.handle(ctx, m)
		a.drainStep()
	}
}

// handle takes what the goroutines fed, and the requests of callers.
func (a *httpActor) handle(ctx actor.Context, msg any) {
	switch m := msg.(type) {
	case sessionAssigned:
		if a.session == "" && validSessionID(m.id) {
			a.session = m.id
			a.sessionValue = headerValue(m.id)
			a.conn.session.Store(&m.id)
		}
	case notify:
		// The one notification later messages must not overtake.
		a.sink.gateNext = m.method == messages.NotificationInitialized
		a.core.receive(ctx, m)
		a.sink.gateNext = false
	case initializedSent:
		a.sink.release()
	case postFailed:
		a.postFailed(m)
	case sessionLost:
		a.sessionLost(ctx, m)
	case listenerState:
		a.listen.record(m)
	case endpointKnown:
		a.legacyEndpoint(m)
	case streamEnded:
		a.legacyEnded(ctx, m)
	default:
		a.core.receive(ctx, m)
	}
}

func (a *httpActor) recoverPanic() {
	if r := recover(); r != nil {
		a.panicked = r
		a.cfg.Logger.Error("mcp: transport actor panicked; stopping it", "server", a.cfg.Server,
			"panic", r, "stack", string(debug.Stack()))
		panic(r)
	}
}

// postFailed ends a request whose POST failed; a notification's or
// response's failure is only logged (nobody waits for it).
func (a *httpActor) postFailed(m postFailed) {
	if m.id == 0 {
		a.cfg.Logger.Warn("mcp: HTTP message not delivered", "server", a.cfg.Server, "err", m.err)
		return
	}
	a.core.resolve(m.id, Outcome{err: m.err})
}

// sessionLost handles a 404 (or another refusal of the session,
// sessionRefused) to a request that carried the session id: the server
// ended the session and did not process the request
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
// The request fails with a session-expired ErrHTTP error, which its caller may send
// once more on the next connection; the owner hears of it once, and starts
// that connection.
func (a *httpActor) sessionLost(ctx actor.Context, m sessionLost) {
	a.core.resolve(m.id, Outcome{err: callerr.NewSessionExpired(&callerr.Error{Server: a.cfg.Server, Method: m.method, SessionID: m.session, Status: m.status})})
	if a.expired || m.session != a.session {
		return
	}
	a.expired, a.expiredStatus = true, m.status
	a.cfg.Logger.Info("mcp: HTTP session expired", "server", a.cfg.Server, "status", m.status)
	if a.core.owner != nil {
		ctx.Send(a.core.owner, SessionExpired{Generation: a.cfg.Generation})
	}
}

// close ends the connection: pending requests fail now, the POSTs in
// flight are aborted, the listener stops, and the session is ended with a
// DELETE (bounded; 405 is fine). The actor finishes when every goroutine
// has returned.
//
// A connection replaced because its session expired first drains: every
// request still pending on that session is about to be answered 404 (the
// server did not process it), and that answer is what lets its caller
// send it again on the new session. Failing it now with the replacement
// would lose it. The drain ends when none is pending, or after
// expiredDrainLimit; a close with no cause (Close, a kill) never waits.
func (a *httpActor) close(ctx actor.Context, cause error) {
	if a.closing {
		return
	}
	if a.expired && cause != nil && len(a.core.pending) > 0 {
		if !a.draining {
			a.draining, a.drainCause = true, cause
			root, self := a.conn.root, a.self
			a.drainEnd = time.AfterFunc(expiredDrainLimit, func() { root.Send(self, drainOver{}) })
		}
		return
	}
	a.closeNow(cause)
}

// closeNow is close without the drain.
func (a *httpActor) closeNow(cause error) {
	if a.closing {
		return
	}
	if a.draining {
		a.draining = false
		a.drainEnd.Stop()
	}
	a.closing, a.byUser = true, true
	a.core.failAll(callerr.NewTransportClosed(&callerr.Error{Server: a.cfg.Server, Cause: cause, Closed: cause == nil}))
	if a.expired {
		// A request that reaches this connection from now on was never
		// sent, and the session it would have carried is gone: it fails
		// as the server's own refusals of that session did, so that its
		// caller sends it once on the connection that replaces this one
		// (actors' replay). A caller that took this connection just
		// before it was replaced would otherwise see "Transport closed"
		// for a request nobody received.
		a.endErr = callerr.NewSessionExpired(&callerr.Error{Server: a.cfg.Server, SessionID: a.session, Status: a.expiredStatus})
		a.core.failed = a.endErr
	}
	a.wind(true)
}

// expiredDrainLimit bounds the drain of an expired session's connection.
const expiredDrainLimit = 5 * time.Second

// drainOver ends a drain that lasted expiredDrainLimit: what is still
// pending fails with the replacement.
type drainOver struct{}

// drainStep ends a drain once nothing is pending any more.
func (a *httpActor) drainStep() {
	if a.draining && len(a.core.pending) == 0 {
		a.closeNow(a.drainCause)
	}
}

// failed ends the connection on a fault of the server's (the legacy
// stream ended): pending and new calls fail with cause.
func (a *httpActor) failed(ctx actor.Context, cause error) {
	if a.closing {
		return
	}
	a.closing = true
	a.endErr = callerr.NewTransportClosed(&callerr.Error{Server: a.cfg.Server, Cause: cause})
	a.core.failAll(a.endErr)
	a.wind(false)
}

// wind stops every goroutine (aborting the POSTs in flight, the listener,
// the legacy stream), ends the session when asked to, and finishes once
// they have all returned.
func (a *httpActor) wind(endSession bool) {
	a.sink.abortAll()
	if a.listen != nil {
		a.listen.stop()
	}
	for _, p := range a.sink.held {
		a.conn.budget.release(p.weight)
	}
	a.sink.held = nil
	if a.legacy != nil {
		if a.legacy.cancel != nil {
			a.legacy.cancel()
		}
		for _, p := range a.legacy.waiting {
			a.conn.budget.release(p.weight)
		}
		a.legacy.waiting = nil
	}
	if endSession && a.session != "" && !a.expired {
		a.deleteSession()
	}
	root, self := a.conn.root, a.self
	go func() {
		a.work.Wait()
		root.Send(self, drained{})
	}()
}

func (a *httpActor) finish(ctx actor.Context) {
	err := a.endErr
	if err == nil {
		err = callerr.NewTransportClosed(&callerr.Error{Server: a.cfg.Server, Closed: true})
	}
	if a.core.owner != nil {
		ctx.Send(a.core.owner, TransportClosed{Err: err, Generation: a.cfg.Generation, Transport: a.conn.id})
	}
	a.publish(err)
	ctx.Stop(a.self)
}

// stopping runs when the actor is stopped without its orderly close (a
// panic, its parent going away): the goroutines are told to stop, pending
// calls fail once, the owner is told.
func (a *httpActor) stopping(ctx actor.Context) {
	if a.conn.isDone() {
		return
	}
	err := a.stoppedError()
	a.core.failAll(err)
	a.sink.abortAll()
	if a.listen != nil {
		a.listen.stop()
	}
	if a.legacy != nil && a.legacy.cancel != nil {
		a.legacy.cancel()
	}
	if a.core.owner != nil {
		ctx.Send(a.core.owner, TransportClosed{Err: err, Generation: a.cfg.Generation, Transport: a.conn.id})
	}
}

func (a *httpActor) stoppedError() error {
	if a.conn.isDone() {
		return nil
	}
	cause := errStoppedByParent
	if a.panicked != nil {
		cause = &PanicError{Value: a.panicked}
	}
	return callerr.NewTransportClosed(&callerr.Error{Server: a.cfg.Server, Cause: cause})
}

func (a *httpActor) publish(err error) {
	if a.conn.isDone() {
		return
	}
	if err == nil {
		err = callerr.NewTransportClosed(&callerr.Error{Server: a.cfg.Server})
	}
	a.conn.end.err, a.conn.end.byUser = err, a.byUser
	close(a.conn.end.done)
	a.conn.end.endLife()
}

// validSessionID checks the form the specification requires of a session
// id: visible ASCII only (0x21 to 0x7E).
func validSessionID(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7E {
			return false
		}
	}
	return true
}
