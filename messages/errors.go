package messages

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Sentinels for the failures a caller tells apart with errors.Is, all in
// one list. The typed errors of this package match them (each by an Is
// method beside its type) and carry the details (server, method, request
// id); the root package re-exports them. ErrNotJSONRPC and
// ErrInvalidRequestID, which mark frames the decoder refuses, stand beside
// the error object in jsonrpc_error.go.
var (
	// The transport and the connection. The texts of these six are those
	// other MCP clients use, which callers already match on (README, the
	// errors table).
	ErrTransportClosed    = errors.New("Transport closed")
	ErrTimeout            = errors.New("request timeout")
	ErrConnectTimeout     = errors.New("connect timeout")
	ErrServerNotConnected = errors.New("MCP server not connected")
	ErrUnsupportedVersion = errors.New("unsupported protocol version")
	ErrFrameTooLarge      = errors.New("frame too large")

	// The server answered, but not with a usable result, or could not be
	// started or written to.

	// ErrRPC matches every *RPCError: the server answered with a JSON-RPC
	// error.
	ErrRPC = errors.New("MCP error")
	// ErrBadResponse matches every *BadResponseError.
	ErrBadResponse = errors.New("unusable response")
	// ErrStart matches every *StartError.
	ErrStart = errors.New("could not start")
	// ErrWriteStalled matches every *WriteStallError.
	ErrWriteStalled = errors.New("write stalled")

	// The client's own refusals and outcomes.

	// ErrInvalidResult matches every *InvalidResultError.
	ErrInvalidResult = errors.New("invalid result")
	// ErrPagination matches every *PaginationError.
	ErrPagination = errors.New("listing cut short")
	// ErrConfig matches every *ConfigError.
	ErrConfig = errors.New("invalid server configuration")
	// ErrIncompleteClose matches every *IncompleteCloseError.
	ErrIncompleteClose = errors.New("close did not finish")
	// ErrReplaced matches every *ReplacedError.
	ErrReplaced = errors.New("connection replaced")
	// ErrUnsupported matches every *UnsupportedError.
	ErrUnsupported = errors.New("not part of the protocol version in use")
	// ErrInvalidArguments matches every *ArgumentsError: a request's
	// arguments that cannot be sent (they do not encode as JSON, or a
	// tool call's not as a JSON object).
	ErrInvalidArguments = errors.New("invalid arguments")

	// The HTTP transports (Streamable HTTP and legacy HTTP+SSE).

	// ErrHTTPStatus matches every *HTTPStatusError.
	ErrHTTPStatus = errors.New("HTTP error status")
	// ErrSessionExpired matches every *SessionExpiredError.
	ErrSessionExpired = errors.New("session expired")
	// ErrNoResponse matches every *NoResponseError.
	ErrNoResponse = errors.New("no response")
	// ErrBadBody matches every *BadBodyError.
	ErrBadBody = errors.New("bad response body")
	// ErrUnreachable matches a *RequestError whose request got no answer at
	// all: the connection was refused, the name did not resolve, TLS failed,
	// the URL's scheme is not one HTTP speaks.
	ErrUnreachable = errors.New("MCP server unreachable")
	// ErrBrokenAnswer matches a *RequestError whose answer broke off after
	// the server had begun it.
	ErrBrokenAnswer = errors.New("MCP server answer broke off")
	// ErrStreamBroken matches a *StreamBrokenError: a 2026-07-28 request
	// whose response stream broke before its response, twice (it was
	// issued again once). Such an error matches ErrBrokenAnswer too.
	ErrStreamBroken = errors.New("stream broken")
	// ErrAuthorization matches a *RequestError whose request could not be
	// authorized: the Authorizer (ServerConfig.Auth) failed before the server
	// could answer (its authorization server refused, was unreachable, or
	// needs the user). The error unwraps to the Authorizer's own.
	ErrAuthorization = errors.New("MCP server authorization failed")

	// A manager of servers (mcpactor.Manager).

	// ErrManagerClosed is returned by a manager's methods after Close:
	// calls, Add, Remove and Reload.
	ErrManagerClosed = errors.New("mcpactor: manager closed")
	// ErrServerUnavailable matches every *ServerUnavailableError.
	ErrServerUnavailable = errors.New("MCP server unavailable")
	// ErrUnknownTool matches every *UnknownToolError: no managed server
	// offers the exposed tool (or prompt) name.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrUnknownServer matches every *UnknownServerError: the manager
	// manages no server of that name.
	ErrUnknownServer = errors.New("unknown MCP server")
)

// TransportClosedError ends every request still pending when a transport
// stops, and is the reason the transport gives its owner. For stdio it holds
// the exit status and the tail of the server's stderr.
type TransportClosedError struct {
	Server string
	// Method is the request the close ended ("" for the connection's own
	// end, as Client.Err reports it).
	Method     string
	Cause      error  // what closed it; nil for an orderly Close
	ExitStatus string // "exit status 1", "signal: killed"; empty when unknown
	StderrTail string // the server's stderr: its first lines and its last, trimmed
	// StdoutExcerpt is what the server wrote to stdout that was not
	// JSON-RPC, and was skipped: its first lines and its last. A server
	// that fails at start often prints its cause there.
	StdoutExcerpt string
	// Closed is true when the close was asked for (Close, Stop): the
	// connection ended as intended, which is not a failure.
	Closed bool
}

// Error reads `MCP server "<name>": <method>: Transport closed: <exit
// status>: <cause>; stderr: <excerpt>; stdout (not JSON-RPC): <excerpt>`,
// each part only when known. The stderr excerpt is labelled: what a
// server printed there (a start-up banner, a warning) need not be why it
// ended. A broken pipe the write met is left out of the text when the
// exit status is known: the server's end says more than the pipe's (the
// Cause still holds it).
func (e *TransportClosedError) Error() string {
	var b strings.Builder
	writeRequestPrefix(&b, e.Server, e.Method, ID{})
	b.WriteString("Transport closed")
	cause := e.Cause
	if e.ExitStatus != "" && brokenPipe(cause) {
		cause = nil
	}
	for _, part := range []string{e.ExitStatus, errText(cause)} {
		if part != "" {
			b.WriteString(": ")
			b.WriteString(part)
		}
	}
	if e.StderrTail != "" {
		b.WriteString("; stderr: ")
		b.WriteString(e.StderrTail)
	}
	if e.StdoutExcerpt != "" {
		b.WriteString("; stdout (not JSON-RPC): ")
		b.WriteString(e.StdoutExcerpt)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrTransportClosed) true.
func (e *TransportClosedError) Is(target error) bool { return target == ErrTransportClosed }

// Unwrap returns the cause.
func (e *TransportClosedError) Unwrap() error { return e.Cause }

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// brokenPipe reports whether err is a write to a pipe (or stream) whose
// reader had gone: the consequence of the server's end, not its cause.
func brokenPipe(err error) bool {
	return err != nil && (errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe))
}

// writeRequestPrefix writes `MCP server "<name>": <method> (id <id>): `,
// each part only when known, before the text of an error about a request:
// a log line then says which server and which request, whoever reads it.
func writeRequestPrefix(b *strings.Builder, server, method string, id ID) {
	if server != "" {
		b.WriteString("MCP server ")
		b.WriteString(strconv.Quote(server))
		b.WriteString(": ")
	}
	if method = shownMethod(method); method == "" {
		return
	}
	b.WriteString(method)
	if id.IsValid() {
		b.WriteString(" (id ")
		b.WriteString(id.String())
		b.WriteString(")")
	}
	b.WriteString(": ")
}

// TimeoutError reports a request that got no answer in time. The server has
// been sent notifications/cancelled for it (never for initialize).
type TimeoutError struct {
	Server string
	Method string
	ID     ID
	After  time.Duration
	Notify bool // a notification, not a request (HTTP only)
}

// Error reads `MCP server "<name>": <method> (id <id>): Request timeout
// after <ms>ms` (or "Notify timeout ..."), each part only when known;
// with neither server nor method, the reference text alone, which is
// also the reason notifications/cancelled gives the server.
func (e *TimeoutError) Error() string {
	var b strings.Builder
	writeRequestPrefix(&b, e.Server, e.Method, e.ID)
	if e.Notify {
		b.WriteString("Notify")
	} else {
		b.WriteString("Request")
	}
	b.WriteString(" timeout after ")
	b.WriteString(strconv.FormatInt(e.After.Milliseconds(), 10))
	b.WriteString("ms")
	return b.String()
}

// Is makes errors.Is(err, ErrTimeout) true.
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// CanceledError reports a request whose context ended before its answer. Err
// is the context's cause, so errors.Is(err, context.Canceled) (or
// context.DeadlineExceeded for a caller's deadline) holds.
type CanceledError struct {
	Server string
	Method string
	ID     ID
	Err    error
}

// Error reads `MCP server "<name>": <method> (id <id>) cancelled: <cause>`,
// each part only when known (the id is not, for a call cancelled before it
// was sent); with neither server nor method, the cause alone.
func (e *CanceledError) Error() string {
	cause := "cancelled"
	if e.Err != nil {
		cause = e.Err.Error()
	}
	if e.Server == "" && e.Method == "" {
		return cause
	}
	var b strings.Builder
	if e.Server != "" {
		b.WriteString("MCP server ")
		b.WriteString(strconv.Quote(e.Server))
		b.WriteString(": ")
	}
	if e.Method != "" {
		b.WriteString(e.Method)
		b.WriteString(" ")
	}
	if e.ID.IsValid() {
		b.WriteString("(id ")
		b.WriteString(e.ID.String())
		b.WriteString(") ")
	}
	b.WriteString("cancelled: ")
	b.WriteString(cause)
	return b.String()
}

// Unwrap returns the context's cause.
func (e *CanceledError) Unwrap() error { return e.Err }

// RPCError is a JSON-RPC error response to one of our requests.
type RPCError struct {
	Server  string
	Method  string
	ID      ID
	Code    int64
	Message string
	Data    json.RawMessage
}

// Error reads `MCP server "<name>": <method> (id <id>): MCP error <code>:
// <message>`, each part of the prefix only when known.
func (e *RPCError) Error() string {
	var b strings.Builder
	writeRequestPrefix(&b, e.Server, e.Method, e.ID)
	b.WriteString((&Error{Code: e.Code, Message: e.Message}).Error())
	return b.String()
}

// Is makes errors.Is(err, ErrRPC) true.
func (e *RPCError) Is(target error) bool { return target == ErrRPC }

// ConnectTimeoutError reports a server whose connection (spawn and handshake)
// did not finish within its connect timeout. Everything it started has been
// torn down.
type ConnectTimeoutError struct {
	Server string
	After  time.Duration
	// SkippedStdout counts the lines a stdio server wrote to stdout that
	// were not JSON-RPC, and were skipped, before the timeout; FirstStdout
	// is the first of them (transport.Conn.SkippedStdout). A server that
	// prints a banner, a prompt or its failure on stdout never answers
	// the handshake, and these say why.
	SkippedStdout int64
	FirstStdout   string
}

// Error reads "Connection to MCP server "<name>" timed out after <ms>ms",
// and, when stdout lines were skipped, "; <n> non-JSON lines on stdout
// were skipped, the first: "<line>"".
func (e *ConnectTimeoutError) Error() string {
	s := "Connection to MCP server " + strconv.Quote(e.Server) + " timed out after " +
		strconv.FormatInt(e.After.Milliseconds(), 10) + "ms"
	switch {
	case e.SkippedStdout == 1:
		s += "; 1 non-JSON line on stdout was skipped: " + strconv.Quote(e.FirstStdout)
	case e.SkippedStdout > 1:
		s += "; " + strconv.FormatInt(e.SkippedStdout, 10) + " non-JSON lines on stdout were skipped, the first: " + strconv.Quote(e.FirstStdout)
	}
	return s
}

// Is makes errors.Is(err, ErrConnectTimeout) and errors.Is(err, ErrTimeout) true.
func (e *ConnectTimeoutError) Is(target error) bool {
	return target == ErrConnectTimeout || target == ErrTimeout
}

// ServerNotConnectedError reports a call to a server that is not (or no
// longer) connected.
type ServerNotConnectedError struct{ Server string }

// Error reads `MCP server not connected: <server>`.
func (e *ServerNotConnectedError) Error() string { return "MCP server not connected: " + e.Server }

// Is makes errors.Is(err, ErrServerNotConnected) true.
func (e *ServerNotConnectedError) Is(target error) bool { return target == ErrServerNotConnected }

// UnsupportedVersionError reports a server that answered initialize with a
// protocol version we do not speak (lifecycle, "Version Negotiation").
//
// Two ways to disagree: the server answered with a version we do not
// speak (Version is the server's; Supported ours), or, Refused, it refused
// the version we offered (Version is ours; Theirs what it listed, with
// none we speak, or it refused the one it listed too).
type UnsupportedVersionError struct {
	Server    string
	Version   string
	Supported []string // the versions we speak
	Refused   bool     // the server refused Version, which we offered
	Theirs    []string // the versions the server said it supports, when it said
}

// Error names the server and the version, says whether the server answered
// with a version we do not speak or refused ours, and lists the versions
// each side speaks when they are known.
func (e *UnsupportedVersionError) Error() string {
	if e.Refused {
		s := "MCP server " + strconv.Quote(e.Server) + " refused protocol version " + strconv.Quote(e.Version)
		if len(e.Theirs) > 0 {
			s += " (it supports: " + strings.Join(e.Theirs, ", ") + "; we speak: " + strings.Join(e.Supported, ", ") + ")"
		}
		return s
	}
	return "MCP server " + strconv.Quote(e.Server) + " answered with unsupported protocol version " +
		strconv.Quote(e.Version) + " (supported: " + strings.Join(e.Supported, ", ") + ")"
}

// Is makes errors.Is(err, ErrUnsupportedVersion) true.
func (e *UnsupportedVersionError) Is(target error) bool { return target == ErrUnsupportedVersion }
