package messages

import (
	"context"
	"errors"
	"time"
)

// The kinds of failure a caller tells apart with errors.Is, all in one
// list. Every *CallError has one of them as its Kind (or the caller's
// context error); *RPCError matches ErrRPC and *ConfigError ErrConfig.
// The root package re-exports them. ErrNotJSONRPC and ErrInvalidRequestID,
// which mark frames the decoder refuses, stand beside the error object in
// jsonrpc_error.go.
var (
	// ErrTransportClosed: the connection ended (the server exited or
	// crashed, Close was called, a reconnection replaced it, the server
	// stopped reading its input). Its text is the one other MCP clients
	// use, which callers match on.
	ErrTransportClosed = errors.New("Transport closed")
	// ErrTimeout: a request got no answer in time, a connect took longer
	// than its timeout, or a Close or Stop ran out of time.
	ErrTimeout = errors.New("request timeout")
	// ErrStart: the server could not be started (its command is missing
	// or not executable, its dial failed).
	ErrStart = errors.New("could not start")
	// ErrRPC: the server answered with a JSON-RPC error (*RPCError), or a
	// task failed with one.
	ErrRPC = errors.New("MCP error")
	// ErrHTTP: an HTTP exchange failed: an error status, a session that
	// expired twice, a server unreachable, an answer or a response stream
	// that broke off, an SSE stream that ended with no response, a body
	// MCP does not allow.
	ErrHTTP = errors.New("HTTP request failed")
	// ErrAuthorization: the Authorizer (ServerConfig.Auth) failed before
	// the server could answer; the error unwraps to the Authorizer's own.
	ErrAuthorization = errors.New("MCP server authorization failed")
	// ErrBadResponse: an answer arrived but cannot be used: larger than
	// the frame cap, both result and error, nested too deeply, a result
	// that does not decode, a structured output its outputSchema refuses,
	// a skill that fails verification, a listing cut short.
	ErrBadResponse = errors.New("unusable response")
	// ErrInvalidArguments: a request's arguments cannot be sent (they do
	// not encode as JSON, or a tool call's not as a JSON object).
	ErrInvalidArguments = errors.New("invalid arguments")
	// ErrConfig: a server configuration that cannot work, or a "!command"
	// value that failed; nothing was started.
	ErrConfig = errors.New("invalid server configuration")
	// ErrUnsupported: the server or the protocol version does not have
	// it: a version we do not speak, a method the version lacks, an
	// extension the server did not declare.
	ErrUnsupported = errors.New("not part of the protocol version in use")
	// ErrStopped: the runtime was stopped (Open, Connect) or the manager
	// closed (any of its methods).
	ErrStopped = errors.New("mcpactor: runtime stopped")
	// ErrServerUnavailable: the server is not connected, or the manager's
	// server cannot take the call now (failed, breaker open, disabled,
	// restarting).
	ErrServerUnavailable = errors.New("MCP server unavailable")
	// ErrNotFound: the manager has no such tool, prompt or server.
	ErrNotFound = errors.New("not found")
)

// CallError is every failure of a call, a connect, a close or a manager:
// its Kind (one of the sentinels above, or context.Canceled /
// context.DeadlineExceeded for a caller's context that ended), where it
// happened (Server, Method, ID, URL), its Cause, and the details of its
// kind in the fields that apply. errors.Is(err, kind) matches Kind;
// errors.Unwrap gives Cause. The root package exports it as Error.
//
// No credential of a configuration appears in its text or fields, even
// where the server quoted one back: it reads "REDACTED".
type CallError struct {
	// Kind is the sentinel the error matches.
	Kind error
	// Server is the server's name; Method and ID the request's, when the
	// failure is a request's (ID is zero otherwise).
	Server string
	Method string
	ID     ID
	// URL is the URL an HTTP request went to, credentials masked.
	URL string
	// Cause is the error beneath: the operating system's, the dialer's,
	// the context's, the decoder's, a server's last error; for a
	// connection ended by a reconnection or a write stall, an *CallError
	// saying so. For a server neither HTTP transport could reach, both
	// attempts (errors.Join, the legacy one first).
	Cause error

	// A server process (stdio) or a dialed stream.

	// Command is the command that could not be started (ErrStart).
	Command string
	// ExitStatus is how the server's process ended ("exit status 1",
	// "signal: killed"), when known.
	ExitStatus string
	// Stderr is an excerpt of the server's stderr: its first lines and
	// its last.
	Stderr string
	// Stdout is what the server wrote to stdout that was not JSON-RPC, and
	// was skipped: an excerpt (a connection that ended), or the first
	// such line (a connect that timed out, with SkippedStdout counting
	// them). A server that fails at start often prints its cause there.
	Stdout        string
	SkippedStdout int64
	// Closed is true when the close was asked for (Close, Stop): the
	// connection ended as intended, which is not a failure.
	Closed bool

	// An HTTP exchange.

	// Status is the HTTP status of the answer, when there was one.
	Status int
	// ContentType is the answer's Content-Type, for a body MCP does not
	// allow.
	ContentType string
	// Body is a one-line excerpt of the answer: blank space collapsed, an
	// HTML page's text without its tags, at most 200 bytes; for a result
	// that does not decode, its first bytes.
	Body string
	// RPC is the JSON-RPC error an HTTP error's body held, if any.
	RPC *Error
	// WWWAuthenticate and AuthServer are the authorization hints of an
	// error status (the WWW-Authenticate and Mcp-Auth-Server headers).
	WWWAuthenticate string
	AuthServer      string
	// RetryAfter is the delay a 429 or 503 asked for; Retries counts the
	// times the request was sent again after such an answer; NotRetried
	// says why it was not sent again ("" when there was no Retry-After).
	RetryAfter time.Duration
	Retries    int
	NotRetried string
	// SessionID is the session a server refused as expired.
	SessionID string

	// Time.

	// After is the time that ran out: the request timeout, the connect
	// timeout, the write stall timeout.
	After time.Duration
	// Notify is true for a notification that timed out (HTTP only).
	Notify bool

	// The answer.

	// Problem says what is wrong, in words: with an answer ("both result
	// and error"), a body ("a body that is not JSON"), why a listing
	// stopped or an SSE stream could not be resumed.
	Problem string
	// Size is the length of an answer over the frame cap, Limit the cap.
	Size  int64
	Limit int
	// Pages and Cursor are where a listing cut short stopped.
	Pages  int
	Cursor string

	// Protocol versions and extensions (ErrUnsupported).

	// Version is the version the server answered with, or (Refused) the
	// one we offered and it refused; Supported the versions we speak;
	// Theirs the ones the server listed, when it did.
	Version   string
	Supported []string
	Theirs    []string
	Refused   bool
	// Extension is the extension the server did not declare.
	Extension string

	// A tool's arguments and output; a skill's verification.

	// Tool is the tool whose arguments were refused, whose output its
	// outputSchema refused, or (ErrNotFound) the name no server offers.
	Tool string
	// Got is what arguments encoded as ("a JSON array"), or what a skill's
	// file was found to be; Want what the skill's entry says.
	Got  string
	Want string
	// Location (a JSON pointer into structuredContent) and Violation are
	// the first place a tool's output broke its outputSchema.
	Location  string
	Violation string
	// Skill (the URI of its SKILL.md), URI (the file checked; "" for the
	// entry) and Check (messages.SkillCheckSize, ...) name a skill that
	// failed verification.
	Skill string
	URI   string
	Check string

	// Generation is the connection a reconnection replaced, Next the one
	// that replaced it.
	Generation uint64
	Next       uint64

	// State is the manager's state of an unavailable server ("failed",
	// "breaker open", ...); Cause is then its last error.
	State string

	form form
}

// Error reads as the error always has for its kind and case (the README's
// errors table quotes the texts): one line, naming the server and the
// request when known.
func (e *CallError) Error() string { return e.text() }

// Is makes errors.Is(err, e.Kind) true.
func (e *CallError) Is(target error) bool {
	return target == e.Kind && target != nil
}

// Unwrap returns the Cause.
func (e *CallError) Unwrap() error { return e.Cause }

// Find is the outermost *CallError in err's tree for which is returns
// true, or nil. The runtime tells apart cases of one kind with it:
// Find(err, (*CallError).Replaced).
func Find(err error, is func(*CallError) bool) *CallError {
	for depth := 0; err != nil && depth < 32; depth++ {
		if e, ok := err.(*CallError); ok && is(e) {
			return e
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				if e := Find(inner, is); e != nil {
					return e
				}
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}

// ctxKind is the kind of the failure of a call whose context ended.
func ctxKind(cause error) error {
	if errors.Is(cause, context.DeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return context.Canceled
}
