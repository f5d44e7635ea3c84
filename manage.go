package mcpactor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
	"github.com/mcpactor/mcpactor/supervisor/toolcache"
)

// ManageOptions say which servers a Manager runs and how.
type ManageOptions struct {
	// ConfigFile is a configuration file to run (docs/configuration.md):
	// {"mcpServers": ...}, or VS Code's {"servers": ...}. It bypasses
	// discovery. Its invalid entries are left out and reported by
	// Manager.Warnings and Manager.Invalid; only a file with no valid
	// server fails Manage.
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
	// starts none of them. It is called off the manager's actor, one
	// server at a time, so it may ask a person: only the server asked
	// about waits meanwhile (StateConnecting). A panic in it is logged
	// and refuses the server.
	Approve func(*Server) bool
	// Gate is how long Manage waits before offering the tools of servers
	// still starting from the tool-list cache (default 250 ms); servers
	// without a cached list are awaited, up to their connect timeout.
	Gate time.Duration
	// MaxConnecting bounds the handshakes in flight (default 8).
	MaxConnecting int
	// CacheDir is where tool lists are kept across runs; "" uses
	// os.UserCacheDir()/mcpactor (docs/configuration.md, "Tool-list
	// cache"), and NoCache keeps none.
	CacheDir string
	NoCache  bool
	// Startup says how long Manage waits for the servers: StartupWaitUncached
	// (the default), StartupGate or StartupImmediate.
	Startup StartupPolicy
	// FailFast makes calls to a restarting server fail at once; by
	// default they wait for the restart, bounded by their context and by
	// RestartWait. A wait that runs out fails with a
	// ErrServerUnavailable *Error that names the server, says the call waited
	// for a restart and carries the server's last error; it matches
	// ErrServerUnavailable and the context's error
	// (context.DeadlineExceeded) alike.
	FailFast bool
	// RestartWait bounds a call's wait for a server that is restarting
	// or starting; 0 is the server's connect timeout (30 s unless set).
	RestartWait time.Duration
	// BreakerBackoff is how long a server whose restarts failed too
	// often rests, its circuit breaker open, before the manager tries it
	// again with one trial connection (default 5 s, jittered down to
	// half). A trial that succeeds closes the breaker; one that fails
	// opens it again for twice the rest, up to BreakerRetry (default 5
	// minutes). ServerStatus.NextTrial says when the next trial is due;
	// Manager.Restart tries at once (docs/configuration.md, "Recovery").
	BreakerBackoff time.Duration
	BreakerRetry   time.Duration
	// OnEvent hears of tool-list and state changes, in order, on a
	// goroutine of its own.
	OnEvent func(ManagerEvent)
}

// DiscoverOptions choose the discovery sources and directories
// (ManageOptions.Discover, docs/configuration.md "Discovery"); the zero
// value reads every source of the current user and working directory.
// Its fields:
//
//	Home       string   // the home directory; default os.UserHomeDir
//	ProjectDir string   // the project directory; default os.Getwd
//	Disable    []string // source kinds (Source.Kind) not to read: "native" (our
//	                    // own files), "claude", "codex", "gemini", "cursor",
//	                    // "windsurf", "vscode", "plain" (mcp.json files); an
//	                    // unknown kind is an error
//	NoProject  bool     // skip every file under the project directory: only
//	                    // the user's own files are read
//	Lookup     func(string) (string, bool) // resolves ${VAR} references and
//	                    // Codex's environment variables; default os.LookupEnv
//
// It is declared in supervisor/config, which reads the files.
type DiscoverOptions = config.DiscoverOptions

// ManagedTool is a tool as a manager offers it: by its exposed name
// (mcp__<server>__<tool>, docs/configuration.md "Tool names"). It is
// declared in supervisor, which names the tools. Its fields:
//
//	Name   string        // the exposed name, which Manager.CallTool takes
//	Server string        // the server that offers it
//	Tool   messages.Tool // the tool as the server lists it (Tool.Name is the server's own name)
//	Cached bool          // offered from the tool-list cache: its server is still starting
type ManagedTool = supervisor.Tool

// ManagedPrompt is a prompt as a manager offers it: by its exposed name
// (mcp__<server>__<prompt>, named as tools are). It is declared in
// supervisor. Its fields:
//
//	Name   string          // the exposed name, which Manager.GetPrompt takes
//	Server string          // the server that offers it
//	Prompt messages.Prompt // the prompt as the server lists it, with its own name
type ManagedPrompt = supervisor.Prompt

// ManagedResource is a resource a managed server lists, with the server's
// name; read it with Manager.ReadResource(server, Resource.URI). It is
// declared in supervisor. Its fields:
//
//	Server   string
//	Resource messages.Resource
type ManagedResource = supervisor.Resource

// ManagerEvent is a change in the managed servers (ManageOptions.OnEvent).
// It is declared in supervisor, which sends the events. Its fields:
//
//	Kind   EventKind
//	Server string
//	State  ServerState // the server's state after the change
//	Err    error       // with EventStateChanged: why, when it failed
type ManagerEvent = supervisor.Event

// EventKind says what a ManagerEvent reports: a string, one of the
// constants below. It is declared in supervisor, which sends the events.
type EventKind = supervisor.EventKind

// The kinds of ManagerEvent.
const (
	EventToolsChanged   = supervisor.EventToolsChanged   // "tools changed": a server's tools changed (listed, refreshed, gone)
	EventStateChanged   = supervisor.EventStateChanged   // "state changed": a server changed state (State, Err)
	EventCatalogChanged = supervisor.EventCatalogChanged // "catalog changed": a server's prompts or resources changed
)

// InvalidEntry is a server entry of a configuration file left out because
// it is invalid (Manager.Invalid); String gives its problems in one line.
// Its fields:
//
//	Name     string
//	File     string   // the file it was read from; "" for a parsed document
//	Problems []string // they name the server and the fields, never values
//
// It is declared in supervisor/config, which reads the files.
type InvalidEntry = config.InvalidEntry

// StartupPolicy is how long Manage waits for its servers
// (ManageOptions.Startup): one of the constants below. It is declared in
// supervisor, which waits.
type StartupPolicy = supervisor.StartupPolicy

// The startup policies. A server still starting when Manage returns is
// StateConnecting in Status, with no tools unless the cache had them
// (ServerStatus.ToolsPending); its tools arrive with a ManagerEvent of kind
// EventToolsChanged.
const (
	// StartupWaitUncached (the default) returns once every server is up
	// or failed, or once the gate has passed and every server still
	// starting has cached tools to offer: a server without a cached list
	// is awaited up to its connect timeout.
	StartupWaitUncached = supervisor.StartupWaitUncached
	// StartupGate returns when the gate passes, whatever is uncached.
	StartupGate = supervisor.StartupGate
	// StartupImmediate returns at once.
	StartupImmediate = supervisor.StartupImmediate
)

// CallFailureThreshold is how many calls through a manager in a row may
// fail in the transport (unreachable, session expired, no response, HTTP
// 5xx) before the server is marked unhealthy and restarted; a success
// resets the count. It is 3.
const CallFailureThreshold = supervisor.CallFailureThreshold

// Manage starts a manager of servers: the servers of a configuration file,
// discovered, or given in code. They connect concurrently; Manage returns
// as opts.Startup says (by default at the startup gate, with the servers
// that are up live and the tools of slow ones offered from the tool-list
// cache; their calls wait for them). The manager restarts servers whose
// connection dies or whose calls keep failing in the transport
// (exponential backoff with jitter, then a circuit breaker), refreshes
// tools, prompts and resources on their list_changed notifications and
// after restarts, and pings servers that ask for keepalive. Runtime.Stop
// stops it too.
//
// Options with no server at all (no ConfigFile, no Discover, no Servers)
// give an empty manager, which Add grows. A ConfigFile or Discover that
// yields no valid server is an error. Otherwise the result may be
// partial: invalid entries are left out, Manage returns the manager and a
// nil error, and the problems are on the manager (Warnings, Invalid) as
// well as in the runtime's log.
//
// When ctx ends before Manage would have returned, it returns the manager
// together with ctx's error: the manager is live and goes on starting its
// servers (only the wait was cut short); Close it, or Stop the runtime,
// if it is not wanted. Any other error comes with a nil manager.
func (rt *Runtime) Manage(ctx context.Context, opts ManageOptions) (*Manager, error) {
	servers, report, err := managedServers(opts, rt.env.Logger)
	if err != nil {
		return nil, err
	}
	mo := supervisor.ManagerOptions{
		Servers: servers, Env: rt.env, Gate: opts.Gate, MaxConnecting: opts.MaxConnecting,
		Approve: approver(opts.Approve), FailFast: opts.FailFast, RestartWait: opts.RestartWait, BreakerRetry: opts.BreakerRetry, BreakerBackoff: opts.BreakerBackoff, OnEvent: opts.OnEvent,
		Startup: opts.Startup,
	}
	if !opts.NoCache {
		dir := opts.CacheDir
		if dir == "" {
			if dir, err = toolcache.DefaultDir(); err != nil {
				rt.env.Logger.Warn("mcp: no tool-list cache", "err", err)
			}
		}
		if dir != "" {
			logger := rt.env.Logger
			mo.Cache = &toolcache.Cache{Dir: dir, Warn: func(s string) { logger.Warn("mcp: " + s) }}
		}
	}
	select {
	case <-rt.stopping:
		return nil, &Error{Kind: ErrStopped}
	default:
	}
	sm, err := supervisor.Manage(ctx, rt.system.Root, mo)
	if sm == nil {
		return nil, err
	}
	m := &Manager{m: sm, log: rt.env.Logger}
	m.report.Store(report)
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
	return nil, &Error{Kind: ErrStopped}
}

// Manager runs a set of servers (Runtime.Manage). Its methods are safe for
// concurrent use; none is on a call's path but CallTool's lookup of a
// published, read-only table.
type Manager struct {
	m      *supervisor.Manager
	log    *slog.Logger
	report atomic.Pointer[configReport] // of the last Manage or Reload
}

// configReport is what loading the configuration found wrong.
type configReport struct {
	warnings []string
	invalid  []InvalidEntry
}

// Warnings returns the problems the configuration of the last Manage or
// Reload had that did not stop it: invalid entries left out (also in
// Invalid), unreadable discovered files, unknown fields, unset variables.
// Each is one line naming the file and server, never a value.
func (m *Manager) Warnings() []string {
	return slices.Clone(m.report.Load().warnings)
}

// Invalid returns the server entries the last Manage or Reload left out
// because they are invalid, with their problems.
func (m *Manager) Invalid() []InvalidEntry {
	return slices.Clone(m.report.Load().invalid)
}

// ListPrompts returns the prompts of every ready server by exposed name
// (mcp__<server>__<prompt>, named as tools are).
func (m *Manager) ListPrompts() []ManagedPrompt {
	return m.m.Prompts()
}

// GetPrompt renders a prompt by its exposed name on the server that
// offers it.
func (m *Manager) GetPrompt(ctx context.Context, exposed string, args map[string]string) (*messages.GetPromptResult, error) {
	return m.m.GetPrompt(ctx, exposed, args)
}

// ListResources returns the resources every ready server lists, with the
// server's name, sorted by server and URI.
func (m *Manager) ListResources() []ManagedResource {
	return m.m.Resources()
}

// ReadResource reads a resource from the named server by URI. Resources
// are addressed by server and URI, not by an exposed name: a URI is the
// server's own, two servers may list the same one, and a URI made from a
// resource template is never listed.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (*messages.ReadResourceResult, error) {
	return m.m.ReadResource(ctx, server, uri)
}

// ListTools returns every managed tool by its exposed name: the live tools of
// the servers that are up and the cached ones of those still starting.
func (m *Manager) ListTools() []ManagedTool {
	return m.m.Tools()
}

// CallTool calls a tool by its exposed name on the server that offers it;
// a cached tool's call waits for its server, bounded by ctx and the connect
// timeout.
func (m *Manager) CallTool(ctx context.Context, exposed string, args any) (*messages.CallToolResult, error) {
	return m.m.CallTool(ctx, exposed, args)
}

// CallToolWith is CallTool with per-call options.
func (m *Manager) CallToolWith(ctx context.Context, exposed string, args any, opts CallOptions) (*messages.CallToolResult, error) {
	return m.m.CallToolWith(ctx, exposed, args, opts)
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
	s, err := cfg.server(name)
	if err != nil {
		return err
	}
	return m.m.Add(ctx, s)
}

// Restart tries a server again now, with a new connection and its
// restart budget renewed: a server behind its open breaker without
// waiting for the next trial, one waiting out a restart's backoff, one
// that failed to start (a command since installed), or a ready one. It
// returns nil once the server is ready with its tools listed, an ErrServerUnavailable *Error (its
// state and last error) if the attempt failed, or ctx's error. A
// disabled server, or one not approved, is not started.
func (m *Manager) Restart(ctx context.Context, name string) error { return m.m.Restart(ctx, name) }

// Remove stops a server and drops its tools, whatever it is doing
// (connecting included); nothing of it is left running.
func (m *Manager) Remove(ctx context.Context, name string) error { return m.m.Remove(ctx, name) }

// Reload makes the managed servers those of opts (a file read again,
// say): changed servers restart, missing ones stop, unchanged ones go on
// undisturbed. Its configuration problems replace those of Warnings and
// Invalid, with the same partial-result contract as Manage.
func (m *Manager) Reload(ctx context.Context, opts ManageOptions) error {
	servers, report, err := managedServers(opts, m.log)
	if err != nil {
		return err
	}
	if err := m.m.Reload(ctx, servers); err != nil {
		return err
	}
	m.report.Store(report)
	return nil
}

// Close stops every managed server and the manager, within ctx.
func (m *Manager) Close(ctx context.Context) error { return m.m.Close(ctx) }

// managedServers gathers the servers of opts. A file's or discovery's
// problems are kept in the report (and logged): the valid servers run
// regardless, and only a source with nothing valid at all is an error.
func managedServers(opts ManageOptions, log *slog.Logger) ([]*supervisor.Server, *configReport, error) {
	report := &configReport{}
	byName := map[string]*supervisor.Server{}
	for name, cfg := range opts.Servers {
		s, err := cfg.server(name)
		if err != nil {
			return nil, nil, err
		}
		byName[name] = s
	}
	switch {
	case opts.ConfigFile != "":
		f, err := config.LoadFile(opts.ConfigFile)
		if f == nil {
			if !errors.Is(err, ErrConfig) {
				// The file could not be read (missing, not a regular
				// file, too large): a configuration that cannot work,
				// and still an *fs.PathError for errors.Is(fs.ErrNotExist).
				err = fmt.Errorf("%w: %w", ErrConfig, err)
			}
			return nil, nil, err
		}
		if len(f.Servers) == 0 {
			if err == nil {
				err = fmt.Errorf("%s: no servers", opts.ConfigFile)
			}
			if !errors.Is(err, ErrConfig) {
				err = fmt.Errorf("%w: %w", ErrConfig, err)
			}
			return nil, nil, fmt.Errorf("mcpactor: Manage: no valid server in the configuration file: %w", err)
		}
		for _, e := range f.Invalid {
			report.invalid = append(report.invalid, e)
			report.warnings = append(report.warnings, e.String())
		}
		report.warnings = append(report.warnings, f.Warnings...)
		for name, e := range f.Servers {
			byName[name] = entryServer(e)
		}
	case opts.Discover != nil:
		d, err := config.Discover(*opts.Discover)
		if err != nil {
			return nil, nil, err
		}
		if len(d.Servers) == 0 {
			return nil, nil, fmt.Errorf("mcpactor: Manage: %w: discovery found no valid server (%d files read)", ErrConfig, len(d.Files))
		}
		report.invalid = append(report.invalid, d.Invalid...)
		report.warnings = append(report.warnings, d.Warnings...)
		for _, sh := range d.Shadowed {
			log.Info("mcp: discovery: " + sh.String())
		}
		for _, e := range d.Servers {
			byName[e.Name] = entryServer(e)
		}
	}
	for _, w := range report.warnings {
		log.Warn("mcp: configuration: " + w)
	}
	out := make([]*supervisor.Server, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	return out, report, nil
}
