package actors

import (
	"fmt"
	"net/url"
	"regexp"
	"time"

	"github.com/mcpactor/mcpactor/internal/redact"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// Transport types of a server configuration.
const (
	typeStdio = "stdio"
	typeHTTP  = "http"
	typeSSE   = "sse"
)

// DefaultConnectTimeout bounds spawning a server and its handshake
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#timeouts).
const DefaultConnectTimeout = 30 * time.Second

// Spec is how a client reaches one server and how patient it is with it,
// in the engine's shape: the transports' own configurations, the limits of
// the connection, and the handshake's settings. The user's type is
// mcpactor.ServerConfig, which the root package turns into a Spec;
// supervisor/config builds one from a configuration file's entry.
type Spec struct {
	// Type is typeStdio, typeHTTP, typeSSE or typeStream; empty chooses
	// by what is set (TransportType).
	Type string

	// Stdio reaches a stdio server (Command, Args, Env, InheritEnv, Dir)
	// or a stream (Dial), with its shutdown waits (CloseGrace, TermGrace),
	// WriteStallTimeout and the write Fence (mcpactor.ServerConfig.Fence,
	// set in both Stdio and HTTP, whichever transport the connection
	// takes). The client sets the rest: the server's name,
	// the generation, the counters, the stderr sink, the logger and the
	// limits.
	Stdio transport.StdioConfig
	// HTTP reaches an http or sse server: URL, Headers, Auth, Fence. The
	// client sets the rest, as for Stdio.
	HTTP transport.HTTPConfig
	// Limits bound each connection, whatever its transport.
	Limits transport.Limits

	ConnectTimeout  time.Duration // spawn + handshake; default DefaultConnectTimeout
	ProtocolVersion string        // pins the version; "" probes (negotiator)
	ProbeTimeout    time.Duration // the wait for server/discover; default defaultProbeTimeout
	// Identity names who the server is reached as: OAuth tokens and
	// private tool lists are kept per identity.
	Identity string
	// TelemetryName is the server's name in telemetry (spans' and
	// metrics' mcpactor.server.name); "" is the client's name.
	TelemetryName string
	// ValidateOutput checks each tool result against the tool's
	// outputSchema (checkOutput).
	ValidateOutput bool
	// CacheReads keeps resources/read results while the server lets them
	// be cached (result_cache.go).
	CacheReads bool
	// Extensions are client extensions declared to this server beside
	// the runtime's (Extensions checks them).
	Extensions map[string]any
}

// typeStream is the transport type of a Spec with Dial: stdio's framing
// over a stream the program provides.
const typeStream = "stream"

// TransportType returns the effective transport type.
func (c *Spec) TransportType() string {
	switch {
	case c.Stdio.Dial != nil && c.Type == "":
		return typeStream
	case c.Type != "":
		return c.Type
	case c.Stdio.Command == "" && c.HTTP.URL != "":
		return typeHTTP
	default:
		return typeStdio
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
func (c *Spec) Validate(name string) error {
	var problems []string
	if !ValidName(name) {
		problems = append(problems, NameProblem(name))
	}
	if _, bad := Extensions(c.Extensions); len(bad) > 0 {
		for _, p := range bad {
			problems = append(problems, fmt.Sprintf("Server %q: %s", name, p))
		}
	}
	if c.Stdio.Command != "" && c.HTTP.URL != "" {
		problems = append(problems, fmt.Sprintf(`Server %q: both "command" and "url" are set - server should be either stdio (command) OR http/sse (url), not both`, name))
	}
	switch t := c.TransportType(); t {
	case typeStream:
		if c.Stdio.Command != "" || c.HTTP.URL != "" {
			problems = append(problems, fmt.Sprintf(`Server %q: "dial" is set together with "command" or "url" - choose one way to reach the server`, name))
		}
	case typeStdio:
		if c.Stdio.Command == "" {
			problems = append(problems, fmt.Sprintf(`Server %q: stdio server requires "command" field`, name))
		}
	case typeHTTP, typeSSE:
		if c.HTTP.URL == "" {
			problems = append(problems, fmt.Sprintf(`Server %q: %s server requires "url" field`, name, t))
		} else if p := urlProblem(c.HTTP.URL); p != "" {
			problems = append(problems, fmt.Sprintf(`Server %q: "url" %s`, name, p))
		}
	default:
		problems = append(problems, fmt.Sprintf(`Server %q: unknown server type %q`, name, t))
	}
	switch c.Stdio.InheritEnv {
	case transport.EnvInheritAll, transport.EnvInheritSafe, transport.EnvInheritNone:
	default:
		problems = append(problems, fmt.Sprintf(`Server %q: unknown environment inheritance %q (want "", %q or %q)`, name, string(c.Stdio.InheritEnv), string(transport.EnvInheritSafe), string(transport.EnvInheritNone)))
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
		return "is not a valid URL: " + redact.ParseProblem(raw) // net/url's text quotes a piece of it
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("must be an http or https URL (the scheme is %q)", u.Scheme)
	case u.Host == "":
		return "has no host"
	}
	return ""
}

func (c *Spec) probeTimeout() time.Duration {
	if c.ProbeTimeout > 0 {
		return c.ProbeTimeout
	}
	return defaultProbeTimeout
}

func (c *Spec) connectTimeout() time.Duration {
	if c.ConnectTimeout > 0 {
		return c.ConnectTimeout
	}
	return DefaultConnectTimeout
}
