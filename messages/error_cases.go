package messages

import (
	"errors"
)

// form is the case of a *CallError within its kind: which of the texts it
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
	formNotConnected
	formUnavailable
	formUnknownTool
	formUnknownServer
	formManagerClosed
	formCount
)

// formNames name the cases on the wire (a cluster hop).
var formNames = [formCount]string{
	"", "transport-closed", "replaced", "write-stall", "timeout", "connect-timeout", "incomplete-close",
	"canceled", "start", "unsupported-version", "unsupported", "extension-not-declared", "frame-too-large",
	"bad-response", "invalid-result", "pagination", "arguments", "http-status", "session-expired",
	"no-response", "bad-body", "unreachable", "broken-answer", "authorization", "stream-broken", "fallback",
	"not-connected", "unavailable", "unknown-tool", "unknown-server", "manager-closed",
}

// with sets e's kind and case. The constructors take a pointer so that
// an error is built on the heap, where it goes anyway, and not copied
// through the frames of the request path (hotpath_invariants_test.go
// bounds the stack of a waiting call).
func with(e *CallError, kind error, f form) *CallError {
	e.Kind, e.form = kind, f
	return e
}

// The constructors, one per case: each takes the fields that apply and
// sets Kind.

// NewTransportClosed ends the requests pending on a connection that ended
// (Server, Method, ExitStatus, Stderr, Stdout, Closed, Cause).
func NewTransportClosed(e *CallError) *CallError {
	return with(e, ErrTransportClosed, formTransportClosed)
}

// NewReplaced is the Cause of the end of calls pending on a connection a
// reconnection replaced (Server, Generation, Next).
func NewReplaced(e *CallError) *CallError { return with(e, ErrTransportClosed, formReplaced) }

// NewWriteStall is the Cause of the end of a connection whose server read
// none of its input for After.
func NewWriteStall(e *CallError) *CallError { return with(e, ErrTransportClosed, formWriteStall) }

// NewTimeout fails a request with no answer within After (Server, Method,
// ID, Notify).
func NewTimeout(e *CallError) *CallError { return with(e, ErrTimeout, formTimeout) }

// NewConnectTimeout fails a connect slower than After (Server,
// SkippedStdout, Stdout).
func NewConnectTimeout(e *CallError) *CallError { return with(e, ErrTimeout, formConnectTimeout) }

// NewIncompleteClose reports a Close whose context (Cause) ended before
// the teardown did.
func NewIncompleteClose(e *CallError) *CallError { return with(e, ErrTimeout, formIncompleteClose) }

// NewCanceled fails a request whose context ended first; Cause is the
// context's cause, and Kind context.DeadlineExceeded or context.Canceled.
func NewCanceled(e *CallError) *CallError { return with(e, ctxKind(e.Cause), formCanceled) }

// NewStart reports a server that could not be started (Server, Command,
// Cause).
func NewStart(e *CallError) *CallError { return with(e, ErrStart, formStart) }

// NewUnsupportedVersion reports a version disagreement (Server, Version,
// Supported, Refused, Theirs).
func NewUnsupportedVersion(e *CallError) *CallError {
	return with(e, ErrUnsupported, formUnsupportedVersion)
}

// NewUnsupported refuses a method the connection's version (Version) does
// not have.
func NewUnsupported(e *CallError) *CallError { return with(e, ErrUnsupported, formUnsupported) }

// NewExtensionNotDeclared refuses a request of an Extension the server did
// not declare.
func NewExtensionNotDeclared(e *CallError) *CallError {
	return with(e, ErrUnsupported, formExtensionNotDeclared)
}

// NewFrameTooLarge fails a request whose answer (Size) was over the frame
// cap (Limit).
func NewFrameTooLarge(e *CallError) *CallError { return with(e, ErrBadResponse, formFrameTooLarge) }

// NewBadResponse fails a request whose answer cannot be used (Problem).
func NewBadResponse(e *CallError) *CallError { return with(e, ErrBadResponse, formBadResponse) }

// NewInvalidResult reports a result that does not decode (Cause, Body),
// a tool's output its outputSchema refuses (Tool, Location, Violation),
// or a skill that fails verification (Skill, URI, Check, Want, Got).
func NewInvalidResult(e *CallError) *CallError { return with(e, ErrBadResponse, formInvalidResult) }

// NewPagination reports a listing cut short (Pages, Cursor, Problem).
func NewPagination(e *CallError) *CallError { return with(e, ErrBadResponse, formPagination) }

// NewArguments refuses arguments that cannot be sent (Tool, Got, or
// Method and Cause).
func NewArguments(e *CallError) *CallError { return with(e, ErrInvalidArguments, formArguments) }

// NewHTTPStatus is an HTTP error status (Status, URL, Body, RPC, the
// hints).
func NewHTTPStatus(e *CallError) *CallError { return with(e, ErrHTTP, formHTTPStatus) }

// NewSessionExpired fails a request whose session (SessionID) the server
// refused (Status).
func NewSessionExpired(e *CallError) *CallError { return with(e, ErrHTTP, formSessionExpired) }

// NewNoResponse fails a request whose SSE stream ended before its response
// and could not be resumed (Problem says why).
func NewNoResponse(e *CallError) *CallError { return with(e, ErrHTTP, formNoResponse) }

// NewBadBody reports an HTTP answer whose body MCP does not allow
// (Problem, Status, ContentType, Body).
func NewBadBody(e *CallError) *CallError { return with(e, ErrHTTP, formBadBody) }

// NewRequestFailed fails a request whose HTTP exchange failed before an
// answer (Cause): ErrAuthorization when Cause is the Authorizer's,
// ErrHTTP otherwise; broken is true when the answer had begun and broke
// off.
func NewRequestFailed(e *CallError, broken bool) *CallError {
	switch {
	case broken:
		return with(e, ErrHTTP, formBrokenAnswer)
	case errors.Is(e.Cause, ErrAuthorization):
		return with(e, ErrAuthorization, formAuthorization)
	}
	return with(e, ErrHTTP, formUnreachable)
}

// NewStreamBroken fails a 2026-07-28 request whose response stream broke
// before its response, twice (Cause: how).
func NewStreamBroken(e *CallError) *CallError { return with(e, ErrHTTP, formStreamBroken) }

// NewFallback reports an http server that neither Streamable HTTP nor the
// legacy HTTP+SSE transport tried after it could reach: Cause joins both
// failures, the legacy one first, and Kind is the legacy one's.
func NewFallback(e *CallError, legacy, streamable error) *CallError {
	e.Cause = errors.Join(legacy, streamable)
	kind := ErrHTTP
	var le *CallError
	if errors.As(legacy, &le) && le.Kind != nil {
		kind = le.Kind
	}
	return with(e, kind, formFallback)
}

// NewNotConnected fails a call to a server that is not, or no longer,
// connected.
func NewNotConnected(e *CallError) *CallError {
	return with(e, ErrServerUnavailable, formNotConnected)
}

// NewUnavailable fails a manager's call to a server that cannot take it
// now (State; Cause its last error).
func NewUnavailable(e *CallError) *CallError {
	return with(e, ErrServerUnavailable, formUnavailable)
}

// NewUnknownTool reports a tool (or prompt) name no managed server offers
// (Tool).
func NewUnknownTool(e *CallError) *CallError { return with(e, ErrNotFound, formUnknownTool) }

// NewUnknownServer reports a server name the manager does not manage
// (Server).
func NewUnknownServer(e *CallError) *CallError { return with(e, ErrNotFound, formUnknownServer) }

// NewManagerClosed is a manager's answer after Close.
func NewManagerClosed() *CallError { return with(&CallError{}, ErrStopped, formManagerClosed) }

// The cases the runtime tells apart within a kind (with Find, or on an
// error it holds).

// Replaced reports whether e ended calls on a connection a reconnection
// replaced.
func (e *CallError) Replaced() bool { return e.form == formReplaced }

// WriteStalled reports whether e ended a connection whose server stopped
// reading its input.
func (e *CallError) WriteStalled() bool { return e.form == formWriteStall }

// ConnectTimeout reports whether e is a connect that timed out.
func (e *CallError) ConnectTimeout() bool { return e.form == formConnectTimeout }

// IncompleteClose reports whether e is a Close that ran out of time.
func (e *CallError) IncompleteClose() bool { return e.form == formIncompleteClose }

// SessionExpired reports whether e is a request an HTTP server refused
// for its session.
func (e *CallError) SessionExpired() bool { return e.form == formSessionExpired }

// HTTPStatus reports whether e is an HTTP error status (Status).
func (e *CallError) HTTPStatus() bool { return e.form == formHTTPStatus }

// Unreachable reports whether e is an HTTP request that got no answer.
func (e *CallError) Unreachable() bool { return e.form == formUnreachable }

// BrokenAnswer reports whether e is an HTTP answer, or a 2026-07-28
// response stream, that broke off.
func (e *CallError) BrokenAnswer() bool {
	return e.form == formBrokenAnswer || e.form == formStreamBroken
}

// StreamBroken reports whether e is a 2026-07-28 response stream that
// broke before its response, twice.
func (e *CallError) StreamBroken() bool { return e.form == formStreamBroken }

// NoResponse reports whether e is an SSE stream that ended before the
// response.
func (e *CallError) NoResponse() bool { return e.form == formNoResponse }

// BadBody reports whether e is an HTTP answer whose body MCP does not
// allow.
func (e *CallError) BadBody() bool { return e.form == formBadBody }

// FrameTooLarge reports whether e is an answer over the frame cap.
func (e *CallError) FrameTooLarge() bool { return e.form == formFrameTooLarge }

// InvalidResult reports whether e is a result that does not decode, an
// output its schema refuses, or a skill that fails verification.
func (e *CallError) InvalidResult() bool { return e.form == formInvalidResult }

// Fallback reports whether e holds both HTTP transports' failures.
func (e *CallError) Fallback() bool { return e.form == formFallback }

// Canceled reports whether e is a request whose context ended first.
func (e *CallError) Canceled() bool { return e.form == formCanceled }

// TransportClosed reports whether e ends the requests pending on a
// connection that ended.
func (e *CallError) TransportClosed() bool { return e.form == formTransportClosed }

// Timeout reports whether e is a request that got no answer in time.
func (e *CallError) Timeout() bool { return e.form == formTimeout }

// UnknownTool reports whether e is a tool or prompt name no managed server
// offers.
func (e *CallError) UnknownTool() bool { return e.form == formUnknownTool }

// UnknownServer reports whether e is a server name the manager does not
// manage.
func (e *CallError) UnknownServer() bool { return e.form == formUnknownServer }

// Unavailable reports whether e is a manager's server that cannot take a
// call now.
func (e *CallError) Unavailable() bool { return e.form == formUnavailable }

// NotConnected reports whether e is a call to a server not connected.
func (e *CallError) NotConnected() bool { return e.form == formNotConnected }

// Start reports whether e is a server that could not be started.
func (e *CallError) Start() bool { return e.form == formStart }
