package supervisor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpactor/mcpactor/messages"
)

// The errors of a Manager's methods, beside those of the call itself.

// ErrManagerClosed is returned by a Manager's methods after Close: calls,
// Add, Remove and Reload.
var ErrManagerClosed = errors.New("mcpactor: manager closed")

// ErrServerUnavailable matches a *ServerUnavailableError.
var ErrServerUnavailable = errors.New("MCP server unavailable")

// UnknownToolError reports an exposed tool (or prompt) name no managed
// server offers.
type UnknownToolError struct{ Name string }

func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("no managed server offers a tool named %q", e.Name)
}

// UnknownServerError reports a server name the manager does not manage.
type UnknownServerError struct{ Name string }

func (e *UnknownServerError) Error() string { return "no managed server is named " + e.Name }

// ServerUnavailableError reports a call to a server that cannot take it
// now: it failed, its breaker is open, it is disabled or not approved, or
// (with FailFast) it is restarting or unhealthy. It names the server, its
// state and its last error, so that "that server is down" is told from
// "no such tool" (*UnknownToolError). It matches ErrServerUnavailable and
// ErrServerNotConnected, and unwraps to the last error.
type ServerUnavailableError struct {
	Server string
	State  State
	Err    error // the server's last error; nil when it has none
}

func (e *ServerUnavailableError) Error() string {
	s := fmt.Sprintf("MCP server %q is unavailable (%s)", e.Server, e.State)
	if e.Err != nil {
		s += ": " + oneLine(e.Err.Error())
	}
	return s
}

// Is makes errors.Is true for ErrServerUnavailable and
// ErrServerNotConnected.
func (e *ServerUnavailableError) Is(target error) bool {
	return target == ErrServerUnavailable || target == messages.ErrServerNotConnected
}

func (e *ServerUnavailableError) Unwrap() error { return e.Err }

// oneLine joins the lines of a message (a server's stderr excerpt) so
// that an error or a log line stays one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
