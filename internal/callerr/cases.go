package callerr

import (
	"errors"

	"github.com/mcpactor/mcpactor/internal/errkind"
)

// form is the case of a *Error within its kind: which of the texts it
// reads as, and what the runtime tells apart (a session that expired from
// another error status, a connection replaced from one that ended). It is
// set by the constructors below and carried across a cluster hop by the
// error's JSON encoding.
type form uint8

const (
	formPlain form = iota // the Kind's own text
	formTransportClosed
	formReplaced
	formWriteStall
	formTimeout
	formConnectTimeout
	formIncompleteClose
	formCanceled
	formStart
	formUnsupportedVersion
	formUnsupported
	formExtensionNotDeclared
	formFrameTooLarge
	formBadResponse
	formInvalidResult
	formPagination
	formArguments
	formHTTPStatus
	formSessionExpired
	formNoResponse
	formBadBody
	formUnreachable
	formBrokenAnswer
	formAuthorization
	formStreamBroken
	formFallback
	formUnavailable
	formUnknownTool
	formUnknownServer
	formManagerClosed
	formQueueTimeout
	formCount
)

// formNames name the cases on the wire (a cluster hop).
var formNames = [formCount]string{
	"", "transport-closed", "replaced", "write-stall", "timeout", "connect-timeout", "incomplete-close",
	"canceled", "start", "unsupported-version", "unsupported", "extension-not-declared", "frame-too-large",
	"bad-response", "invalid-result", "pagination", "arguments", "http-status", "session-expired",
	"no-response", "bad-body", "unreachable", "broken-answer", "authorization", "stream-broken", "fallback",
	"unavailable", "unknown-tool", "unknown-server", "manager-closed", "queue-timeout",
}

// with sets e's kind and case. The constructors take a pointer so that
// an error is built on the heap, where it goes anyway, and not copied
// through the frames of the request path (hotpath_invariants_test.go
// bounds the stack of a waiting call).
func with(e *Error, kind error, f form) *Error {
	e.Kind, e.form = kind, f
	return e
}

// The constructors, one per case: each takes the fields that apply and
// sets Kind.

// NewTransportClosed ends the requests pending on a connection that ended
// (Server, Method, ExitStatus, Stderr, Stdout, Closed, Cause).
func NewTransportClosed(e *Error) *Error {
	return with(e, errkind.ErrTransportClosed, formTransportClosed)
}

// NewReplaced is the Cause of the end of calls pending on a connection a
// reconnection replaced (Server, Generation, Next).
func NewReplaced(e *Error) *Error { return with(e, errkind.ErrTransportClosed, formReplaced) }

// NewWriteStall is the Cause of the end of a connection whose server read
// none of its input for After.
func NewWriteStall(e *Error) *Error { return with(e, errkind.ErrTransportClosed, formWriteStall) }

// NewTimeout fails a request with no answer within After (Server, Method,
// ID, Notify).
func NewTimeout(e *Error) *Error { return with(e, errkind.ErrTimeout, formTimeout) }

// NewConnectTimeout fails a connect slower than After (Server,
// SkippedStdout, Stdout).
func NewConnectTimeout(e *Error) *Error { return with(e, errkind.ErrTimeout, formConnectTimeout) }

// NewIncompleteClose reports a Close whose context (Cause) ended before
// the teardown did.
// Closed is set: the close was asked for, and a caller tells this case
// from a request's or a connect's timeout by it.
func NewIncompleteClose(e *Error) *Error {
	e.Closed = true
	return with(e, errkind.ErrTimeout, formIncompleteClose)
}

// NewCanceled fails a request whose context ended first; Cause is the
// context's cause, and Kind context.DeadlineExceeded or context.Canceled.
func NewCanceled(e *Error) *Error { return with(e, ctxKind(e.Cause), formCanceled) }

// NewStart reports a server that could not be started (Server, Command,
// Cause).
func NewStart(e *Error) *Error { return with(e, errkind.ErrStart, formStart) }

// NewUnsupportedVersion reports a version disagreement (Server, Version,
// Supported, Refused, Theirs).
func NewUnsupportedVersion(e *Error) *Error {
	return with(e, errkind.ErrUnsupported, formUnsupportedVersion)
}

// NewUnsupported refuses a method the connection's version (Version) does
// not have.
func NewUnsupported(e *Error) *Error { return with(e, errkind.ErrUnsupported, formUnsupported) }

// NewExtensionNotDeclared refuses a request of an Extension the server did
// not declare.
func NewExtensionNotDeclared(e *Error) *Error {
	return with(e, errkind.ErrUnsupported, formExtensionNotDeclared)
}

// NewFrameTooLarge fails a request whose answer (Size) was over the frame
// cap (Limit).
func NewFrameTooLarge(e *Error) *Error { return with(e, errkind.ErrBadResponse, formFrameTooLarge) }

// NewBadResponse fails a request whose answer cannot be used (Problem).
func NewBadResponse(e *Error) *Error { return with(e, errkind.ErrBadResponse, formBadResponse) }

// NewInvalidResult reports a result that does not decode (Cause, Body),
// a tool's output its outputSchema refuses (Tool, Location, Violation),
// or a skill that fails verification (Skill, URI, Check, Want, Got).
func NewInvalidResult(e *Error) *Error { return with(e, errkind.ErrBadResponse, formInvalidResult) }

// NewPagination reports a listing cut short (Pages, Cursor, Problem).
func NewPagination(e *Error) *Error { return with(e, errkind.ErrBadResponse, formPagination) }

// NewArguments refuses arguments that cannot be sent (Tool, Got, or
// Method and Cause).
func NewArguments(e *Error) *Error { return with(e, errkind.ErrInvalidArguments, formArguments) }

// NewHTTPStatus is an HTTP error status (Status, URL, Body, RPC, the
// hints).
func NewHTTPStatus(e *Error) *Error { return with(e, errkind.ErrHTTP, formHTTPStatus) }

// NewSessionExpired fails a request whose session (SessionID) the server
// refused (Status).
func NewSessionExpired(e *Error) *Error { return with(e, errkind.ErrHTTP, formSessionExpired) }

// NewNoResponse fails a request whose SSE stream ended before its response
// and could not be resumed (Problem says why).
func NewNoResponse(e *Error) *Error { return with(e, errkind.ErrHTTP, formNoResponse) }

// NewBadBody reports an HTTP answer whose body MCP does not allow
// (Problem, Status, ContentType, Body).
func NewBadBody(e *Error) *Error { return with(e, errkind.ErrHTTP, formBadBody) }

// NewRequestFailed fails a request whose HTTP exchange failed (Cause):
// the answer had begun and broke off when Status (its status) is set;
// otherwise no answer came, ErrAuthorization when Cause is the
// Authorizer's, ErrHTTP when not.
func NewRequestFailed(e *Error) *Error {
	switch {
	case e.Status != 0:
		return with(e, errkind.ErrHTTP, formBrokenAnswer)
	case errors.Is(e.Cause, errkind.ErrAuthorization):
		return with(e, errkind.ErrAuthorization, formAuthorization)
	}
	return with(e, errkind.ErrHTTP, formUnreachable)
}

// NewStreamBroken fails a 2026-07-28 request whose response stream broke
// before its response, twice (Cause: how; Status the stream's status).
func NewStreamBroken(e *Error) *Error { return with(e, errkind.ErrHTTP, formStreamBroken) }

// NewFallback reports an http server that neither Streamable HTTP nor the
// legacy HTTP+SSE transport tried after it could reach: Cause joins both
// failures, the legacy one first, and Kind is the legacy one's.
func NewFallback(e *Error, legacy, streamable error) *Error {
	e.Cause = errors.Join(legacy, streamable)
	kind := errkind.ErrHTTP
	var le *Error
	if errors.As(legacy, &le) && le.Kind != nil {
		kind = le.Kind
	}
	return with(e, kind, formFallback)
}

// NewUnavailable fails a manager's call to a server that cannot take it
// now (State; Cause its last error).
func NewUnavailable(e *Error) *Error {
	return with(e, errkind.ErrServerUnavailable, formUnavailable)
}

// NewUnknownTool reports a tool (or prompt) name no managed server offers
// (Tool).
func NewUnknownTool(e *Error) *Error { return with(e, errkind.ErrNotFound, formUnknownTool) }

// NewUnknownServer reports a server name the manager does not manage
// (Server).
func NewUnknownServer(e *Error) *Error { return with(e, errkind.ErrNotFound, formUnknownServer) }

// NewManagerClosed is a manager's answer after Close.
func NewManagerClosed() *Error { return with(&Error{}, errkind.ErrStopped, formManagerClosed) }

// NewQueueTimeout fails a request that waited After for one of the Limit
// in-flight slots of a full connection (Server, Method); it was never
// sent, so it has no ID.
func NewQueueTimeout(e *Error) *Error { return with(e, errkind.ErrTimeout, formQueueTimeout) }

// The cases the runtime tells apart within a kind. Each returns the
// outermost *Error of its case in err's tree (errors.Unwrap and
// errors.Join's Unwrap() []error), or nil: a caller that needs the case's
// fields has them without a second look, and one that does not compares
// with nil.

// Replaced finds the error that ended calls on a connection a reconnection
// replaced.
func Replaced(err error) *Error { return find(err, formReplaced) }

// WriteStalled finds the error that ended a connection whose server stopped
// reading its input.
func WriteStalled(err error) *Error { return find(err, formWriteStall) }

// ConnectTimeout finds the error that is a connect that timed out.
func ConnectTimeout(err error) *Error { return find(err, formConnectTimeout) }

// IncompleteClose finds the error that is a Close that ran out of time.
func IncompleteClose(err error) *Error { return find(err, formIncompleteClose) }

// SessionExpired finds the error that is a request an HTTP server refused
// for its session.
func SessionExpired(err error) *Error { return find(err, formSessionExpired) }

// HTTPStatus finds the error that is an HTTP error status (Status).
func HTTPStatus(err error) *Error { return find(err, formHTTPStatus) }

// Unreachable finds the error that is an HTTP request that got no answer.
func Unreachable(err error) *Error { return find(err, formUnreachable) }

// StreamBroken finds the error that is a 2026-07-28 response stream that
// broke before its response, twice.
func StreamBroken(err error) *Error { return find(err, formStreamBroken) }

// NoResponse finds the error that is an SSE stream that ended before the
// response.
func NoResponse(err error) *Error { return find(err, formNoResponse) }

// BadBody finds the error that is an HTTP answer whose body MCP does not
// allow.
func BadBody(err error) *Error { return find(err, formBadBody) }

// FrameTooLarge finds the error that is an answer over the frame cap.
func FrameTooLarge(err error) *Error { return find(err, formFrameTooLarge) }

// InvalidResult finds the error that is a result that does not decode, an
// output its schema refuses, or a skill that fails verification.
func InvalidResult(err error) *Error { return find(err, formInvalidResult) }

// Fallback finds the error that holds both HTTP transports' failures.
func Fallback(err error) *Error { return find(err, formFallback) }

// Canceled finds the error that is a request whose context ended first.
func Canceled(err error) *Error { return find(err, formCanceled) }

// TransportClosed finds the error that ends the requests pending on a
// connection that ended.
func TransportClosed(err error) *Error { return find(err, formTransportClosed) }

// Timeout finds the error that is a request that got no answer in time.
// QueueTimeout is a request that waited out the queue timeout, unsent.
func QueueTimeout(err error) *Error { return find(err, formQueueTimeout) }

func Timeout(err error) *Error { return find(err, formTimeout) }

// UnknownTool finds the error that is a tool or prompt name no managed server
// offers.
func UnknownTool(err error) *Error { return find(err, formUnknownTool) }

// UnknownServer finds the error that is a server name the manager does not
// manage.
func UnknownServer(err error) *Error { return find(err, formUnknownServer) }

// Unavailable finds the error that is a manager's server that cannot take a
// call now.
func Unavailable(err error) *Error { return find(err, formUnavailable) }

// Start finds the error that is a server that could not be started.
func Start(err error) *Error { return find(err, formStart) }

// BrokenAnswer finds the error that is an HTTP answer, or a 2026-07-28
// response stream, that broke off.
func BrokenAnswer(err error) *Error { return find(err, formBrokenAnswer, formStreamBroken) }
