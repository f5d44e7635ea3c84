package messages

import (
	"fmt"
	"strings"
)

// The typed errors of a manager of servers (mcpactor.Manager), beside
// those of the calls it makes.

// UnknownToolError reports an exposed tool (or prompt) name no managed
// server offers.
type UnknownToolError struct{ Name string }

// Error reads `no managed server offers a tool named "<name>"`.
func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("no managed server offers a tool named %q", e.Name)
}

// Is makes errors.Is(err, ErrUnknownTool) true.
func (e *UnknownToolError) Is(target error) bool { return target == ErrUnknownTool }

// UnknownServerError reports a server name the manager does not manage.
type UnknownServerError struct{ Name string }

// Error reads `no managed server is named <name>`.
func (e *UnknownServerError) Error() string { return "no managed server is named " + e.Name }

// Is makes errors.Is(err, ErrUnknownServer) true.
func (e *UnknownServerError) Is(target error) bool { return target == ErrUnknownServer }

// ServerUnavailableError reports a call to a server that cannot take it
// now: it failed, its breaker is open, it is disabled or not approved, or
// (with FailFast) it is restarting or unhealthy. It names the server, its
// state and its last error, so that "that server is down" is told from
// "no such tool" (*UnknownToolError). It matches ErrServerUnavailable and
// ErrServerNotConnected, and unwraps to the last error.
type ServerUnavailableError struct {
	Server string
	State  string // as ServerStatus.State names it: "failed", "breaker open", ...
	Err    error  // the server's last error; nil when it has none
}

// Error reads `MCP server "<server>" is unavailable (<state>): <last
// error>`, the last error on one line and only when there is one.
func (e *ServerUnavailableError) Error() string {
	s := fmt.Sprintf("MCP server %q is unavailable (%s)", e.Server, e.State)
	if e.Err != nil {
		s += ": " + strings.Join(strings.Fields(e.Err.Error()), " ")
	}
	return s
}

// Is makes errors.Is true for ErrServerUnavailable and
// ErrServerNotConnected.
func (e *ServerUnavailableError) Is(target error) bool {
	return target == ErrServerUnavailable || target == ErrServerNotConnected
}

// Unwrap returns the server's last error (nil when it has none).
func (e *ServerUnavailableError) Unwrap() error { return e.Err }
