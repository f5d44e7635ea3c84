package actors

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/redact"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// Client is the handle on one MCP server. Its methods are safe for
// concurrent use. A Client outlives its connections: each one is a
// generation (see Generation), and a repair replaces the connection under
// the same handle. Requests made before a handshake has finished wait for
// it (bounded by the connect timeout); afterwards they go straight to the
// transport actor, without a hop through the client actor.
type Client struct {
	name string
	cfg  Spec
	root *actor.RootContext
	pid  *actor.PID

	gen    atomic.Pointer[generation] // the current generation; never nil
	closed chan struct{}              // closed when the client is closed for good and released
	stats  *transport.Counters        // over every generation

	callbacks    callbackGate
	abandoned    atomic.Int64 // callbacks still running when Close returned
	panicked     atomic.Int64 // callbacks that panicked (recovered)
	progressSeq  atomic.Int64
	tel          *telemetry.Telemetry // nil when telemetry is off
	mask         *redact.Masker       // the server's credentials, masked in all the client produces (masking.go)
	droppedNotes atomic.Int64         // written by the notification queue
	closeOnce    sync.Once
	giveUp       chan struct{} // closed by a forced Close: Done waits no longer for stderr lines
	giveUpOnce   sync.Once
	onClosed     func(*Client)
	log          *slog.Logger
	spawnCtx     context.Context // the trace the first handshake belongs to
	handlers     Handlers        // for the input requests of the stateless protocol
	// logLevel is the level the caller set; the stateless protocol sends it
	// with every request instead of logging/setLevel.
	logLevel atomic.Pointer[messages.LoggingLevel]
}

// Spawn starts a client for the server name under root and returns at once;
// the handshake runs in the background. onClosed, if set, runs once the
// client is fully closed. The first handshake's spans are children of the
// span in ctx (only the trace context is kept, not the cancellation), so a
// program's "connect" step shows its handshakes; later connections
// (repairs) start traces of their own.
func Spawn(ctx context.Context, root *actor.RootContext, name string, cfg Spec, env Env, onClosed func(*Client)) *Client {
	return spawn(ctx, root, root, nil, name, cfg, env, onClosed)
}

// SpawnSupervised starts a client as a child of the actor parent (the
// manager, or a runtime's owner), which then supervises it: the child tells
// parent of each connection's outcome (ServerReady,
// ServerDown), and restarts only when asked
// (RestartServer). A panic in the client stops it; parent's own
// supervisor strategy must say so (StopOnPanic). The first handshake's
// spans belong to ctx's trace, as with Spawn.
func SpawnSupervised(ctx context.Context, parent actor.Context, name string, cfg Spec, env Env, onClosed func(*Client)) *Client {
	return spawn(ctx, parent, parent.ActorSystem().Root, parent.Self(), name, cfg, env, onClosed)
}

// StopOnPanic returns the supervisor strategy of the actors that own
// clients: a panicking client stops (its transports with it) and is never
// restarted by protoactor with stale state.
func StopOnPanic() actor.SupervisorStrategy { return stopOnPanic }

func spawn(ctx context.Context, parent actor.SpawnerContext, root *actor.RootContext, supervisor *actor.PID,
	name string, cfg Spec, env Env, onClosed func(*Client)) *Client {
	env = env.withDefaults()
	mask := maskerOf(name, &cfg)
	// Every record of this client and of its transports goes through the
	// masking handler: what a server echoed of its configuration, or a
	// URL with its key in the path, is masked whoever logs it.
	env.Logger = mask.Logger(env.Logger)
	h := &Client{name: name, cfg: cfg, root: root, closed: make(chan struct{}), giveUp: make(chan struct{}), onClosed: onClosed, tel: env.Instruments, log: env.Logger, mask: mask}
	h.spawnCtx = telemetry.Detach(ctx)
	caps := env.Handlers.capabilities()
	caps.Extensions = withExtensions(env.Extensions, cfg.Extensions)
	h.handlers = env.Handlers
	h.stats = transport.NewCounters(dropReporter(env.Instruments, env.Logger, h.telemetryName()))
	h.gen.Store(newGeneration(1))
	opts := []actor.PropsOption{actor.WithSupervisor(stopOnPanic)}
	if supervisor == nil {
		opts = append(opts, actor.WithGuardian(stopOnPanic))
	}
	// The producer reads the configuration from h: capturing cfg would
	// keep a second copy of it on the heap for the client's life.
	props := actor.PropsFromProducer(func() actor.Actor {
		return &clientActor{h: h, env: env, supervisor: supervisor,
			legacy:    newSessionProtocol(name, h.cfg.ProtocolVersion, caps, env),
			stateless: &statelessProtocol{server: name, caps: withTasks(caps), info: env.ClientInfo, tel: env.Instruments}}
	}, opts...)
	h.pid = parent.Spawn(props)
	return h
}

// PID is the client actor's address, for the actor that supervises it.
func (c *Client) PID() *actor.PID { return c.pid }

// publishClosed closes Done, once. The server's stderr lines read before
// its transport ended may still wait for Env.StderrLine (the transport
// hands them over on a goroutine of its own): Done, and so Close, waits
// for them to be delivered before the callbacks are shut, unless a forced
// Close gives up waiting; a line that comes too late for the callbacks is
// counted in Stats.DroppedStderrLines (stderrLine). None vanishes.
func (c *Client) publishClosed() {
	c.closeOnce.Do(func() {
		idle := c.stats.StderrIdle()
		select {
		case <-idle:
			c.release()
		default:
			go c.releaseAfterStderr(idle)
		}
	})
}

// releaseAfterStderr releases the client once its queued stderr lines have
// been delivered, a forced Close has given up on them, or
// DefaultCloseTimeout has passed (a callback stuck with nobody closing).
func (c *Client) releaseAfterStderr(idle <-chan struct{}) {
	t := time.NewTimer(DefaultCloseTimeout)
	defer t.Stop()
	select {
	case <-idle:
	case <-c.giveUp:
	case <-t.C:
	}
	c.release()
}

// release shuts the callbacks and closes Done.
func (c *Client) release() {
	c.shutCallbacks()
	if c.onClosed != nil {
		c.onClosed(c)
	}
	close(c.closed)
}

// stopWaiting tells releaseAfterStderr not to wait any longer.
func (c *Client) stopWaiting() { c.giveUpOnce.Do(func() { close(c.giveUp) }) }

// Name returns the server's configured name.
func (c *Client) Name() string { return c.name }

// WaitReady waits for the current generation's handshake to end and
// returns its error, if any.
func (c *Client) WaitReady(ctx context.Context) error {
	_, err := c.current(ctx)
	return err
}

// ServerInfo returns the server's name and version from the current
// generation's handshake (zero before it has succeeded).
func (c *Client) ServerInfo() messages.Implementation {
	if s := c.gen.Load().established(); s != nil {
		return s.info
	}
	return messages.Implementation{}
}

// Capabilities returns what the server declared in the current
// generation's handshake.
func (c *Client) Capabilities() messages.ServerCapabilities {
	if s := c.gen.Load().established(); s != nil {
		return s.capabilities
	}
	return messages.ServerCapabilities{}
}

// Instructions returns the server's instructions for the model, if any.
func (c *Client) Instructions() string {
	if s := c.gen.Load().established(); s != nil {
		return s.instructions
	}
	return ""
}

// ProtocolVersion returns the protocol version the current generation
// negotiated.
func (c *Client) ProtocolVersion() string {
	if s := c.gen.Load().established(); s != nil {
		return s.version
	}
	return ""
}

// MailboxDepth reports the messages from the server's reader waiting in the
// current transport actor's mailbox, each a run of frames read together (0
// before the handshake).
func (c *Client) MailboxDepth() int {
	if g := c.gen.Load(); g.established() != nil && g.conn != nil {
		return g.conn.MailboxDepth()
	}
	return 0
}

// InFlight reports the requests of the current generation queued or
// awaiting an answer.
func (c *Client) InFlight() int {
	if g := c.gen.Load(); g.isReady() && g.conn != nil {
		return g.conn.InFlight()
	}
	return 0
}

// Err returns why the current generation ended or failed to connect, or
// nil while it connects or is usable.
func (c *Client) Err() error {
	g := c.gen.Load()
	switch {
	case !g.isReady():
		return nil
	case g.err != nil:
		return g.err
	case g.conn != nil:
		return c.masked(g.conn.Err())
	}
	return nil
}

// Done is closed when the client has been closed for good and everything
// it started (processes, goroutines) is gone, except user callbacks that
// Close abandoned. A repair does not close it.
func (c *Client) Done() <-chan struct{} { return c.closed }

// Reconnect starts a new connection generation (a new transport and
// handshake) and waits for its handshake, bounded by ctx. Calls still
// pending on the old connection fail with an ErrTransportClosed error
// whose cause says the connection was replaced; calls made meanwhile wait for the new
// connection. It returns the new handshake's error, if any.
func (c *Client) Reconnect(ctx context.Context) error {
	reply := make(chan *generation, 1)
	c.root.Send(c.pid, reconnectClient{reply: reply})
	var g *generation
	select {
	case g = <-reply:
	case <-c.closed:
		return closedError(c.name, nil)
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	if g == nil {
		return c.gen.Load().err // closed meanwhile
	}
	select {
	case <-g.ready:
		return g.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// DefaultCloseTimeout bounds Close and Runtime.Stop when their context has
// no deadline of its own: the stdio shutdown's two grace periods (2 s each
// by default) with room to spare.
const DefaultCloseTimeout = 10 * time.Second

// forceWait is how long Close waits, after its context has ended, for the
// forced teardown (a kill and a reap) to finish.
const forceWait = 100 * time.Millisecond

// Close ends the client for good: pending requests fail with
// ErrTransportClosed, the server is asked to exit (for stdio: stdin closed,
// then SIGTERM, then SIGKILL), and Close returns when it has been reaped
// and every handler has returned, or when ctx ends (DefaultCloseTimeout
// when it has no deadline), whichever is first. When ctx ends first the
// remaining grace periods are skipped (the server is killed) and Close
// returns within 100 ms; if the teardown had not finished by then, with an
// ErrTimeout error (it finishes on its own, and Done tells when).
// Either way, no callback of this client
// (handlers, Handlers.Notification, Env.StderrLine) starts after Close
// returns; those still running are abandoned, counted in
// Stats.AbandonedCallbacks and logged, and their answers are never sent.
func (c *Client) Close(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultCloseTimeout)
		defer cancel()
	}
	c.root.Send(c.pid, closeClient{})
	var err error
	select {
	case <-c.closed:
	case <-ctx.Done():
		// Forced, the teardown abandons what it waited for and kills the
		// server; that takes milliseconds, which Close still waits for,
		// up to forceWait, so that a close held up only by a stuck
		// callback still reports success.
		c.stopWaiting()
		c.root.Send(c.pid, forceClient{})
		t := time.NewTimer(forceWait)
		defer t.Stop()
		select {
		case <-c.closed:
		case <-t.C:
			err = callerr.NewIncompleteClose(&callerr.Error{Server: c.name, Cause: context.Cause(ctx)})
		}
	}
	c.shutCallbacks()
	return err
}

// callback runs user code f (what names it in the log) unless the client
// has closed, and reports whether it ran. A panic in it is the callback's
// bug, not the runtime's: it is recovered, logged with its stack and
// counted (Stats.PanickedCallbacks), and the goroutine that called goes on
// delivering.
func (c *Client) callback(what string, f func()) bool {
	return c.callbacks.run(func() {
		defer func() {
			if p := recover(); p != nil {
				c.panicked.Add(1)
				c.logger().Error("mcp: callback panicked", "server", c.name, "callback", what,
					"panic", p, "stack", string(debug.Stack()))
			}
		}()
		f()
	})
}

// shutCallbacks lets no callback of the client start again, and counts
// the ones still running, which are abandoned.
func (c *Client) shutCallbacks() {
	if n := c.callbacks.shutAndCount(); n > 0 {
		c.abandoned.Add(int64(n))
		c.logger().Warn("mcp: close abandoned callbacks still running", "server", c.name, "callbacks", n)
	}
}

// currentObserved is current, with the wait for the handshake shown on op.
func (c *Client) currentObserved(ctx context.Context, op *telemetry.Op) (*generation, error) {
	if c.gen.Load().isReady() {
		return c.current(ctx)
	}
	op.Queued("handshake")
	defer op.Dequeued()
	g, err := c.current(ctx)
	if err == nil {
		// The span started before the connection was known: its
		// version, session id and the HTTP protocol version come from
		// the handshake, on the span and on the metric point alike.
		if s := g.established(); s != nil {
			op.SetPeer(s.peer)
		}
	}
	return g, err
}

// peer describes the server for telemetry: the session's Peer once the
// handshake is done, else what the configuration says (the transport, and
// an HTTP server's address and port), so that a request issued while the
// connection comes up is not described as a stdio one.
func (c *Client) peer() telemetry.Peer {
	if s := c.gen.Load().established(); s != nil {
		return s.peer
	}
	return basePeer(c.name, &c.cfg, c.mask)
}

// telemetryName is the server's name in telemetry: Spec.TelemetryName,
// else the client's name.
func (c *Client) telemetryName() string {
	if c.cfg.TelemetryName != "" {
		return c.cfg.TelemetryName
	}
	return c.name
}

// logger is where the client's events go.
func (c *Client) logger() *slog.Logger {
	if c.log != nil {
		return c.log
	}
	return slog.New(slog.DiscardHandler)
}

func snippet(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}
