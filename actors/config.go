package actors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"time"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// Transport types of a server configuration.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// DefaultConnectTimeout bounds spawning a server and its handshake
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#timeouts).
const DefaultConnectTimeout = 30 * time.Second

// ServerConfig describes one MCP server: how to reach it, how patient to be
// with it, and how a manager supervises it. It is the one definition:
// mcpactor.ServerConfig is this type. It is a Go value, not a file format:
// supervisor/config reads mcpServers files into it. The zero value of every
// tuning field selects the documented default.
type ServerConfig struct {
	// Type is "stdio", "http" or "sse". Empty means stdio when Command is
	// set, http when only URL is, and TypeStream when Dial is.
	Type string

	Command string            // stdio: the program, run without a shell
	Args    []string          // stdio: its arguments
	Env     map[string]string // stdio: set on top of the parent environment
	Cwd     string            // stdio: working directory

	URL     string            // http/sse: the endpoint
	Headers map[string]string // http/sse: extra request headers
	// Auth, if set, authorizes the requests (http/sse): an OAuth client
	// (transport/oauth.Client, docs/oauth.md) or a header refreshed on a
	// 401 (oauth.RefreshHeader). nil sends Headers alone.
	Auth transport.Authorizer

	// Dial, if set, connects to a server over a byte stream it returns
	// (an in-process server in a test, a socket) instead of starting
	// Command: the same JSON Lines framing as stdio. It is called once per
	// connection generation, so a client that reconnects dials again.
	Dial func(ctx context.Context) (io.ReadWriteCloser, error)

	ConnectTimeout time.Duration // spawn + handshake; default 30 s
	RequestTimeout time.Duration // each request; default 30 s
	MaxInFlight    int           // requests queued or awaiting an answer; default 16384
	MaxFrameSize   int           // stdio: longest line accepted; default 16 MiB
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
	// a request before initialize); default DefaultProbeTimeout. It counts
	// within ConnectTimeout.
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
	// WriteStallTimeout fails the connection when the server reads none
	// of its input for this long; default the request timeout, at least
	// 30 s.
	WriteStallTimeout time.Duration

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

	// What a manager (Runtime.Manage) does with the server; a client
	// made by Connect or Open ignores them.
	//
	// Keepalive is the interval between pings of a ready server; 0 pings
	// never. Restart is the restart policy; its zero fields take the
	// defaults (DefaultRestartPolicy). EnabledTools, if not empty, are
	// the only tools of the server offered; DisabledTools are never
	// offered (raw tool names, as the server lists them).
	Keepalive                   time.Duration
	Restart                     RestartPolicy
	EnabledTools, DisabledTools []string
}

// EnvInheritance is ServerConfig.InheritEnv.
type EnvInheritance = transport.EnvInheritance

// The environment policies of a stdio server (ServerConfig.InheritEnv).
const (
	EnvInheritAll  = transport.EnvInheritAll
	EnvInheritSafe = transport.EnvInheritSafe
	EnvInheritNone = transport.EnvInheritNone
)

// RestartPolicy is how a manager restarts a server whose connection died:
// after a delay growing exponentially from BackoffMin to BackoffMax (with
// jitter), at most MaxRestarts times within Window; beyond that the
// server's circuit breaker opens. A zero field takes its default
// (DefaultRestartPolicy); a negative MaxRestarts allows no restart (a
// file's "maxRestarts": 0 reads as -1).
type RestartPolicy struct {
	MaxRestarts int
	Window      time.Duration
	BackoffMin  time.Duration
	BackoffMax  time.Duration
}

// Defaults of RestartPolicy.
const (
	DefaultMaxRestarts   = 5
	DefaultRestartWindow = 60 * time.Second
	DefaultBackoffMin    = 500 * time.Millisecond
	DefaultBackoffMax    = 30 * time.Second
)

// DefaultRestartPolicy returns the policy of a server that sets none: 5
// restarts per 60 s window, backoff from 500 ms to 30 s.
func DefaultRestartPolicy() RestartPolicy {
	return RestartPolicy{MaxRestarts: DefaultMaxRestarts, Window: DefaultRestartWindow,
		BackoffMin: DefaultBackoffMin, BackoffMax: DefaultBackoffMax}
}

// TypeStream is the transport type of a ServerConfig with Dial: stdio's
// framing over a stream the program provides.
const TypeStream = "stream"

// TransportType returns the effective transport type.
func (c *ServerConfig) TransportType() string {
	switch {
	case c.Dial != nil && c.Type == "":
		return TypeStream
	case c.Type != "":
		return c.Type
	case c.Command == "" && c.URL != "":
		return TypeHTTP
	default:
		return TypeStdio
	}
}

// validName is what a server may be called: it is part of exposed tool
// names (mcp__<server>__<tool>), of telemetry and of cache file names.
var validName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}$`)

// ValidName reports whether name is a valid server name: 1 to 100
// letters, digits, '-', '_' or '.'.
func ValidName(name string) bool { return validName.MatchString(name) }

// NameProblem is the configuration problem of an invalid server name.
func NameProblem(name string) string {
	return fmt.Sprintf("Server %q: name must be 1 to 100 letters, digits, '-', '_' or '.'", name)
}

// Validate checks the server's name and the fields that decide how the
// server is reached.
func (c *ServerConfig) Validate(name string) error {
	var problems []string
	if !ValidName(name) {
		problems = append(problems, NameProblem(name))
	}
	if c.Command != "" && c.URL != "" {
		problems = append(problems, fmt.Sprintf(`Server %q: both "command" and "url" are set - server should be either stdio (command) OR http/sse (url), not both`, name))
	}
	switch t := c.TransportType(); t {
	case TypeStream:
		if c.Command != "" || c.URL != "" {
			problems = append(problems, fmt.Sprintf(`Server %q: "dial" is set together with "command" or "url" - choose one way to reach the server`, name))
		}
	case TypeStdio:
		if c.Command == "" {
			problems = append(problems, fmt.Sprintf(`Server %q: stdio server requires "command" field`, name))
		}
	case TypeHTTP, TypeSSE:
		if c.URL == "" {
			problems = append(problems, fmt.Sprintf(`Server %q: %s server requires "url" field`, name, t))
		} else if p := urlProblem(c.URL); p != "" {
			problems = append(problems, fmt.Sprintf(`Server %q: "url" %s`, name, p))
		}
	default:
		problems = append(problems, fmt.Sprintf(`Server %q: unknown server type %q`, name, t))
	}
	switch c.InheritEnv {
	case EnvInheritAll, EnvInheritSafe, EnvInheritNone:
	default:
		problems = append(problems, fmt.Sprintf(`Server %q: unknown environment inheritance %q (want "", %q or %q)`, name, string(c.InheritEnv), string(EnvInheritSafe), string(EnvInheritNone)))
	}
	if len(problems) > 0 {
		return &messages.ConfigError{Server: name, Problems: problems}
	}
	return nil
}

// urlProblem says what makes raw unusable as an http server's endpoint, in
// words that quote no part of it (it may carry a credential).
func urlProblem(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "is not a valid URL: " + err.Error()
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("must be an http or https URL (the scheme is %q)", u.Scheme)
	case u.Host == "":
		return "has no host"
	}
	return ""
}

func (c *ServerConfig) probeTimeout() time.Duration {
	if c.ProbeTimeout > 0 {
		return c.ProbeTimeout
	}
	return DefaultProbeTimeout
}

func (c *ServerConfig) connectTimeout() time.Duration {
	if c.ConnectTimeout > 0 {
		return c.ConnectTimeout
	}
	return DefaultConnectTimeout
}
