package mcpactor

import (
	"errors"
	"time"

	"github.com/mcpactor/mcpactor/messages"
)

// Errors callers test with errors.Is. The typed errors below match them and
// carry the details (server, method, request id) for errors.As. Every error
// the runtime returns matches one of them (errors.Is), or is the caller's
// own context error; the Manager's (ErrManagerClosed, ErrServerUnavailable,
// ...) stand beside the Manager. Texts are one line and name what the
// caller knows (the server, its URL with credentials masked, the method); no
// credential of a configuration appears in them, nor in the fields of the
// typed errors below, even where the server quoted one back (a JSON-RPC
// error's message, an error page, stderr): it reads "REDACTED"
// (docs/configuration.md, "What is kept out of logs").
var (
	// ErrTransportClosed: the connection ended (the server exited or
	// crashed, Close was called, the connection was replaced), before or
	// while the request waited. Text: `MCP server "<name>": <method>:
	// Transport closed: <exit status>; stderr: <excerpt>`.
	ErrTransportClosed = messages.ErrTransportClosed
	// ErrTimeout: no answer within the request timeout; the server was
	// sent notifications/cancelled. Text: `MCP server "<name>": <method>
	// (id <id>): Request timeout after <ms>ms`.
	ErrTimeout = messages.ErrTimeout
	// ErrConnectTimeout: starting the server and its handshake took longer
	// than the connect timeout; everything was torn down.
	ErrConnectTimeout = messages.ErrConnectTimeout
	// ErrStart: the server could not be started at all (its command is
	// missing or not executable, its dial failed).
	ErrStart = messages.ErrStart
	// ErrUnsupportedVersion: the server insisted on a protocol version we
	// do not speak.
	ErrUnsupportedVersion = messages.ErrUnsupportedVersion
	// ErrFrameTooLarge: the answer was larger than ServerConfig.MaxFrameSize;
	// the request failed at once and the connection lives on.
	ErrFrameTooLarge = messages.ErrFrameTooLarge
	// ErrBadResponse: the answer arrived but could not be used (both
	// result and error, nested too deeply); the request failed at once.
	ErrBadResponse = messages.ErrBadResponse
	// ErrWriteStalled: the server read none of its input for the write
	// stall timeout; the connection was failed.
	ErrWriteStalled = messages.ErrWriteStalled
	// ErrServerNotConnected: a call to a server that is not, or no longer,
	// connected.
	ErrServerNotConnected = messages.ErrServerNotConnected
	// ErrUnsupported: the method is not part of the protocol version the
	// connection speaks (NotifyRootsChanged in the 2026-07-28 era).
	ErrUnsupported = messages.ErrUnsupported
	// ErrSessionExpired: an HTTP server ended the session; the request was
	// sent once more on a new session and met the same.
	ErrSessionExpired = messages.ErrSessionExpired
	// ErrHTTPStatus: an HTTP server answered with an error status.
	ErrHTTPStatus = messages.ErrHTTPStatus
	// ErrUnreachable: an HTTP request got no answer at all (connection
	// refused or reset before an answer, the host name did not resolve,
	// TLS failed). The text names the server and its URL.
	ErrUnreachable = messages.ErrUnreachable
	// ErrBrokenAnswer: an HTTP answer broke off after the server had
	// begun it.
	ErrBrokenAnswer = messages.ErrBrokenAnswer
	// ErrStreamBroken: a 2026-07-28 request's response stream broke before
	// its response, and again when the client issued it once more; it
	// matches ErrBrokenAnswer too.
	ErrStreamBroken = messages.ErrStreamBroken
	// ErrAuthorization: an HTTP request could not be authorized: its
	// Authorizer (ServerConfig.Auth) failed before the server could answer
	// (the authorization server refused or could not be reached, the user
	// step is needed). It unwraps to the Authorizer's error
	// (transport/oauth's, for an OAuth client).
	ErrAuthorization = messages.ErrAuthorization
	// ErrNoResponse: an SSE stream ended before the response and could not
	// be resumed.
	ErrNoResponse = messages.ErrNoResponse
	// ErrBadBody: an HTTP answer whose body MCP does not allow (not JSON,
	// no body).
	ErrBadBody = messages.ErrBadBody
	// ErrRPC: the server answered with a JSON-RPC error (*RPCError).
	ErrRPC = messages.ErrRPC
	// ErrInvalidArguments: a request's arguments cannot be sent: they do
	// not encode as JSON (a channel, a function), or a tool call's not as
	// a JSON object; the call was refused before anything was sent.
	ErrInvalidArguments = messages.ErrInvalidArguments
	// ErrInvalidResult: a result that does not decode as the method's
	// result type.
	ErrInvalidResult = messages.ErrInvalidResult
	// ErrPagination: a listing cut short (a repeated cursor, MaxPages);
	// the items read so far come with it.
	ErrPagination = messages.ErrPagination
	// ErrConfig: a ServerConfig that cannot work (no command or URL, an
	// unusable URL, an invalid or taken server name); nothing was started.
	ErrConfig = messages.ErrConfig
	// ErrReplaced: the cause of the end of calls pending on a connection
	// that Reconnect (or a repair) replaced.
	ErrReplaced = messages.ErrReplaced
	// ErrIncompleteClose: Close or Stop ran out of time; the server was
	// killed, and the rest goes on without the caller.
	ErrIncompleteClose = messages.ErrIncompleteClose
	// ErrStopped is returned by Open and Connect after Stop.
	ErrStopped = errors.New("mcpactor: runtime stopped")
	// ErrUnknownTool: (manager) no managed server offers that tool or
	// prompt name; it matches every *UnknownToolError.
	ErrUnknownTool = messages.ErrUnknownTool
	// ErrUnknownServer: (manager) no managed server has that name; it
	// matches every *UnknownServerError.
	ErrUnknownServer = messages.ErrUnknownServer
)

// The typed errors, for errors.As. Each carries the server's name, and the
// request's method and id where there is one.
type (
	// TransportClosedError ends every request still pending when a
	// connection ends. For a server that exited it holds the exit status
	// and an excerpt of its stderr (the first lines and the last); Cause
	// says what closed it (a *ReplacedError for a reconnection); Closed is
	// true for a close that was asked for.
	TransportClosedError = messages.TransportClosedError
	// TimeoutError reports a request that got no answer in time (After).
	TimeoutError = messages.TimeoutError
	// CanceledError reports a request whose context ended first; it wraps
	// the context's cause, so errors.Is(err, context.Canceled) holds.
	CanceledError = messages.CanceledError
	// RPCError is a JSON-RPC error answer: Code, Message, Data. Its text
	// is `MCP server "<name>": <method> (id <id>): MCP error <code>:
	// <message>`. A configured credential of the
	// server's that Message or Data quote is masked.
	RPCError = messages.RPCError
	// ConnectTimeoutError reports a connect slower than its timeout:
	// "Connection to MCP server "<name>" timed out after <ms>ms".
	ConnectTimeoutError = messages.ConnectTimeoutError
	// StartError reports a server that could not be started, with the
	// operating system's error.
	StartError = messages.StartError
	// UnsupportedVersionError reports the version the server insisted on
	// and the ones we support.
	UnsupportedVersionError = messages.UnsupportedVersionError
	// FrameTooLargeError reports an answer over the frame cap (Size,
	// Limit).
	FrameTooLargeError = messages.FrameTooLargeError
	// BadResponseError reports an unusable answer and its Problem.
	BadResponseError = messages.BadResponseError
	// WriteStallError is the cause of the TransportClosedError of a
	// connection whose server stopped reading its input.
	WriteStallError = messages.WriteStallError
	// ArgumentsError refuses a call whose arguments cannot be sent: not
	// a JSON object (Server, Tool, what they were), or not JSON at all
	// (Err says why), before anything is sent.
	ArgumentsError = messages.ArgumentsError
	// FallbackError reports an http server that neither Streamable HTTP
	// nor the legacy HTTP+SSE transport tried after it could reach; it
	// holds both failures (errors.Is/As see each).
	FallbackError = messages.FallbackError
	// ReplacedError is the cause of the TransportClosedError of calls
	// pending on a connection that Reconnect (or a repair) replaced.
	ReplacedError = messages.ReplacedError
	// IncompleteCloseError reports a Close or Stop whose context ended
	// before the teardown did; the server was killed, and the rest goes on
	// without the caller.
	IncompleteCloseError = messages.IncompleteCloseError
	// PaginationError reports a listing cut short (a repeated cursor, or
	// MaxPages); the items read so far come with it.
	PaginationError = messages.PaginationError
	// InvalidResultError reports a result that does not decode as the
	// method's result type, or (ValidateOutput) a tool's structured output
	// its outputSchema refuses; Body shows its first bytes.
	InvalidResultError = messages.InvalidResultError
	// OutputSchemaError is the Err of an InvalidResultError when a tool's
	// structured output does not match its outputSchema: the Tool, the
	// Location in structuredContent (a JSON pointer) and the first
	// Violation.
	OutputSchemaError = messages.OutputSchemaError
	// ConfigError lists what is wrong with a ServerConfig.
	ConfigError = messages.ConfigError
	// UnsupportedError reports a method the connection's protocol version
	// does not have.
	UnsupportedError = messages.UnsupportedError
	// HTTPStatusError is an HTTP error status, with the start of its body
	// and the server's authorization hints (WWW-Authenticate,
	// Mcp-Auth-Server).
	HTTPStatusError = messages.HTTPStatusError
	// SessionExpiredError: see ErrSessionExpired.
	SessionExpiredError = messages.SessionExpiredError
	// NoResponseError reports an SSE stream that ended before the response
	// and could not be resumed.
	NoResponseError = messages.NoResponseError
	// BadBodyError reports an HTTP answer whose body MCP does not allow
	// (not JSON, no body), with its first bytes.
	BadBodyError = messages.BadBodyError
	// RequestError reports an HTTP request that got no answer
	// (ErrUnreachable) or whose answer broke off (ErrBrokenAnswer), with
	// the server, the method and the URL (credentials masked).
	RequestError = messages.RequestError
	// StreamBrokenError reports a 2026-07-28 request whose response stream
	// broke before its response (ErrStreamBroken, ErrBrokenAnswer).
	StreamBrokenError = messages.StreamBrokenError
)

// MaxPages bounds the pages one listing follows.
const MaxPages = 1000

// DefaultCloseTimeout bounds Client.Close and Runtime.Stop when their
// context has no deadline.
const DefaultCloseTimeout = 10 * time.Second
