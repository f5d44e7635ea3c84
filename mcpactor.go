// Package mcpactor is an MCP (Model Context Protocol) client runtime built
// on actors: each server connection is a client actor running the protocol
// handshake over a transport actor that owns the subprocess or HTTP session
// and the map of pending requests.
//
// A program starts one Runtime, connects servers and calls their tools:
//
//	rt, err := mcpactor.Start(ctx, mcpactor.Options{})
//	...
//	defer rt.Stop(ctx)
//	c, err := rt.Connect(ctx, "files", mcpactor.ServerConfig{Command: "my-server"})
//	...
//	res, err := c.CallTool(ctx, "read", map[string]any{"path": "README.md"})
package mcpactor

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/sourcegraph/conc"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
)

// The public names, re-exported so that most programs import only this package.
type (
	// Client is the handle on one server connection.
	Client = actors.Client
	// ServerConfig says how to reach a server and how patient to be with it.
	ServerConfig = actors.ServerConfig
	// Handlers answer server-to-client requests and receive notifications.
	Handlers = actors.Handlers
	// CallOptions tune one tool call.
	CallOptions = actors.CallOptions
	// Notification is a server notification delivered to Handlers.Notification.
	Notification = actors.Notification
)

// Errors callers test with errors.Is; the typed errors in package messages
// (TimeoutError, RPCError, TransportClosedError, ...) carry the details.
var (
	ErrTransportClosed    = messages.ErrTransportClosed
	ErrTimeout            = messages.ErrTimeout
	ErrConnectTimeout     = messages.ErrConnectTimeout
	ErrServerNotConnected = messages.ErrServerNotConnected
	ErrUnsupportedVersion = messages.ErrUnsupportedVersion
	// ErrStopped is returned by Connect after Stop.
	ErrStopped = errors.New("mcpactor: runtime stopped")
)

// Options configure a Runtime. The zero value is ready to use.
type Options struct {
	// ClientInfo is sent to servers in initialize; zero names mcpactor.
	ClientInfo messages.Implementation
	// Handlers answer server requests (roots, sampling, elicitation) and
	// receive notifications, for every server of this runtime.
	Handlers Handlers
	// Logger receives lifecycle events and reports of dropped input; nil
	// discards them.
	Logger *slog.Logger
	// StderrLine, if set, receives each line a stdio server writes to stderr,
	// in order, on a goroutine per server. A callback slower than the
	// server loses lines (counted in Client.Stats) rather than blocking it.
	StderrLine func(server, line string)
	// NotificationQueue bounds each server's queue of undelivered
	// notifications (default 1024; the oldest is dropped when full).
	NotificationQueue int
	// Telemetry chooses where spans and metrics go. The zero value uses
	// the global OpenTelemetry providers, which cost nothing until the
	// application installs real ones; Disabled switches instrumentation
	// off entirely.
	Telemetry telemetry.Options
}

// Runtime owns the actor system and every client started from it.
type Runtime struct {
	system    *actor.ActorSystem
	env       actors.Env
	tel       *telemetry.Telemetry
	unobserve func()

	// The set of live clients, so that Stop can close them. It is guarded by
	// a mutex because it belongs to the caller-facing handle, not to an
	// actor; no protocol state lives here.
	mu      sync.Mutex
	clients map[*Client]struct{}
	stopped bool
}

// Start creates a runtime. ctx is accepted for symmetry with Stop and future
// start-up work (discovery); Start itself does not block.
func Start(ctx context.Context, opts Options) (*Runtime, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		// protoactor's own chatter (dead letters after a stop, for
		// instance) is expected here and only noise at Info.
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}))
	rt := &Runtime{
		system: system,
		env: actors.Env{
			ClientInfo:        opts.ClientInfo,
			Handlers:          opts.Handlers,
			Logger:            logger,
			StderrLine:        opts.StderrLine,
			NotificationQueue: opts.NotificationQueue,
		},
		clients: make(map[*Client]struct{}),
	}
	if !opts.Telemetry.Disabled {
		rt.tel = telemetry.New(opts.Telemetry)
		rt.env.Telemetry = rt.tel
		rt.unobserve = rt.tel.RegisterMailboxDepth(rt.observeMailboxes)
	}
	return rt, nil
}

// Open starts connecting to the server name and returns at once. Requests
// made on the client wait for the handshake (bounded by the connect
// timeout). Use Connect to wait for it.
func (rt *Runtime) Open(name string, cfg ServerConfig) (*Client, error) {
	if err := cfg.Validate(name); err != nil {
		return nil, err
	}
	if t := cfg.TransportType(); t != actors.TypeStdio {
		return nil, &actors.UnknownTypeError{Type: t + " (not supported yet)"}
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.stopped {
		return nil, ErrStopped
	}
	c := actors.Spawn(rt.system.Root, name, cfg, rt.env, rt.forget)
	rt.clients[c] = struct{}{}
	return c, nil
}

// Connect starts the server name and waits until its handshake is done. On
// failure everything started for it has been torn down and the error says
// why: a *messages.ConnectTimeoutError, an unsupported protocol version, or
// the transport's end with the server's exit status and stderr tail.
func (rt *Runtime) Connect(ctx context.Context, name string, cfg ServerConfig) (*Client, error) {
	c, err := rt.Open(name, cfg)
	if err != nil {
		return nil, err
	}
	if err := c.WaitReady(ctx); err != nil {
		// Torn down completely before returning. If the caller's context
		// has ended, Close skips the grace periods (the process is
		// killed), so Connect does not overrun the caller's deadline.
		closeCtx := ctx
		if ctx.Err() == nil {
			closeCtx = context.WithoutCancel(ctx)
		}
		c.Close(closeCtx)
		return nil, err
	}
	return c, nil
}

func (rt *Runtime) forget(c *Client) {
	rt.mu.Lock()
	delete(rt.clients, c)
	rt.mu.Unlock()
}

// Stop closes every client concurrently (each in order: pending requests
// failed, server asked to exit, then killed) and waits until all are gone,
// or until ctx ends (actors.DefaultCloseTimeout when it has no deadline):
// then the servers left are killed and Stop returns at once, with an error
// naming each client whose teardown had not finished. As with Close, no
// callback runs after Stop returns. Stop is idempotent.
func (rt *Runtime) Stop(ctx context.Context) error {
	rt.mu.Lock()
	if rt.stopped {
		rt.mu.Unlock()
		return nil
	}
	rt.stopped = true
	clients := make([]*Client, 0, len(rt.clients))
	for c := range rt.clients {
		clients = append(clients, c)
	}
	rt.mu.Unlock()

	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, actors.DefaultCloseTimeout)
		defer cancel()
	}
	errs := make([]error, len(clients))
	var wg conc.WaitGroup
	for i, c := range clients {
		wg.Go(func() { errs[i] = c.Close(ctx) })
	}
	wg.Wait()
	rt.system.Shutdown()
	if rt.tel != nil {
		rt.unobserve()
		rt.tel.Close()
	}
	return errors.Join(errs...)
}

// observeMailboxes reports, for the mailbox-depth gauge, how many frames
// each server's transport has read and not yet handled.
func (rt *Runtime) observeMailboxes(observe func(server string, depth int64)) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for c := range rt.clients {
		observe(c.Name(), int64(c.MailboxDepth()))
	}
}
