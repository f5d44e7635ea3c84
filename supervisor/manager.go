// Package supervisor holds the manager: the supervisor actor of a set of
// servers (docs/architecture.md, "The manager"). It owns their client
// actors (its children), starts them concurrently with a bound on
// handshakes in flight, offers the tools of servers still starting from
// the tool-list cache at the startup gate, restarts servers whose
// connection dies (a new connection generation on the same client, with
// exponential backoff and jitter, and a circuit breaker), pings them when
// asked to (keepalive), and keeps the tool list. It is never on a call's
// path: it publishes a read-only snapshot (tool names to client handles,
// statuses) that callers read; calls go to the server's transport as
// always.
//
// What it runs comes from package supervisor/config, the names it offers
// tools under from supervisor/naming, and the lists it offers early from
// supervisor/toolcache. It is an engine package; the supported API is the
// root package, github.com/mcpactor/mcpactor.
package supervisor

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/toolcache"
	"github.com/mcpactor/mcpactor/telemetry"
)

// ManagerOptions configure Manage. The zero value of each field is its
// documented default.
type ManagerOptions struct {
	// Servers are the servers to run (from a file, discovery, or code).
	Servers []*Server
	// Env is what the clients share (handlers, logger, telemetry, the
	// HTTP client); the runtime passes its own.
	Env actors.Env
	// Gate is how long Manage waits for servers before offering the ones
	// still starting from the tool-list cache (default 250 ms). Servers
	// without a cache entry are awaited, up to their connect timeout.
	Gate time.Duration
	// MaxConnecting bounds the handshakes in flight (default 8).
	MaxConnecting int
	// Cache keeps tool lists across runs; nil keeps none. The manager
	// reads and writes it off its actor; Close waits for the writes.
	Cache *toolcache.Cache
	// Approve is asked before a server that needs approval (project-level,
	// or running a command from a project file) is started; nil refuses
	// them all: opening a cloned repository must not run its commands.
	// It is called off the manager's actor, one server at a time, so it
	// may take its time (ask a person): only that server waits, in
	// StateConnecting. A panic in it is logged and refuses the server.
	Approve func(*Server) bool
	// FailFast makes calls to a server that is restarting fail at once;
	// by default they wait for the restart, bounded by their context and
	// by RestartWait (manager_wait.go).
	FailFast bool
	// RestartWait bounds a call's wait for a server that is restarting
	// or starting; 0 is the server's connect timeout (30 s by default).
	RestartWait time.Duration
	// BreakerBackoff is how long a server whose restarts failed too often
	// rests, its breaker open, before a first trial connection (default
	// 5 s; jittered down to half); each trial that fails doubles it, up
	// to BreakerRetry (default 5 minutes). A trial that succeeds closes
	// the breaker (manager_restart.go).
	BreakerBackoff time.Duration
	BreakerRetry   time.Duration
	// OnEvent hears of tool-list and state changes, in order, on a
	// goroutine of its own; a slow one loses the oldest events (counted).
	OnEvent func(Event)
	// Logger reports the manager's decisions; nil uses Env.Logger.
	Logger *slog.Logger
	// Startup says how long Manage waits for the servers to start
	// (default StartupWaitUncached).
	Startup StartupPolicy

	// storeCache replaces Cache.Store, for the tests of a disk that
	// does not keep up (export_test.go).
	storeCache func(toolcache.Key, *toolcache.Entry) error
	// listedHook, when set, is called off the actor once each of the
	// manager's lists of a server ("tools", "prompts", "resources") is
	// fetched, before the actor hears of it: a test holds a list in
	// flight there (export_test.go).
	listedHook func(server, kind string)
	// catalogStall replaces defaultCatalogStall (manager_catalog.go), for the
	// tests of the catalogs held during a bring-up (export_test.go).
	catalogStall time.Duration
}

// StartupPolicy is how long Manage waits for its servers
// (ManagerOptions.Startup). Servers still starting when Manage returns
// go on starting: each is StateConnecting in Status, and its tools arrive
// with an EventToolsChanged. The root package re-exports it as
// mcpactor.StartupPolicy.
type StartupPolicy int

// The startup policies.
const (
	// StartupWaitUncached, the default, returns once every server is up
	// or has failed, or once the gate (Gate) has passed and every server
	// still starting has tools from the cache to offer meanwhile: a
	// server without a cached list is awaited up to its connect timeout.
	StartupWaitUncached StartupPolicy = iota
	// StartupGate returns when the gate passes (or sooner, once every
	// server has settled), whatever is uncached: a slow server without a
	// cached list is offered with no tools until it is up.
	StartupGate
	// StartupImmediate returns at once, before any server is up.
	StartupImmediate
)

// Defaults of ManagerOptions.
const (
	DefaultGate          = 250 * time.Millisecond
	defaultMaxConnecting = 8
	defaultBreakerRetry  = 5 * time.Minute
	// DefaultBreakerBackoff is the rest before a breaker's first trial.
	DefaultBreakerBackoff = 5 * time.Second
	// keepaliveFailures is how many keepalive pings in a row may fail
	// before a live-looking server is judged stuck and restarted.
	keepaliveFailures = 3
)

func (o *ManagerOptions) setDefaults() {
	if o.Gate <= 0 {
		o.Gate = DefaultGate
	}
	if o.MaxConnecting <= 0 {
		o.MaxConnecting = defaultMaxConnecting
	}
	if o.BreakerRetry <= 0 {
		o.BreakerRetry = defaultBreakerRetry
	}
	if o.BreakerBackoff <= 0 {
		o.BreakerBackoff = DefaultBreakerBackoff
	}
	if o.catalogStall <= 0 {
		o.catalogStall = defaultCatalogStall
	}
	o.Env = o.Env.Shared()
	if o.Logger == nil {
		o.Logger = o.Env.Logger
	}
}

// Manager is the handle on a manager actor. Its methods are safe for
// concurrent use.
type Manager struct {
	root   *actor.RootContext
	pid    *actor.PID
	snap   atomic.Pointer[snapshot]
	events *eventQueue
	// cacheWrites writes the tool lists off the actor; nil without a
	// cache.
	cacheWrites *cacheWriter
	done        chan struct{}
	closed      atomic.Bool // Close was called: calls fail with callerr.NewManagerClosed()
	failFast    bool
	waitBound   time.Duration                // ManagerOptions.RestartWait
	skills      atomic.Pointer[skillListing] // the last ListSkills (manager_skills.go)
}

// Manage starts a manager for opts.Servers under parent (the runtime's
// root context) and waits as opts.Startup says: by default it returns
// once every server is ready or failed, or once the gate has passed and
// every server still starting has tools from the cache to offer
// meanwhile, or when ctx ends (the manager then goes on starting them).
// opts.Servers may be empty: servers can be added later (Add).
func Manage(ctx context.Context, root *actor.RootContext, opts ManagerOptions) (*Manager, error) {
	opts.setDefaults()
	m := &Manager{root: root, done: make(chan struct{}), failFast: opts.FailFast, waitBound: opts.RestartWait}
	m.events = newEventQueue(opts.OnEvent, opts.Logger)
	m.cacheWrites = newCacheWriter(opts.Cache, opts.storeCache, opts.Logger)
	m.snap.Store(newSnapshot())
	trace := telemetry.Detach(ctx)
	props := actor.PropsFromProducer(func() actor.Actor {
		a := newManagerActor(m, opts)
		a.trace = trace
		return a
	},
		actor.WithGuardian(actors.StopOnPanic()), actor.WithSupervisor(actors.StopOnPanic()))
	m.pid = root.Spawn(props)
	gate := make(chan struct{})
	if opts.Startup == StartupImmediate {
		// Only until the actor has taken the servers in: Status then
		// shows each of them, connecting.
		root.Send(m.pid, awaitStarted{reply: gate})
	} else {
		root.Send(m.pid, awaitGate{reply: gate})
	}
	select {
	case <-gate:
	case <-ctx.Done():
		return m, context.Cause(ctx)
	}
	return m, nil
}

// Tools returns every tool of every server, by exposed name: the live
// tools of the servers that are up, and the cached tools of those still
// starting (Cached is then set; a call waits for the server).
func (m *Manager) Tools() []Tool {
	tools, _ := m.snap.Load().exposed.get()
	return slices.Clone(tools)
}

// CallTool calls a tool by its exposed name (mcp__<server>__<tool>) on the
// server that offers it. A tool offered from the cache waits for its
// server's connection, bounded by ctx and the connect timeout.
func (m *Manager) CallTool(ctx context.Context, exposed string, args any) (*messages.CallToolResult, error) {
	return m.CallToolWith(ctx, exposed, args, actors.Call{})
}

// CallToolWith is CallTool with per-call options.
func (m *Manager) CallToolWith(ctx context.Context, exposed string, args any, call actors.Call) (*messages.CallToolResult, error) {
	ref, err := m.route(ctx, exposed, messages.MethodToolsCall)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res, err := ref.client.CallToolWith(ctx, ref.tool, args, call)
	ref.latency.record(time.Since(start))
	m.observe(ref.server, ref.health, err)
	return res, m.waitedOut(ctx, err, ref.server, messages.MethodToolsCall, start)
}

// observe counts a call's transport failures; the one that reaches
// CallFailureThreshold tells the manager actor (the only message a call
// ever sends it).
func (m *Manager) observe(server string, h *callHealth, err error) {
	if h.observe(err) {
		m.root.Send(m.pid, callsFailing{name: server, health: h, err: err})
	}
}

// unavailable returns the error of a call to a server that cannot take
// it now, or nil: a failed server, an open breaker, one disabled or not
// approved; with FailFast, one restarting or unhealthy too (otherwise
// such a call waits for the restart, bounded by its context).
func (m *Manager) unavailable(s *snapshot, server string) error {
	v := s.server(server)
	if v == nil {
		return nil
	}
	switch v.state {
	case StateFailed, StateBreakerOpen, StateDisabled, StateRefused:
	case StateRestarting, StateUnhealthy:
		if !m.failFast {
			return nil
		}
	default:
		return nil
	}
	return callerr.NewUnavailable(&callerr.Error{Server: server, State: v.state.String(), Cause: v.lastErr})
}

// route finds the client that serves an exposed tool name. A tool offered
// from the cache may belong to a server that has no client yet (it waits
// for a handshake slot, or for its !command values): the call waits for
// one, bounded by ctx and the server's connect timeout, as it would wait
// for the handshake of a client that exists.
func (m *Manager) route(ctx context.Context, exposed, method string) (toolRef, error) {
	var expired <-chan time.Time
	var wait time.Duration
	for {
		if m.closed.Load() {
			return toolRef{}, callerr.NewManagerClosed()
		}
		s := m.snap.Load()
		ref, ok := s.tool(exposed)
		if !ok {
			o := owner(s, exposed)
			if !listing(o) {
				return ref, unknownName(o, exposed)
			}
			// Its server is listing its tools for the first time:
			// wait for the list, bounded as a handshake is (below).
			ref = toolRef{server: o.srv.Name, connectTimeout: o.srv.Spec.ConnectTimeout}
		} else if err := m.unavailable(s, ref.server); err != nil {
			return ref, err
		}
		switch v := s.server(ref.server); {
		case ref.client != nil && v != nil && waiting(v.state):
			// Restarting, or starting: wait for it to be ready, bounded
			// (manager_wait.go).
			if _, err := m.awaitReady(ctx, s, ref.server, method); err != nil {
				return ref, err
			}
			// Ready: look the tool up again, since the restart may have
			// brought another client and another tool list.
			continue
		case ref.client != nil:
			return ref, nil
		case v == nil:
			return ref, callerr.NewUnavailable(&callerr.Error{Server: ref.server})
		case ok && v.state != StateConnecting:
			return ref, callerr.NewUnavailable(&callerr.Error{Server: ref.server, State: v.state.String(), Cause: v.lastErr})
		}
		if expired == nil {
			wait = ref.connectTimeout
			if wait <= 0 {
				wait = actors.DefaultConnectTimeout
			}
			t := time.NewTimer(wait)
			defer t.Stop()
			expired = t.C
		}
		select {
		case <-s.replaced:
		case <-expired:
			return ref, callerr.NewConnectTimeout(&callerr.Error{Server: ref.server, After: wait})
		case <-m.done:
			return ref, callerr.NewManagerClosed()
		case <-ctx.Done():
			return ref, callerr.NewCanceled(&callerr.Error{Server: ref.server, Method: method, Cause: context.Cause(ctx)})
		}
	}
}

// Client returns the client of a server, for its other methods.
func (m *Manager) Client(server string) (*actors.Client, bool) {
	v := m.snap.Load().server(server)
	if v == nil || v.client == nil {
		return nil, false
	}
	return v.client, true
}

// Has reports whether the manager has a server of this name, whatever
// its state (connecting, awaiting approval, disabled, failed), as it last
// published its servers.
func (m *Manager) Has(name string) bool { return m.snap.Load().server(name) != nil }

// servers returns every server as the manager last published it, by
// name.
func (m *Manager) servers() []*serverView {
	views := slices.Collect(m.snap.Load().views.all())
	slices.SortFunc(views, func(a, b *serverView) int { return compare(a.srv.Name, b.srv.Name) })
	return views
}

// Add starts a server (replacing a server of the same name whose
// configuration differs).
func (m *Manager) Add(ctx context.Context, s *Server) error {
	if m.closed.Load() {
		return callerr.NewManagerClosed()
	}
	return m.ask(ctx, func(reply chan error) any { return addServer{srv: s, trace: telemetry.Detach(ctx), reply: reply} })
}

// Remove stops a server and drops its tools, whatever it is doing
// (connecting included): nothing of it is left running.
func (m *Manager) Remove(ctx context.Context, name string) error {
	if m.closed.Load() {
		return callerr.NewManagerClosed()
	}
	return m.ask(ctx, func(reply chan error) any { return removeServer{name: name, reply: reply} })
}

// Restart tries a server again now: a new connection, its restart
// budget renewed, whatever it was doing (a breaker's rest, a restart's
// backoff, a start that failed, a ready connection); from an open
// breaker, the connection is its trial. It returns once the server is
// ready with its tools listed, or with an ErrServerUnavailable error (its state and last
// error) once the attempt failed, or when ctx ends. A disabled server,
// or one not approved, is not started.
func (m *Manager) Restart(ctx context.Context, name string) error {
	if m.closed.Load() {
		return callerr.NewManagerClosed()
	}
	if err := m.ask(ctx, func(reply chan error) any { return restartServer{name: name, reply: reply} }); err != nil {
		return err
	}
	for {
		s := m.snap.Load()
		v := s.server(name)
		switch {
		case v == nil:
			return callerr.NewUnknownServer(&callerr.Error{Server: name})
		case v.state == StateReady && !v.toolsPending:
			return nil
		case v.state != StateConnecting && v.state != StateReady:
			return callerr.NewUnavailable(&callerr.Error{Server: name, State: v.state.String(), Cause: v.lastErr})
		}
		select {
		case <-s.replaced:
		case <-m.done:
			return callerr.NewManagerClosed()
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// Reload makes the managed servers those of servers: new ones start,
// missing ones stop, changed ones (by configuration hash) restart, and
// unchanged ones go on undisturbed, tools and all.
func (m *Manager) Reload(ctx context.Context, servers []*Server) error {
	if m.closed.Load() {
		return callerr.NewManagerClosed()
	}
	return m.ask(ctx, func(reply chan error) any {
		return reloadServers{servers: servers, trace: telemetry.Detach(ctx), reply: reply}
	})
}

// Close stops every server (concurrently, each bounded by ctx) and the
// manager, and waits for the tool lists still being written to the
// cache. It returns when all are done or ctx ends.
func (m *Manager) Close(ctx context.Context) error {
	m.closed.Store(true)
	// errkind.ErrStopped here means the manager finished closing (for this
	// call or a concurrent one, or it stopped on its own) before its
	// answer was read: not a failure, and the cache is flushed all the
	// same.
	err := m.ask(ctx, func(reply chan error) any { return closeManager{ctx: ctx, reply: reply} })
	if err != nil && !errors.Is(err, errkind.ErrStopped) {
		return err
	}
	select {
	case <-m.done:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	m.events.close()
	return m.cacheWrites.flush(ctx)
}

func (m *Manager) ask(ctx context.Context, msg func(chan error) any) error {
	reply := make(chan error, 1)
	select {
	case <-m.done:
		return callerr.NewManagerClosed()
	default:
	}

	m.root.Send(m.pid, msg(reply))
	select {
	case err := <-reply:
		return err
	case <-m.done:
		return callerr.NewManagerClosed()
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
