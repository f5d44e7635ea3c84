// Package mcpactor is an MCP (Model Context Protocol) client runtime built
// on actors, for programs that talk to many MCP servers at once with
// thousands of requests in flight.
//
// A program starts one Runtime, connects servers and calls their tools:
//
//	rt, err := mcpactor.Start(ctx, mcpactor.Options{})
//	...
//	defer rt.Stop(ctx)
//	c, err := rt.Connect(ctx, "files", mcpactor.ServerConfig{Command: "my-server"})
//	...
//	res, err := c.CallTool(ctx, "read", map[string]any{"path": "README.md"})
//
// Each server is a client actor running the protocol handshake
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle)
// over a transport actor that owns the server's process and the table of
// pending requests; the Client handle talks to them by messages, never
// through shared state. Every request ends exactly once (result, error,
// timeout or cancellation), bad input is counted and skipped, every queue is
// bounded in count and in bytes, and Close and Stop are bounded by their
// context. The MCP payload types (Tool, CallToolResult, ...) live in package
// messages. docs/architecture.md in the repository has the design.
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
	"github.com/mcpactor/mcpactor/telemetry"
)

// Runtime owns the actor system and every client started from it.
type Runtime struct {
	system    *actor.ActorSystem
	env       actors.Env
	tel       *telemetry.Telemetry
	unobserve func()
	ownsHTTP  bool // env.HTTPClient was made by Start, so Stop closes it

	// The set of live clients, so that Stop can close them. It is guarded by
	// a mutex because it belongs to the caller-facing handle, not to an
	// actor; no protocol state lives here.
	mu       sync.Mutex
	clients  map[*actors.Client]struct{}
	managers []*Manager
	stopped  bool
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
			ClientInfo:            opts.ClientInfo,
			Handlers:              actors.Handlers(opts.Handlers),
			Logger:                logger,
			StderrLine:            opts.StderrLine,
			NotificationQueue:     opts.NotificationQueue,
			MaxNotificationBytes:  opts.MaxNotificationBytes,
			MaxConcurrentHandlers: opts.MaxConcurrentHandlers,
			HTTPClient:            opts.HTTPClient,
		},
		clients: make(map[*actors.Client]struct{}),
	}
	if !opts.Telemetry.Disabled {
		rt.tel = telemetry.New(opts.Telemetry)
		rt.env.Telemetry = rt.tel
		rt.unobserve = rt.tel.RegisterMailboxDepth(rt.observeMailboxes)
	}
	rt.env = rt.env.Shared()
	// A client the caller gave us may serve others; one we made is ours to
	// close.
	rt.ownsHTTP = opts.HTTPClient == nil
	return rt, nil
}

// Open starts connecting to the server name and returns at once. Requests
// made on the client wait for the handshake (bounded by the connect
// timeout). Use Connect to wait for it.
func (rt *Runtime) Open(name string, cfg ServerConfig) (*Client, error) {
	return rt.open(context.Background(), name, cfg)
}

// open starts a client whose handshake belongs to ctx's trace.
func (rt *Runtime) open(ctx context.Context, name string, cfg ServerConfig) (*Client, error) {
	ecfg := actors.ServerConfig(cfg)
	if err := ecfg.Validate(name); err != nil {
		return nil, err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.stopped {
		return nil, ErrStopped
	}
	h := actors.SpawnContext(ctx, rt.system.Root, name, ecfg, rt.env, rt.forget)
	rt.clients[h] = struct{}{}
	return &Client{h: h}, nil
}

// Connect starts the server name and waits until its handshake is done. On
// failure everything started for it has been torn down and the error says
// why: a *StartError, a *ConnectTimeoutError, an unsupported protocol
// version, or the server's end with its exit status and stderr.
func (rt *Runtime) Connect(ctx context.Context, name string, cfg ServerConfig) (*Client, error) {
	c, err := rt.open(ctx, name, cfg)
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

func (rt *Runtime) forget(c *actors.Client) {
	rt.mu.Lock()
	delete(rt.clients, c)
	rt.mu.Unlock()
}

// Stop closes every client concurrently (each in order: pending requests
// failed, server asked to exit, then killed) and waits until all are gone,
// or until ctx ends (DefaultCloseTimeout when it has no deadline): then the
// servers left are killed and Stop returns within 100 ms, with an error for
// each client whose teardown had not finished. As with Close, no callback
// runs after Stop returns. Stop is idempotent.
func (rt *Runtime) Stop(ctx context.Context) error {
	rt.mu.Lock()
	if rt.stopped {
		rt.mu.Unlock()
		return nil
	}
	rt.stopped = true
	clients := make([]*actors.Client, 0, len(rt.clients))
	for c := range rt.clients {
		clients = append(clients, c)
	}
	managers := rt.managers
	rt.mu.Unlock()

	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultCloseTimeout)
		defer cancel()
	}
	errs := make([]error, len(clients)+len(managers))
	var wg conc.WaitGroup
	for i, c := range clients {
		wg.Go(func() { errs[i] = c.Close(ctx) })
	}
	for i, m := range managers {
		wg.Go(func() { errs[len(clients)+i] = m.Close(ctx) })
	}
	wg.Wait()
	if rt.ownsHTTP {
		// Without this the kept-alive connections to HTTP servers (and a
		// reader and writer goroutine each) outlive the runtime until the
		// server or the idle timeout closes them.
		rt.env.HTTPClient.CloseIdleConnections()
	}
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
