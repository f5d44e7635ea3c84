package actors

import (
	"context"
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
		a.h.publishClosed()
		ctx.Stop(ctx.Self())
	}
}

func (a *clientActor) start(ctx actor.Context) {
	a.serving = make(map[string]context.CancelFunc)
	a.notes = newNoteQueue(a.env.NotificationQueue, a.h.name, a.deliver)
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
		Logger:         a.env.Logger,
	})
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
	if a.state != stateHandshaking {
		// Closed or broken meanwhile: the handle has its answer already.
		if m.err == nil {
			m.err = a.conn.Err()
		}
		a.h.publishReady(nil, a.conn, orClosed(m.err, a.h.name))
		return
	}
	if m.err != nil {
		// A failed connect is torn down completely before it is reported
		// (behaviour.md §8), so a late success cannot leak a process.
		a.env.Logger.Warn("mcp: handshake failed", "server", a.h.name, "err", m.err)
		a.h.publishReady(nil, a.conn, m.err)
		a.close(ctx)
		return
	}
	a.state = stateReady
	a.h.publishReady(m.sess, a.conn, nil)
}

func orClosed(err error, server string) error {
	if err != nil {
		return err
	}
	return &messages.TransportClosedError{Server: server}
}

// close tears everything down without blocking the actor: the transport's
// orderly shutdown and the wait for handler goroutines run on a goroutine
// that reports back with teardownDone.
func (a *clientActor) close(ctx actor.Context) {
	if a.state == stateClosing {
		return
	}
	wasHandshaking := a.state == stateHandshaking
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
	_ = wasHandshaking // the handshake goroutine reports on its own; it fails fast now
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
