package actors

import (
	"fmt"
	"time"

	"github.com/mcpactor/mcpactor/internal/reach"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// Transport types of a server configuration.
const (
	typeStdio = reach.Stdio
	typeHTTP  = reach.HTTP
	typeSSE   = reach.SSE
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
const typeStream = reach.Stream

// TransportType returns the effective transport type.
func (c *Spec) TransportType() string { return c.target().Kind() }

// target is what the reach checks read of c.
func (c *Spec) target() reach.Target {
	return reach.Target{Type: c.Type, Command: c.Stdio.Command, URL: c.HTTP.URL, Dial: c.Stdio.Dial != nil}
}

// Validate checks the server's name and the fields that decide how the
// server is reached.
func (c *Spec) Validate(name string) error {
	var problems []string
	if !reach.ValidName(name) {
		problems = append(problems, reach.NameProblem(name))
	}
	if _, bad := Extensions(c.Extensions); len(bad) > 0 {
		for _, p := range bad {
			problems = append(problems, fmt.Sprintf("Server %q: %s", name, p))
		}
	}
	problems = append(problems, reach.Problems(name, c.target())...)
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
