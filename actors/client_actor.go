package actors

import (
	"context"
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/sourcegraph/conc"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// state is where a client is in its life (behaviour.md §8).
type state uint8

const (
	stateHandshaking state = iota // transport started, handshake running
	stateReady                    // requests flow straight to the transport
	stateBroken                   // the transport ended on its own
	stateClosing                  // Close asked; tearing down
)

// clientActor owns one server connection's protocol state: the handshake
// state machine, the server requests being served, the notification queue.
// Callers never reach it on the hot path: once ready, the Client handle
// talks to the transport actor directly (architecture.md, "A request, end to
// end").
type clientActor struct {
	h       *Client
	env     Env
	era     era
	conn    *transport.Conn
	state   state
	stopHS  context.CancelFunc            // cancels the running handshake
	serving map[string]context.CancelFunc // server request id -> its handler's cancel
	work    conc.WaitGroup                // handler goroutines
	notes   *noteQueue
	force   context.CancelFunc // skips the grace periods of a Close in progress
	// readyErr is why the handshake did not establish a session. It is
	// published when the teardown has finished (behaviour.md §8: a failed
	// connect is torn down completely before it is reported).
	readyErr error
	// The session, for telemetry: when the connection started, what it
	// negotiated, and whether its duration has been recorded.
	started      time.Time
	sess         *session
	sessionEnded bool
	// tornDown is set once the teardown has been reported; the actor then
	// stops as soon as its transport child has terminated.
	tornDown bool
}

// Messages the client actor receives besides the transport's.
type (
	handshakeDone struct {
		sess *session
		err  error
	}
	handlerDone  struct{ key string }
	closeClient  struct{}
	forceClient  struct{}
	teardownDone struct{}
)

func (a *clientActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case messages.InboundRequest:
		a.serve(ctx, m)
	case messages.InboundNotification:
		a.notification(m)
	case handlerDone:
		delete(a.serving, m.key)
	case *actor.Started:
		a.start(ctx)
	case handshakeDone:
		a.handshakeDone(ctx, m)
	case messages.TransportClosed:
		a.endSession(m.Err)
		if a.state < stateBroken {
			a.state = stateBroken
			a.cancelHandlers()
			a.env.Logger.Warn("mcp: server connection ended", "server", a.h.name, "err", m.Err)
		}
	case closeClient:
		a.close(ctx)
	case forceClient:
		if a.force != nil {
			a.force()
		}
	case teardownDone:
		a.endSession(nil)
		// Only a handshake that never succeeded is still unpublished.
		a.h.publishReady(nil, a.conn, a.failedConnectError())
		a.h.publishClosed()
		a.tornDown = true
		a.stopWhenAlone(ctx)
	case *actor.Terminated:
		a.stopWhenAlone(ctx)
	}
}

// stopWhenAlone stops the actor after its teardown, but only once the
// transport child has stopped itself: stopping earlier would make protoactor
// send the child a Stop it can no longer receive, a dead letter whose logging
// throttle leaves a goroutine running for a second after Runtime.Stop.
func (a *clientActor) stopWhenAlone(ctx actor.Context) {
	if a.tornDown && len(ctx.Children()) == 0 {
		ctx.Stop(ctx.Self())
	}
}

func (a *clientActor) start(ctx actor.Context) {
	a.serving = make(map[string]context.CancelFunc)
	a.notes = newNoteQueue(a.env.NotificationQueue, a.h.name, a.deliver, &a.h.droppedNotes, a.env.Logger)
	cfg := &a.h.cfg
	a.conn = transport.SpawnStdio(ctx, ctx.ActorSystem().Root, ctx.Self(), transport.StdioConfig{
		Server:         a.h.name,
		Command:        cfg.Command,
		Args:           cfg.Args,
		Env:            cfg.Env,
		Dir:            cfg.Cwd,
		RequestTimeout: cfg.RequestTimeout,
		MaxInFlight:    cfg.MaxInFlight,
		MaxFrameSize:   cfg.MaxFrameSize,
		CloseGrace:     cfg.CloseGrace,
		TermGrace:      cfg.TermGrace,
		StderrLine:     a.stderrLine(),
		OnDrop:         a.onDrop(),
		Logger:         a.env.Logger,
	})
	a.started = time.Now()
	hsCtx, cancel := context.WithTimeoutCause(context.Background(), cfg.connectTimeout(), errConnectDeadline)
	a.stopHS = cancel
	root, self, conn, e := ctx.ActorSystem().Root, ctx.Self(), a.conn, a.era
	go func() {
		sess, err := e.handshake(hsCtx, conn)
		if err != nil {
			err = connectError(hsCtx, a.h.name, cfg, err)
		}
		root.Send(self, handshakeDone{sess: sess, err: err})
	}()
}

func (a *clientActor) stderrLine() func(string) {
	if a.env.StderrLine == nil {
		return nil
	}
	name, f := a.h.name, a.env.StderrLine
	return func(line string) { f(name, line) }
}

func (a *clientActor) handshakeDone(ctx actor.Context, m handshakeDone) {
	a.stopHS()
	if m.err == nil && a.state == stateHandshaking {
		a.state = stateReady
		a.sess = m.sess
		a.h.publishReady(m.sess, a.conn, nil)
		return
	}
	switch {
	case a.state == stateClosing:
		// Close was asked during the handshake; close recorded why.
		return
	case m.err == nil:
		// Succeeded, but the transport ended meanwhile (stateBroken).
		m.err = &messages.TransportClosedError{Server: a.h.name}
	}
	// A failed connect, or a server that died during it, is torn down
	// completely (behaviour.md §8), so a late success cannot leak a
	// process; teardownDone then reports the error.
	a.env.Logger.Warn("mcp: handshake failed", "server", a.h.name, "err", m.err)
	a.readyErr = m.err
	a.close(ctx)
	if errors.Is(m.err, messages.ErrConnectTimeout) {
		// The connect timeout is spent and the server never answered:
		// the grace periods of an orderly close would only make the
		// caller wait past its deadline. Kill it now.
		a.force()
	}
}

// failedConnectError is the error a failed handshake reports once the
// teardown has finished. When the transport ended, its own final error
// (exit status, stderr tail) says more than whichever request noticed
// first: an initialize whose write failed knows only "broken pipe".
func (a *clientActor) failedConnectError() error {
	err := a.readyErr
	if err == nil || errors.Is(err, messages.ErrTransportClosed) {
		if final := a.conn.Err(); final != nil {
			return final
		}
	}
	if err == nil {
		err = &messages.TransportClosedError{Server: a.h.name}
	}
	return err
}

// close tears everything down without blocking the actor: the transport's
// orderly shutdown and the wait for handler goroutines run on a goroutine
// that reports back with teardownDone.
func (a *clientActor) close(ctx actor.Context) {
	if a.state == stateClosing {
		return
	}
	if a.state == stateHandshaking && a.readyErr == nil {
		// Closed by its user before the handshake ended: those waiting
		// for it learn that the connection is closed, not that the
		// handshake's context was cancelled.
		a.readyErr = &messages.TransportClosedError{Server: a.h.name}
	}
	a.state = stateClosing
	a.stopHS()
	a.cancelHandlers()
	a.notes.close() // no pushes after this: notification() checks the state
	closeCtx, force := context.WithCancel(context.Background())
	a.force = force
	root, self, conn, notes := ctx.ActorSystem().Root, ctx.Self(), a.conn, a.notes
	go func() {
		defer force()
		conn.Close(closeCtx)
		a.work.Wait()
		select {
		case <-notes.done:
		case <-time.After(notificationDrainTimeout):
		}
		root.Send(self, teardownDone{})
	}()
}

func (a *clientActor) cancelHandlers() {
	for _, cancel := range a.serving {
		cancel()
	}
}

func (a *clientActor) deliver(server string, n Notification) {
	if f := a.env.Handlers.Notification; f != nil {
		f(server, n)
	}
}

// notificationDrainTimeout bounds how long Close lets queued notifications
// reach a slow subscriber.
const notificationDrainTimeout = 5 * time.Second

// endSession records mcp.client.session.duration once, from the start of
// the connection to its end (session era only; telemetry.md, "Metrics").
func (a *clientActor) endSession(err error) {
	if a.sess == nil || a.sessionEnded {
		return
	}
	a.sessionEnded = true
	a.env.Telemetry.SessionEnded(&a.sess.peer, a.started, err)
}

// onDrop feeds the transport's drops to the dropped-frames counter.
func (a *clientActor) onDrop() func(string) {
	tel, name := a.env.Telemetry, a.h.name
	if tel == nil {
		return nil
	}
	return func(reason string) { tel.Dropped(name, reason, 1) }
}
