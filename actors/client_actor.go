package actors

import (
	"context"
	"errors"
	"runtime/debug"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/sourcegraph/conc"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/redact"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// state is where the current generation is in its life.
type state uint8

const (
	stateHandshaking state = iota // transport started, handshake running
	stateReady                    // requests flow straight to the transport
	stateBroken                   // the transport ended, or the handshake failed
)

// clientActor owns one server's protocol state across its connection
// generations: the handshake state machine of the current one, the
// transports still running (the current one, and old ones finishing their
// close), the server requests being served, the notification queue.
// Callers never reach it on the hot path: once a generation is ready, the
// Client handle talks to its transport actor directly (docs/architecture.md,
// "One CallTool, end to end").
type clientActor struct {
	h   *Client
	env Env
	// supervisor, if set, hears of each connection's outcome and decides
	// restarts (the manager); nil for a client spawned at the root.
	supervisor *actor.PID
	// held is a generation published ahead of its connection (a restart's
	// backoff, with callers waiting for it).
	held      *generation
	legacy    *sessionProtocol   // the initialize handshake
	stateless *statelessProtocol // the 2026-07-28 probe and session
	gen       *generation        // the current generation
	state     state              // of the current generation
	// conns are the transports that have not yet reported their end, by
	// generation.
	conns map[uint64]*transport.Conn
	// abandoned are the transports (by ID) whose generation went on over
	// another: a Streamable HTTP attempt that fell back to legacy SSE.
	abandoned map[uint64]struct{}
	// fellBack is why the current handshake's Streamable HTTP attempt
	// gave way to legacy HTTP+SSE, while that runs.
	fellBack error
	stopHS   context.CancelFunc // cancels the running handshake
	// hsTrace is the trace the current generation's handshake belongs
	// to, and why it connects (telemetry's mcpactor.task.reason): its
	// connect task span is a child of hsTrace's span, if any.
	hsTrace  context.Context
	hsReason string
	// failed holds why the current generation's handshake failed, while
	// its transport is torn down; the generation is published with it
	// once the transport is gone (a failed connect leaves nothing behind).
	failed  error
	serving map[servingKey]served
	// servingBytes is the size of the params of the requests being
	// served, bounded by maxServingBytes.
	servingBytes int64
	work         conc.WaitGroup // handler goroutines
	notes        *noteQueue
	closing      bool
	force        context.CancelFunc // skips the grace periods of a Close in progress
	tornDown     bool               // the teardown is over; stop once the children have
	// The current session, for telemetry: when its connection started,
	// what it negotiated, and whether its duration has been recorded.
	started      time.Time
	sess         *session
	sessionEnded bool
	// panicked is the value of a panic in Receive, for the error the
	// handle's callers get while the actor is stopped.
	panicked any
	// wanted is what the client asked of the server that a new connection
	// must ask again: the log level, the resource subscriptions.
	wanted wanted
	// listen is the subscriptions/listen stream of a stateless connection.
	listen *listening
}

// Messages the client actor receives besides the transports'.
type (
	handshakeDone struct {
		gen  uint64
		kind string // the transport it ran over
		sess *session
		err  error
	}
	handlerDone struct {
		key   servingKey
		bytes int64
	}
	closeClient     struct{}
	forceClient     struct{}
	teardownDone    struct{}
	reconnectClient struct{ reply chan *generation }
	clientPanic     struct{ value any } // see injectPanic
)

// stopOnPanic is the supervisor strategy for client actors (as the
// guardian of those spawned at the root) and for their transports: a panic
// stops the actor and never restarts it with stale state. Restarting a
// server is the manager's decision, as a new connection generation.
var stopOnPanic = actor.NewOneForOneStrategy(0, 0, func(any) actor.Directive { return actor.StopDirective })

func (a *clientActor) Receive(ctx actor.Context) {
	defer a.recoverPanic()
	switch m := ctx.Message().(type) {
	case transport.InboundRequest:
		a.serve(ctx, m)
	case transport.InboundNotification:
		a.notification(m)
	case handlerDone:
		delete(a.serving, m.key)
		a.servingBytes -= m.bytes
	case *actor.Started:
		a.start(ctx)
	case handshakeDone:
		a.handshakeDone(ctx, m)
	case transport.TransportClosed:
		a.transportClosed(ctx, m)
	case RestartServer:
		a.restart(ctx, m)
	case transport.SessionExpired:
		if m.Generation == a.gen.n && a.state == stateReady && !a.closing {
			a.env.Logger.Info("mcp: session expired; starting a new one", "server", a.h.name, "generation", m.Generation)
			a.reconnect(ctx, reasonSessionExpired)
		}
	case remember:
		a.wanted.note(m)
		a.syncListen(ctx)
	case listenEnded:
		a.listenEnded(ctx, m)
	case reopenListen:
		if m.gen == a.gen.n {
			a.syncListen(ctx)
		}
	case reconnectClient:
		m.reply <- a.reconnect(ctx, reasonReconnect)
	case closeClient:
		a.close(ctx)
	case forceClient:
		if a.force != nil {
			a.force()
		}
	case teardownDone:
		a.endSession(nil)
		a.h.publishClosed()
		a.tornDown = true
		a.stopWhenAlone(ctx)
	case clientPanic:
		panic(m.value)
	case *actor.Terminated:
		a.stopWhenAlone(ctx)
	case *actor.Stopping:
		a.stopping()
	case *actor.Stopped:
		a.h.publishClosed()
	}
}

// recoverPanic logs a panic with its stack, which is only available here,
// and lets it go on to the guardian (stopOnPanic), which stops the actor.
func (a *clientActor) recoverPanic() {
	if r := recover(); r != nil {
		a.env.Logger.Error("mcp: client actor panicked; stopping it", "server", a.h.name,
			"panic", r, "stack", string(debug.Stack()))
		a.panicked = r
		panic(r)
	}
}

// stopWhenAlone stops the actor after its teardown, but only once its
// transport children have stopped themselves: stopping earlier would make
// protoactor send a child a Stop it can no longer receive, a dead letter
// whose logging throttle leaves a goroutine running for a second after
// Runtime.Stop.
func (a *clientActor) stopWhenAlone(ctx actor.Context) {
	if a.tornDown && len(ctx.Children()) == 0 {
		ctx.Stop(ctx.Self())
	}
}

func (a *clientActor) start(ctx actor.Context) {
	a.serving = make(map[servingKey]served)
	a.conns = make(map[uint64]*transport.Conn)
	a.abandoned = make(map[uint64]struct{})
	a.notes = newNoteQueue(a.env.NotificationQueue, a.env.MaxNotificationBytes, a.h.name, a.deliver, &a.h.droppedNotes, a.env.Logger)
	a.connect(ctx, a.h.gen.Load(), reasonFirst)
}

// Why a connection is made: the mcpactor.task.reason of its connect task
// span.
const (
	reasonFirst          = "first"
	reasonRestart        = "restart"
	reasonReconnect      = "reconnect"
	reasonSessionExpired = "session_expired"
	reasonFallback       = "legacy_fallback"
)

// connect starts generation g: a new transport and the handshake over it.
// An http server already found to speak only legacy HTTP+SSE is reached
// that way at once.
func (a *clientActor) connect(ctx actor.Context, g *generation, reason string) {
	kind := a.h.cfg.TransportType()
	if kind == typeHTTP && a.env.memo.isLegacy(a.h.cfg.HTTP.URL) {
		kind = typeSSE
	}
	a.gen, a.state, a.failed, a.fellBack = g, stateHandshaking, nil, nil
	a.started, a.sess, a.sessionEnded = time.Now(), nil, false
	cfg := &a.h.cfg
	parent := context.Background()
	if g.n == 1 {
		parent = a.h.spawnCtx
	}
	a.hsTrace, a.hsReason = parent, reason
	hsCtx, cancel := context.WithTimeoutCause(parent, cfg.connectTimeout(), errConnectDeadline)
	a.stopHS = cancel
	a.shake(ctx, g, kind, hsCtx)
}

// shake spawns a transport of the given kind for generation g and runs the
// handshake over it on a goroutine, bounded by hsCtx (the connect timeout).
// After it: the GET listener (HTTP), and what the client had asked of the
// previous connection (log level, subscriptions), so that a repaired
// connection is what the old one was.
func (a *clientActor) shake(ctx actor.Context, g *generation, kind string, hsCtx context.Context) {
	conn := a.spawnTransport(ctx, g.n, kind)
	a.conns[g.n] = conn
	a.env.Logger.Debug("mcp: connecting", "server", a.h.name, "generation", g.n, "transport", kind)
	root, self, e, name, cfg := ctx.ActorSystem().Root, ctx.Self(), a.protocolFor(kind), a.h.name, &a.h.cfg
	restore := a.wanted.snapshot()
	peer := basePeer(name, cfg, a.h.mask)
	tel, reason := a.env.Instruments, a.hsReason
	stream := a.serverStream()
	go func() {
		// One connection is one trace: its handshake's requests (and what
		// it asks again of a repaired connection) are children of its
		// connect task span, not root traces of their own.
		tctx, task := tel.StartTask(hsCtx, telemetry.TaskConnect, &peer, reason)
		sess, err := e.handshake(tctx, conn, peer)
		if err == nil && !sess.stateless {
			if stream.opens(sess.capabilities) {
				conn.Listen(hsCtx)
			}
			restore.apply(tctx, conn, sess, a.env, name)
		}
		if err != nil {
			err = connectError(hsCtx, conn, name, cfg, err)
		} else {
			task.SetPeer(sess.peer)
		}
		task.End(err, false)
		root.Send(self, handshakeDone{gen: g.n, kind: kind, sess: sess, err: err})
	}()
}

// eraFor returns how a connection over a transport of kind starts: the
// negotiation between the protocols, which the legacy HTTP+SSE transport skips
// (it predates the stateless protocol's probe).
func (a *clientActor) protocolFor(kind string) protocol {
	cfg := &a.h.cfg
	return &negotiator{legacy: a.legacy, stateless: a.stateless, pinned: cfg.ProtocolVersion, probe: kind != typeSSE,
		probeTimeout: cfg.probeTimeout(), memo: a.env.memo, key: serverKey(cfg), shareProbe: kind == typeHTTP}
}

// stderrLine feeds the server's stderr to Env.StderrLine while the
// client's callbacks are allowed to run; a line that comes after they
// were shut (a forced Close) is counted in Stats.DroppedStderrLines.
func (a *clientActor) stderrLine() func(string) {
	if a.env.StderrLine == nil {
		return nil
	}
	name, f, h := a.h.name, a.env.StderrLine, a.h
	return func(line string) {
		if !h.callback("StderrLine", func() { f(name, h.mask.Text(line)) }) {
			h.stats.DropStderrLine()
		}
	}
}

func (a *clientActor) handshakeDone(ctx actor.Context, m handshakeDone) {
	if m.gen != a.gen.n || a.closing {
		return // a generation already replaced or closed, which published its end
	}
	conn := a.conns[m.gen]
	if m.err != nil && m.kind == typeHTTP && legacyHint(m.err) && a.state == stateHandshaking && conn != nil {
		// The server answered the initialize POST as a server of the
		// legacy HTTP+SSE transport does: try that once, on the same
		// generation and within the same connect timeout
		// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility).
		// The attempt's transport ends on its own; its end is not the
		// generation's (abandoned).
		a.env.Logger.Info("mcp: falling back to the legacy HTTP+SSE transport", "server", a.h.name, "err", m.err)
		a.fellBack = m.err
		delete(a.conns, m.gen)
		a.abandoned[conn.ID()] = struct{}{}
		conn.BeginClose(nil)
		hsCtx, cancel := context.WithTimeoutCause(a.hsTrace, time.Until(a.started.Add(a.h.cfg.connectTimeout())), errConnectDeadline)
		a.stopHS()
		a.stopHS = cancel
		a.hsReason = reasonFallback
		a.shake(ctx, a.gen, typeSSE, hsCtx)
		return
	}
	a.stopHS()
	fellBack := a.fellBack
	a.fellBack = nil
	if m.err == nil && a.state == stateHandshaking {
		if fellBack != nil {
			a.env.memo.setLegacy(a.h.cfg.HTTP.URL, true)
		}
		a.state, a.sess = stateReady, m.sess
		a.env.Logger.Debug("mcp: connected", "server", a.h.name, "generation", m.gen,
			"protocol_version", m.sess.version, "server_name", m.sess.info.Name, "server_version", m.sess.info.Version)
		a.gen.finish(conn, m.sess, nil)
		a.syncListen(ctx)
		a.tell(ctx, ServerReady{Server: a.h.name, Client: a.h, Generation: m.gen, ProtocolVersion: m.sess.version})
		return
	}
	if m.err == nil {
		// Succeeded, but the transport ended meanwhile.
		m.err = callerr.NewTransportClosed(&callerr.Error{Server: a.h.name})
	}
	if fellBack != nil {
		// Neither transport worked: the user needs both answers (a URL
		// that is wrong answers 404 to both).
		m.err = callerr.NewFallback(&callerr.Error{Server: a.h.name, URL: redact.URL(a.h.cfg.HTTP.URL)}, m.err, fellBack)
	}
	// A failed connect, or a server that died during it, is torn down
	// completely before it is reported, so a late success cannot leak a
	// process; transportClosed publishes the error.
	m.err = a.h.masked(m.err)
	a.env.Logger.Warn("mcp: handshake failed", "server", a.h.name, "generation", m.gen, "err", m.err)
	a.state, a.failed = stateBroken, m.err
	if conn == nil {
		err := a.failedConnectError(nil)
		a.gen.finish(nil, nil, err)
		a.tell(ctx, ServerDown{Server: a.h.name, Client: a.h, Generation: m.gen, Err: err, Connecting: true})
		return
	}
	conn.BeginClose(nil)
	if callerr.ConnectTimeout(m.err) != nil {
		// The connect timeout is spent and the server never answered:
		// the grace periods of an orderly close would only make the
		// caller wait past its deadline. Kill it now.
		conn.Kill()
	}
}

// transportClosed handles the end of a transport, current or old.
func (a *clientActor) transportClosed(ctx actor.Context, m transport.TransportClosed) {
	if _, ok := a.abandoned[m.Transport]; ok {
		// The Streamable HTTP attempt a legacy HTTP+SSE fallback
		// replaced in this generation: its end is not the generation's.
		delete(a.abandoned, m.Transport)
		return
	}
	conn := a.conns[m.Generation]
	delete(a.conns, m.Generation)
	a.cancelHandlers(m.Generation)
	if m.Generation != a.gen.n || a.closing {
		return
	}
	a.stopListen()
	switch a.state {
	case stateReady:
		m.Err = a.h.masked(m.Err)
		a.state = stateBroken
		a.endSession(m.Err)
		a.env.Logger.Warn("mcp: server connection ended", "server", a.h.name, "generation", m.Generation, "err", m.Err)
		a.tell(ctx, ServerDown{Server: a.h.name, Client: a.h, Generation: m.Generation, Err: m.Err})
	case stateBroken:
		// The teardown of a failed handshake is over: report it.
		err := a.failedConnectError(conn)
		a.gen.finish(conn, nil, err)
		a.tell(ctx, ServerDown{Server: a.h.name, Client: a.h, Generation: m.Generation, Err: err, Connecting: true})
	case stateHandshaking:
		// The handshake's request fails with this end and reports.
		a.state = stateBroken
	}
}

// failedConnectError is the error a failed handshake reports once the
// teardown has finished. When the transport ended, its own final error
// (exit status, stderr tail) says more than whichever request noticed
// first: an initialize whose write failed knows only "broken pipe".
func (a *clientActor) failedConnectError(conn *transport.Conn) error {
	if fe, ok := a.failed.(*callerr.Error); ok && callerr.Fallback(fe) == fe {
		legacy, streamable := fallbackAttempts(fe)
		a.failed = legacy
		return callerr.NewFallback(&callerr.Error{Server: fe.Server, URL: fe.URL}, a.failedConnectError(conn), streamable)
	}
	err := a.failed
	if err == nil || errors.Is(err, errkind.ErrTransportClosed) {
		if conn != nil {
			if final := conn.Err(); final != nil {
				return a.h.masked(final)
			}
		}
	}
	if err == nil {
		err = callerr.NewTransportClosed(&callerr.Error{Server: a.h.name})
	}
	return err
}

// reconnect starts the next generation: the current transport is closed
// (its pending calls fail with a connection-replaced error) while a new one starts and
// shakes hands. Callers that arrive meanwhile wait for the new generation.
func (a *clientActor) reconnect(ctx actor.Context, reason string) *generation {
	if a.closing {
		return nil
	}
	old := a.gen
	next := a.held
	a.held = nil
	if next == nil {
		next = newGeneration(old.n + 1)
	}
	a.stopHS()
	a.stopListen()
	a.endSession(nil)
	why := callerr.NewReplaced(&callerr.Error{Server: a.h.name, Generation: old.n, Next: next.n})
	if conn := a.conns[old.n]; conn != nil {
		conn.BeginClose(why)
	}
	a.cancelHandlers(old.n)
	a.env.Logger.Debug("mcp: reconnecting", "server", a.h.name, "generation", next.n)
	// Publish the new generation before ending the old one, so that its
	// waiters find where to go next.
	if a.h.gen.Load() != next {
		a.h.publish(next)
	}
	old.finish(a.conns[old.n], nil, why)
	a.connect(ctx, next, reason)
	return next
}

// restart is the supervisor's request for a new generation: held (callers
// wait for it) until the supervisor's backoff is over, then connected.
func (a *clientActor) restart(ctx actor.Context, m RestartServer) {
	if a.closing {
		return
	}
	if m.Hold && a.held == nil {
		a.held = newGeneration(a.gen.n + 1)
		a.h.publish(a.held)
	}
	if m.Now {
		a.reconnect(ctx, reasonRestart)
	}
}

// tell informs the supervisor, if any, of a connection's outcome.
func (a *clientActor) tell(ctx actor.Context, msg any) {
	if a.supervisor != nil {
		ctx.Send(a.supervisor, msg)
	}
}

// close tears everything down without blocking the actor: the transports'
// orderly shutdowns and the waits for handler goroutines and the
// notification queue run on a goroutine that reports back with
// teardownDone. Each wait ends when the work is done or when the Close
// that asked for it runs out of time (forceClient), whichever is first.
func (a *clientActor) close(ctx actor.Context) {
	if a.closing {
		return
	}
	a.closing = true
	a.stopHS()
	a.stopListen()
	last := a.gen
	// Closed by its user before the handshake ended: those waiting for it
	// learn that the connection is closed, not that the handshake's
	// context was cancelled. The final generation is complete before it
	// is published, so that its watchers read it whole.
	final := newGeneration(last.n + 1)
	final.final = true
	final.finish(nil, nil, closedError(a.h.name, last))
	a.h.publish(final)
	last.finish(a.conns[last.n], nil, callerr.NewTransportClosed(&callerr.Error{Server: a.h.name, Closed: true}))
	a.cancelHandlers(0)
	a.notes.close() // no pushes after this: notification() checks closing
	a.env.Logger.Debug("mcp: closing", "server", a.h.name, "generation", last.n)

	closeCtx, force := context.WithCancel(context.Background())
	a.force = force
	conns := make([]*transport.Conn, 0, len(a.conns))
	for _, conn := range a.conns {
		conn.BeginClose(nil)
		conns = append(conns, conn)
	}
	root, self, notes := ctx.ActorSystem().Root, ctx.Self(), a.notes
	work := a.handlersDone()
	go func() {
		defer force()
		for _, conn := range conns {
			select {
			case <-conn.Done():
			case <-closeCtx.Done():
				conn.Kill()
				// A killed process is reaped at once; Close itself has
				// already returned, so this wait holds up nobody.
				<-conn.Done()
			}
		}
		select {
		case <-work:
		case <-closeCtx.Done(): // handlers that ignore their context are abandoned
		}
		select {
		case <-notes.done:
		case <-closeCtx.Done(): // so is a subscriber that never returns
		}
		root.Send(self, teardownDone{})
	}()
}

// handlersDone returns a channel closed when the handler goroutines have
// all returned. The goroutine that waits for them outlives Close only as
// long as an abandoned handler does.
func (a *clientActor) handlersDone() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		a.work.Wait()
		close(done)
	}()
	return done
}

// stopping runs when the actor is stopped before its teardown: a panic, or
// the actor system shutting down. protoactor stops the transports (their
// own Stopping kills and reaps the processes and fails their calls); what
// is left is to tell the handle's callers, once.
func (a *clientActor) stopping() {
	if a.tornDown {
		return
	}
	a.closing = true
	if a.stopHS != nil {
		a.stopHS()
	}
	cause := error(callerr.NewTransportClosed(&callerr.Error{Server: a.h.name, Cause: errClientStopped}))
	if a.panicked != nil {
		cause = a.h.masked(callerr.NewTransportClosed(&callerr.Error{Server: a.h.name, Cause: &transport.PanicError{Value: a.panicked}}))
	}
	if last := a.h.gen.Load(); !last.final {
		final := newGeneration(last.n + 1)
		final.final = true
		final.finish(nil, nil, cause)
		a.h.publish(final)
		last.finish(a.conns[last.n], nil, cause)
	}
	a.cancelHandlers(0)
	if a.notes != nil {
		a.notes.close()
	}
	a.endSession(cause)
}

// errClientStopped is the cause when a client actor is stopped without
// Close: its actor system shut down under it.
var errClientStopped = errors.New("client actor stopped")

func (a *clientActor) deliver(server string, n inboundNote) {
	var err error
	switch h := &a.env.Handlers; {
	case h.NotificationContext != nil:
		if !a.h.callback("Handlers.NotificationContext", func() { h.NotificationContext(n.ctx, server, n.n) }) {
			err = errCallbacksShut
		}
	case h.Notification != nil:
		if !a.h.callback("Handlers.Notification", func() { h.Notification(server, n.n) }) {
			err = errCallbacksShut
		}
	}
	n.op.End(err, false)
}

// errCallbacksShut ends the span of a notification that came too late for
// the client's callbacks (a forced Close had shut them).
var errCallbacksShut = errors.New("notification not delivered: the client's callbacks are shut")

// endSession records mcp.client.session.duration once per generation, from
// the start of its connection to its end (session protocol only; see
// docs/telemetry.md). An asked-for close is not a failure.
func (a *clientActor) endSession(err error) {
	if a.sess == nil || a.sessionEnded || a.sess.stateless {
		return // the stateless protocol has no session to time
	}
	a.sessionEnded = true
	if closed := callerr.TransportClosed(err); closed != nil && closed.Closed {
		err = nil
	}
	a.env.Instruments.SessionEnded(&a.sess.peer, a.started, err)
}

// fallbackAttempts are the legacy and the Streamable HTTP failures a
// fallback error joins (callerr.NewFallback).
func fallbackAttempts(fe *callerr.Error) (legacy, streamable error) {
	if j, ok := fe.Cause.(interface{ Unwrap() []error }); ok {
		if both := j.Unwrap(); len(both) == 2 {
			return both[0], both[1]
		}
	}
	return fe.Cause, nil
}
