package messages

import "strconv"

// BadResponseError fails a request whose answer arrived but cannot be used:
// it carries both result and error, it is nested too deeply to decode, or
// it is larger than the frame cap with its id after the payload. The
// connection lives on; only this request fails, at once rather than at its
// timeout.
type BadResponseError struct {
	Server  string
	Method  string
	ID      ID
	Problem string // what is wrong with the answer, e.g. "both result and error"
}

// Error reads `MCP server "<server>" sent an unusable answer to <method>
// (request <id>): <problem>`.
func (e *BadResponseError) Error() string {
	return "MCP server " + strconv.Quote(e.Server) + " sent an unusable answer to " + e.Method +
		" (request " + e.ID.String() + "): " + e.Problem
}

// Is makes errors.Is(err, ErrBadResponse) true.
func (e *BadResponseError) Is(target error) bool { return target == ErrBadResponse }

// StartError reports a server that could not be started at all: its
// command is missing or not executable, or dialing its stream failed.
// Nothing ran, so there is no exit status or stderr to show.
type StartError struct {
	Server  string
	Command string // the command, or "" for a dialed stream
	Err     error  // the operating system's (or the dialer's) error
}

// Error reads `could not start MCP server "<server>" (<command>):
// <cause>`, the command only when there is one.
func (e *StartError) Error() string {
	if e.Command == "" {
		return "could not start MCP server " + strconv.Quote(e.Server) + ": " + e.Err.Error()
	}
	return "could not start MCP server " + strconv.Quote(e.Server) + " (" + e.Command + "): " + e.Err.Error()
}

// Is makes errors.Is(err, ErrStart) true.
func (e *StartError) Is(target error) bool { return target == ErrStart }

// Unwrap returns the underlying error (an *exec.Error, an *os.PathError...).
func (e *StartError) Unwrap() error { return e.Err }
