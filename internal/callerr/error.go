// Package callerr is the runtime's error carrier: the one error type
// (*Error, the root package's mcpactor.Error) every failure of a call, a
// connect, a close or a manager is, its cases within a kind (which text it
// reads as, what the runtime tells apart), their constructors and the
// functions that find a case in an error's chain, and its form for a
// cluster hop. The kinds themselves are internal/errkind's sentinels.
package callerr

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/mcpactor/mcpactor/messages"
)

// Error is every failure of a call, a connect, a close or a manager:
// its Kind (one of internal/errkind's sentinels, or context.Canceled /
// context.DeadlineExceeded for a caller's context that ended), where it
// happened (Server, Method, ID, URL), its Cause, and the details of its
// kind in the fields that apply. errors.Is(err, kind) matches Kind;
// errors.Unwrap gives Cause. The root package exports it as Error.
//
// No credential of a configuration appears in its text or fields, even
// where the server quoted one back: it reads "REDACTED".
type Error struct {
	// Kind is the sentinel the error matches.
	Kind error
	// Server is the server's name; Method and ID the request's, when the
	// failure is a request's (ID is zero otherwise).
	Server string
	Method string
	ID     messages.ID
	// URL is the URL an HTTP request went to, credentials masked.
	URL string
	// Cause is the error beneath: the operating system's, the dialer's,
	// the context's, the decoder's, a server's last error; for a
	// connection ended by a reconnection or a write stall, an *Error
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
	RPC *messages.Error
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
	// Size is the length of an answer over the frame cap, Limit the cap;
	// for a request that waited out the queue timeout, Limit is the
	// connection's in-flight slots (ServerConfig.MaxInFlight).
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
func (e *Error) Error() string { return e.text() }

// Is makes errors.Is(err, e.Kind) true.
func (e *Error) Is(target error) bool {
	return target == e.Kind && target != nil
}

// Unwrap returns the Cause.
func (e *Error) Unwrap() error { return e.Cause }

// find is the outermost *Error in err's tree whose case is one of forms,
// or nil.
func find(err error, forms ...form) *Error {
	for depth := 0; err != nil && depth < 32; depth++ {
		if e, ok := err.(*Error); ok && slices.Contains(forms, e.form) {
			return e
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				if e := find(inner, forms...); e != nil {
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
