package actors

import (
	"fmt"
	"strings"
	"time"
)

// Transport types of a server configuration (config.md).
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// DefaultConnectTimeout bounds spawning a server and its handshake
// (behaviour.md §6).
const DefaultConnectTimeout = 30 * time.Second

// ServerConfig describes one MCP server: how to reach it and how patient to
// be with it. It mirrors an entry of an mcpServers file (config.md); the
// zero value of every tuning field selects the documented default.
type ServerConfig struct {
	// Type is "stdio", "http" or "sse". Empty means stdio when Command is
	// set and http when only URL is.
	Type string `json:"type,omitempty"`

	Command string            `json:"command,omitempty"` // stdio: the program, run without a shell
	Args    []string          `json:"args,omitempty"`    // stdio: its arguments
	Env     map[string]string `json:"env,omitempty"`     // stdio: set on top of the parent environment
	Cwd     string            `json:"cwd,omitempty"`     // stdio: working directory

	URL     string            `json:"url,omitempty"`     // http/sse: the endpoint
	Headers map[string]string `json:"headers,omitempty"` // http/sse: extra request headers

	ConnectTimeout time.Duration `json:"-"` // spawn + handshake; default 30 s
	RequestTimeout time.Duration `json:"-"` // each request; default 30 s
	MaxInFlight    int           `json:"maxInFlight,omitempty"`
	MaxFrameSize   int           `json:"-"` // stdio: longest line accepted; default 16 MiB

	// ProtocolVersion pins the version offered in initialize; empty offers
	// the newest we speak (2025-11-25).
	ProtocolVersion string `json:"protocolVersion,omitempty"`

	// CloseGrace and TermGrace are the stdio shutdown waits: after closing
	// stdin, and after SIGTERM (2 s each by default).
	CloseGrace time.Duration `json:"-"`
	TermGrace  time.Duration `json:"-"`

	// Byte budgets of the connection (docs/architecture.md, "Bounded
	// everything"); zero selects the transport's defaults.
	MaxWriteBytes        int `json:"-"` // frames waiting to be written; callers beyond it wait (8 MiB)
	MaxProgressBytes     int `json:"-"` // progress waiting for all callers (16 MiB)
	MaxCallProgressBytes int `json:"-"` // progress waiting for one caller (1 MiB)
	// WriteStallTimeout fails the connection when the server reads none
	// of its input for this long; default the request timeout, at least
	// 30 s.
	WriteStallTimeout time.Duration `json:"-"`
}

// TransportType returns the effective transport type.
func (c *ServerConfig) TransportType() string {
	switch {
	case c.Type != "":
		return c.Type
	case c.Command == "" && c.URL != "":
		return TypeHTTP
	default:
		return TypeStdio
	}
}

// ConfigError lists what is wrong with a server configuration, in the words
// of config.md.
type ConfigError struct {
	Server   string
	Problems []string
}

func (e *ConfigError) Error() string { return strings.Join(e.Problems, "; ") }

// UnknownTypeError is the reference system's "Unknown server type" failure.
type UnknownTypeError struct{ Type string }

func (e *UnknownTypeError) Error() string { return "Unknown server type: " + e.Type }

// Validate checks the fields that decide how the server is reached.
func (c *ServerConfig) Validate(name string) error {
	var problems []string
	if c.Command != "" && c.URL != "" {
		problems = append(problems, fmt.Sprintf(`Server %q: both "command" and "url" are set - server should be either stdio (command) OR http/sse (url), not both`, name))
	}
	switch t := c.TransportType(); t {
	case TypeStdio:
		if c.Command == "" {
			problems = append(problems, fmt.Sprintf(`Server %q: stdio server requires "command" field`, name))
		}
	case TypeHTTP, TypeSSE:
		if c.URL == "" {
			problems = append(problems, fmt.Sprintf(`Server %q: %s server requires "url" field`, name, t))
		}
	default:
		problems = append(problems, fmt.Sprintf(`Server %q: unknown server type %q`, name, t))
	}
	if len(problems) > 0 {
		return &ConfigError{Server: name, Problems: problems}
	}
	return nil
}

func (c *ServerConfig) connectTimeout() time.Duration {
	if c.ConnectTimeout > 0 {
		return c.ConnectTimeout
	}
	return DefaultConnectTimeout
}
