package mcpactor

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor"
)

// ManageOptions say which servers a Manager runs and how.
type ManageOptions struct {
	// ConfigFile is an mcpServers JSON file to run (docs/configuration.md).
	// It bypasses discovery.
	ConfigFile string
	// Servers are servers given in code, by name, run beside ConfigFile's
	// (a file's server of the same name wins).
	Servers map[string]ServerConfig
	// Discover, when set and ConfigFile is empty, finds the servers other
	// MCP clients are configured with (docs/configuration.md, "Discovery"):
	// Claude Code, Codex, Gemini CLI, Cursor, Windsurf, VS Code and plain
	// mcp.json files, in that order after our own.
	Discover *DiscoverOptions
	// Approve is asked before starting a server that needs approval: a
	// project-level server, or one running a command from a project file
	// (opening a cloned repository must not run its commands). nil
	// starts none of them.
	// It runs on the manager's actor and must answer at once: ask the
	// person first (supervisor.Discover lists the servers and which need
	// approval), then let Approve look the answer up.
	Approve func(*Server) bool
	// Gate is how long Manage waits before offering the tools of servers
	// still starting from the tool-list cache (default 250 ms); servers
	// without a cached list are awaited, up to their connect timeout.
	Gate time.Duration
	// MaxConnecting bounds the handshakes in flight (default 8).
	MaxConnecting int
	// CacheDir is where tool lists are kept across runs; "" uses
	// os.UserCacheDir()/mcpactor, and NoCache keeps none.
	CacheDir string
	NoCache  bool
	// FailFast makes calls to a restarting server fail at once; by
	// default they wait for the restart (bounded by their context and the
	// connect timeout).
	FailFast bool
	// BreakerRetry is how long a server whose restarts failed too often
	// rests before it is tried again (default 5 minutes).
	BreakerRetry time.Duration
	// OnEvent hears of tool-list and state changes, in order, on a
	// goroutine of its own.
	OnEvent func(ManagerEvent)
}

// The manager's types, documented in package supervisor.
type (
	// Server is a configured server: its ServerConfig, where it came from
	// (Source), its restart policy, keepalive and whether it needs approval.
	Server = supervisor.Server
	// ServerStatus is one managed server's state: connecting, ready,
	// restarting, breaker open, unhealthy, disabled; its source, protocol
	// version, last error, restarts, requests in flight, p50/p99.
	ServerStatus = supervisor.Status
	// ManagedTool is a tool by its exposed name (mcp__<server>__<tool>).
	ManagedTool = supervisor.Tool
	// ManagerEvent is a change in the managed servers.
	ManagerEvent = supervisor.Event
	// DiscoverOptions choose the discovery sources and directories.
	DiscoverOptions = supervisor.DiscoverOptions
	// ServerState is ServerStatus.State.
	ServerState = supervisor.State
)

// The states of a managed server (ServerStatus.State).
const (
	StateConnecting  = supervisor.StateConnecting
	StateReady       = supervisor.StateReady
	StateRestarting  = supervisor.StateRestarting
	StateBreakerOpen = supervisor.StateBreakerOpen
	StateUnhealthy   = supervisor.StateUnhealthy
	StateDisabled    = supervisor.StateDisabled
	StateRefused     = supervisor.StateRefused
	StateFailed      = supervisor.StateFailed
)

// Manage starts a manager of servers: the servers of a configuration file,
// discovered, or given in code. They connect concurrently; Manage returns
// at the startup gate, with the servers that are up live and the tools of
// slow ones offered from the tool-list cache (their calls wait for them).
// The manager restarts servers whose connection dies (exponential backoff
// with jitter, then a circuit breaker), refreshes tools on
// notifications/tools/list_changed and after restarts, and pings servers
// that ask for keepalive. Runtime.Stop stops it too.
func (rt *Runtime) Manage(ctx context.Context, opts ManageOptions) (*Manager, error) {
	servers, err := managedServers(opts, rt.env.Logger)
	if err != nil {
		return nil, err
	}
	mo := supervisor.ManagerOptions{
		Servers: servers, Env: rt.env, Gate: opts.Gate, MaxConnecting: opts.MaxConnecting,
		Approve: opts.Approve, FailFast: opts.FailFast, BreakerRetry: opts.BreakerRetry, OnEvent: opts.OnEvent,
	}
	if !opts.NoCache {
		dir := opts.CacheDir
		if dir == "" {
			if dir, err = supervisor.DefaultCacheDir(); err != nil {
				rt.env.Logger.Warn("mcp: no tool-list cache", "err", err)
			}
		}
		if dir != "" {
			logger := rt.env.Logger
			mo.Cache = &supervisor.Cache{Dir: dir, Warn: func(s string) { logger.Warn("mcp: " + s) }}
		}
	}
	select {
	case <-rt.stopping:
		return nil, ErrStopped
	default:
	}
	sm, err := supervisor.Manage(ctx, rt.system.Root, mo)
	if sm == nil {
		return nil, err
	}
	m := &Manager{m: sm, log: rt.env.Logger}
	adopted := make(chan bool, 1)
	rt.system.Root.Send(rt.owner, adoptManager{m: m, reply: adopted})
	select {
	case ok := <-adopted:
		if ok {
			return m, err
		}
	case <-rt.stopping:
	}
	// Stop began meanwhile and will not see this manager.
	m.Close(context.WithoutCancel(ctx))
	return nil, ErrStopped
}

// Manager runs a set of servers (Runtime.Manage). Its methods are safe for
// concurrent use; none is on a call's path but CallTool's lookup of a
// published, read-only table.
type Manager struct {
	m   *supervisor.Manager
	log *slog.Logger
}

// Tools returns every managed tool by its exposed name: the live tools of
// the servers that are up and the cached ones of those still starting.
func (m *Manager) Tools() []ManagedTool { return m.m.Tools() }

// CallTool calls a tool by its exposed name on the server that offers it;
// a cached tool's call waits for its server, bounded by ctx and the connect
// timeout.
func (m *Manager) CallTool(ctx context.Context, exposed string, args any) (*messages.CallToolResult, error) {
	return m.m.CallTool(ctx, exposed, args)
}

// CallToolWith is CallTool with per-call options.
func (m *Manager) CallToolWith(ctx context.Context, exposed string, args any, opts CallOptions) (*messages.CallToolResult, error) {
	return m.m.CallToolWith(ctx, exposed, args, actors.CallOptions(opts))
}

// Client returns the client of a managed server, for its other methods.
func (m *Manager) Client(server string) (*Client, bool) {
	h, ok := m.m.Client(server)
	if !ok {
		return nil, false
	}
	return &Client{h: h}, true
}

// Status returns every managed server's state, sorted by name.
func (m *Manager) Status() []ServerStatus { return m.m.Status() }

// Add starts a server given in code (replacing one of the same name whose
// configuration differs).
func (m *Manager) Add(ctx context.Context, name string, cfg ServerConfig) error {
	s, err := supervisor.NewServer(name, actors.ServerConfig(cfg))
	if err != nil {
		return err
	}
	return m.m.Add(ctx, s)
}

// Remove stops a server and drops its tools, whatever it is doing
// (connecting included); nothing of it is left running.
func (m *Manager) Remove(ctx context.Context, name string) error { return m.m.Remove(ctx, name) }

// Reload makes the managed servers those of opts (a file read again,
// say): changed servers restart, missing ones stop, unchanged ones go on
// undisturbed.
func (m *Manager) Reload(ctx context.Context, opts ManageOptions) error {
	servers, err := managedServers(opts, m.log)
	if err != nil {
		return err
	}
	return m.m.Reload(ctx, servers)
}

// Close stops every managed server and the manager, within ctx.
func (m *Manager) Close(ctx context.Context) error { return m.m.Close(ctx) }

// managedServers gathers the servers of opts. A file's or discovery's
// problems are logged as warnings: the valid servers run regardless, and
// only a source with nothing valid at all is an error.
func managedServers(opts ManageOptions, log *slog.Logger) ([]*Server, error) {
	byName := map[string]*Server{}
	for name, cfg := range opts.Servers {
		s, err := supervisor.NewServer(name, actors.ServerConfig(cfg))
		if err != nil {
			return nil, err
		}
		byName[name] = s
	}
	switch {
	case opts.ConfigFile != "":
		f, err := supervisor.LoadFile(opts.ConfigFile)
		if f == nil || (err != nil && len(f.Servers) == 0 && len(opts.Servers) == 0) {
			return nil, err
		}
		if err != nil {
			log.Warn("mcp: configuration: entries left out", "err", err)
		}
		for _, w := range f.Warnings {
			log.Warn("mcp: configuration: " + w)
		}
		for name, s := range f.Servers {
			byName[name] = s
		}
	case opts.Discover != nil:
		d, err := supervisor.Discover(*opts.Discover)
		if err != nil {
			return nil, err
		}
		for _, w := range d.Warnings {
			log.Warn("mcp: discovery: " + w)
		}
		for _, sh := range d.Shadowed {
			log.Info("mcp: discovery: " + sh.String())
		}
		for _, s := range d.Servers {
			byName[s.Name] = s
		}
	}
	if len(byName) == 0 {
		return nil, errors.New("mcpactor: Manage: no servers (give ConfigFile, Servers or Discover)")
	}
	out := make([]*Server, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	return out, nil
}
