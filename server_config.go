package mcpactor

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
	"github.com/mcpactor/mcpactor/transport"
)

// ServerConfig describes one MCP server: how to reach it, how patient to
// be with it, and (for a manager) how to supervise it. The zero value of
// every tuning field selects the documented default. It is the one type
// for a server's configuration: Connect, Open, Manager.Add and
// ManageOptions.Servers take it, and a server read from a file
// (ManageOptions.ConfigFile, docs/configuration.md) is one too, which
// Approve sees as Server.Config. It is a Go value, not a file format.
//
// Printed (%v, %+v, %#v) or logged (slog), it shows no credential: the URL
// masked, headers and environment by name only, arguments counted.
type ServerConfig struct {
	// Type is "stdio", "http" (Streamable HTTP), "sse" (the legacy
	// HTTP+SSE transport) or "stream" (stdio's framing over Dial's
	// stream). Empty means stdio when Command is set, http when only URL
	// is, and stream when Dial is.
	Type string

	Command string            // stdio: the program, run without a shell
	Args    []string          // stdio: its arguments
	Env     map[string]string // stdio: set on top of the inherited environment (InheritEnv)
	Cwd     string            // stdio: working directory

	URL     string            // http/sse: the endpoint
	Headers map[string]string // http/sse: extra request headers
	// Auth, if set, authorizes the requests (http/sse): an OAuth client
	// (transport/oauth.Client, docs/oauth.md) or a header refreshed on a
	// 401 (oauth.RefreshHeader). nil sends Headers alone.
	Auth Authorizer

	// Dial, if set, connects to a server over a byte stream it returns
	// (an in-process server in a test, a socket) instead of starting
	// Command: the same JSON Lines framing as stdio. It is called once per
	// connection generation, so a client that reconnects dials again,
	// with a context that ends when that connection has ended.
	Dial func(ctx context.Context) (io.ReadWriteCloser, error)

	ConnectTimeout time.Duration // spawn + handshake; default 30 s
	RequestTimeout time.Duration // each request; default 30 s
	MaxInFlight    int           // requests queued or awaiting an answer; default 16384
	MaxFrameSize   int           // the longest line, JSON body or SSE event accepted; default 16 MiB
	// QueueTimeout bounds a request's wait for an in-flight slot when
	// MaxInFlight requests are out (default 10 s; negative: only the
	// request's timeout bounds it): an overloaded server is reported, not
	// waited out.
	QueueTimeout time.Duration

	// ProtocolVersion pins the protocol version: a session-era version
	// (2024-11-05 to 2025-11-25) is offered in initialize without a probe;
	// 2026-07-28 is spoken without falling back. Empty: probe with
	// server/discover, then the newest session-era version.
	ProtocolVersion string
	// ProbeTimeout bounds the wait for server/discover's answer before
	// the session era is assumed (some session-era servers never answer
	// a request before initialize); default 3 s. It counts within
	// ConnectTimeout.
	ProbeTimeout time.Duration

	// CloseGrace and TermGrace are the stdio shutdown waits: after closing
	// stdin, and after SIGTERM (2 s each by default).
	CloseGrace time.Duration
	TermGrace  time.Duration

	// Byte budgets of the connection (docs/architecture.md, "Bounded
	// everything"); zero selects the defaults.
	MaxWriteBytes        int // frames waiting to be written; callers beyond it wait (8 MiB)
	MaxProgressBytes     int // progress waiting for all callers (16 MiB)
	MaxCallProgressBytes int // progress waiting for one caller (1 MiB)
	// WriteStallTimeout fails a stdio connection when the server reads
	// none of its input for this long; default the request timeout, at
	// least 30 s.
	WriteStallTimeout time.Duration

	// BusyRetries bounds how often one request is sent again after a 429
	// or 503 answer with Retry-After (http): after that delay, never past
	// the call's deadline or beyond 30 s; default 3, negative never.
	// Only requests that are safe to repeat are (lists, reads, ping...);
	// a tools/call only with BusyRetryUnsafe here or in CallOptions.
	BusyRetries int
	// BusyRetryUnsafe lets every request of this server, tools/call
	// included, be sent again so: for servers whose tools are safe to run
	// twice.
	BusyRetryUnsafe bool

	// InheritEnv chooses which of this process's environment variables a
	// stdio server starts with, Env being set on top: EnvInheritAll (the
	// zero value, what most MCP hosts do), EnvInheritSafe (a short list
	// of variables a program needs to run, the official TypeScript SDK's
	// default) or EnvInheritNone (docs/configuration.md, "Server entries").
	InheritEnv EnvInheritance

	// Identity names who the server is reached as (a user, a tenant):
	// OAuth tokens and tool lists of private scope are kept per identity,
	// so one user's session never serves another. "" is the default
	// identity.
	Identity string

	// TelemetryName, if set, is the server's name in telemetry
	// (mcpactor.server.name on spans and metrics) in place of the name it
	// was added or connected under. A program that runs one configured
	// server under changing internal names (the cluster's activations,
	// named per tenant and generation) sets it to the configured name, so
	// that metric series stay one per server. Errors keep the name the
	// server was added under.
	TelemetryName string

	// ValidateOutput checks every tool result of the server against the
	// tool's outputSchema (JSON Schema 2020-12 unless the schema names
	// its draft), as the specification says a client SHOULD
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#output-schema):
	// a result whose structuredContent is missing or violates the schema
	// fails the call with an ErrBadResponse *Error naming the Tool, where
	// (Location) and the first Violation.
	// Results with isError are not checked. The schemas come from the
	// connection's last tools/list (read once if none was); a $ref that
	// leaves the schema is an error, never a fetch.
	// CallOptions.ValidateOutput asks the same of one call.
	ValidateOutput bool
	// CacheReads keeps the results of ReadResource while the server lets
	// them be cached (ttlMs, 2026-07-28,
	// https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching):
	// a read of the same URI is answered from the cache while fresh,
	// unless the server sent resources/updated for it or
	// resources/list_changed. The cache is the connection's (one server,
	// one Identity), at most 256 URIs. The lists (ListTools, ListPrompts,
	// ListResources, ListResourceTemplates) are always cached that way,
	// and dropped by their list_changed.
	CacheReads bool
	// Extensions are client extensions declared to this server beside
	// Options.Extensions (this server's settings win for an identifier
	// both declare), checked as those are (*ConfigError).
	Extensions map[string]any

	// What a manager (Runtime.Manage) does with the server; a client
	// made by Connect or Open ignores them.
	//
	// Keepalive is the interval between pings of a ready server; 0 pings
	// never. Restart is the restart policy; its zero fields take the
	// defaults. EnabledTools, if not empty, are the only tools of the
	// server offered; DisabledTools are never offered (raw tool names, as
	// the server lists them).
	Keepalive                   time.Duration
	Restart                     RestartPolicy
	EnabledTools, DisabledTools []string

	// Fence, when set, is called immediately before each write of frames to
	// the server (a stdio write, an HTTP request sent); a non-nil error
	// means none of those frames is written: their calls end with that
	// error (matched by errors.Is/As as returned). For supervisors that
	// fence ownership, such as supervisor/cluster. It runs on the
	// transport's writer (stdio) or on net/http's goroutines (http, sse),
	// so it must be safe for concurrent use and return quickly; a panic in
	// it refuses the write. No configuration file can set it.
	Fence func() error `json:"-"`
}

// RestartPolicy is ServerConfig.Restart: how a manager restarts a server
// whose connection died, after a delay growing exponentially from
// BackoffMin to BackoffMax (with jitter), at most MaxRestarts times within
// Window; beyond that the server's circuit breaker opens. A zero field
// takes its default: 5 restarts per 60 s window, backoff from 500 ms to
// 30 s. A negative MaxRestarts allows no restart (a file's "maxRestarts":
// 0 reads as -1). Its fields:
//
//	MaxRestarts int           // restarts allowed within Window
//	Window      time.Duration // the window MaxRestarts counts in
//	BackoffMin  time.Duration // the first restart's delay
//	BackoffMax  time.Duration // the longest delay
//
// It is declared in supervisor/config, which reads it from files.
type RestartPolicy = config.RestartPolicy

// EnvInheritance is ServerConfig.InheritEnv: which of this process's
// environment variables a stdio server starts with, a string, one of the
// constants below. It is declared in transport, which starts the servers.
type EnvInheritance = transport.EnvInheritance

// The environment policies of a stdio server.
const (
	EnvInheritAll  = transport.EnvInheritAll  // "": the whole environment (the default)
	EnvInheritSafe = transport.EnvInheritSafe // "safe": a short list a program needs to run (HOME, PATH, ...)
	EnvInheritNone = transport.EnvInheritNone // "none": nothing but ServerConfig.Env
)

// Authorizer authorizes a server's HTTP requests (ServerConfig.Auth): its
// one method, RoundTripper(serverURL string, base http.RoundTripper)
// http.RoundTripper, wraps the runtime's transport for the server at
// serverURL. A wrapper may answer a 401 or 403 by sending the request
// again (request bodies can be read again: GetBody is set).
// transport/oauth's Client (OAuth, docs/oauth.md) and RefreshHeader are
// two. It is declared in transport, which sends the requests.
type Authorizer = transport.Authorizer

// spec is c in the engine's shape: the transports' configurations, the
// connection's limits and the handshake's settings.
func (c *ServerConfig) spec() actors.Spec {
	s := actors.Spec{
		Type: c.Type,
		Stdio: transport.StdioConfig{Command: c.Command, Args: c.Args, Env: c.Env, Dir: c.Cwd,
			InheritEnv: c.InheritEnv, Dial: c.Dial,
			CloseGrace: c.CloseGrace, TermGrace: c.TermGrace, WriteStallTimeout: c.WriteStallTimeout, Fence: c.Fence},
		HTTP: transport.HTTPConfig{URL: c.URL, Headers: c.Headers, Fence: c.Fence,
			BusyRetries: c.BusyRetries, BusyRetryUnsafe: c.BusyRetryUnsafe},
		Limits: transport.Limits{RequestTimeout: c.RequestTimeout, MaxInFlight: c.MaxInFlight, QueueTimeout: c.QueueTimeout,
			MaxFrameSize: c.MaxFrameSize, MaxWriteBytes: c.MaxWriteBytes,
			MaxProgressBytes: c.MaxProgressBytes, MaxCallProgressBytes: c.MaxCallProgressBytes},
		ConnectTimeout: c.ConnectTimeout, ProtocolVersion: c.ProtocolVersion, ProbeTimeout: c.ProbeTimeout,
		Identity: c.Identity, TelemetryName: c.TelemetryName, ValidateOutput: c.ValidateOutput, CacheReads: c.CacheReads, Extensions: c.Extensions,
	}
	if c.Auth != nil { // a nil Authorizer must stay a nil interface
		s.HTTP.Auth = c.Auth
	}
	return s
}

// managed is c as a manager runs it, named name, carrying c itself for
// Approve: the manager never converts its Spec back.
func (c *ServerConfig) managed(name string) supervisor.Server {
	return supervisor.Server{Name: name, Spec: c.spec(), Keepalive: c.Keepalive, Restart: c.Restart,
		EnabledTools: c.EnabledTools, DisabledTools: c.DisabledTools, Config: *c}
}

// server is c given in code, as a manager runs it: checked, hashed.
func (c *ServerConfig) server(name string) (*supervisor.Server, error) {
	return supervisor.NewServer(c.managed(name))
}

// entryConfig is the ServerConfig of a configuration file's entry: the
// one conversion of what a file says, which runs one way.
func entryConfig(e *config.Entry) ServerConfig {
	return ServerConfig{
		Type: e.Type, Command: e.Command, Args: e.Args, Env: e.Env, Cwd: e.Cwd, URL: e.URL, Headers: e.Headers,
		InheritEnv: EnvInheritance(e.InheritEnv), ConnectTimeout: e.ConnectTimeout, RequestTimeout: e.RequestTimeout,
		QueueTimeout: e.QueueTimeout, MaxInFlight: e.MaxInFlight, ProtocolVersion: e.ProtocolVersion, Identity: e.Identity,
		Keepalive: e.Keepalive, Restart: e.Restart, EnabledTools: e.EnabledTools, DisabledTools: e.DisabledTools,
	}
}

// entryServer is the server of a configuration file's entry as a manager
// runs it: its ServerConfig's, with the entry's name, hash, source and
// approval, and the entry itself for the values left to connect time.
// The entry was checked as the file was read (a disabled one is not).
func entryServer(e *config.Entry) *supervisor.Server {
	c := entryConfig(e)
	s := c.managed(e.Name)
	s.Enabled, s.NeedsApproval, s.Source, s.Hash, s.Entry = e.Enabled, e.NeedsApproval, e.Source, e.Hash, e
	return &s
}

// String describes the server without its credentials.
func (c ServerConfig) String() string { return c.spec().String() }

// GoString is String, for %#v.
func (c ServerConfig) GoString() string { return c.String() }

// LogValue is String, for slog.
func (c ServerConfig) LogValue() slog.Value { return slog.StringValue(c.String()) }
