package mcpactor

import (
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/messages"
)

// The kinds of failure, for errors.Is. Every error the runtime and the
// Manager return is an *Error whose Kind is one of them (or the caller's
// context error: context.Canceled, context.DeadlineExceeded), an
// *RPCError (ErrRPC), a *ConfigError (ErrConfig) or a *TaskError. Texts
// are one line and name what the caller knows (the server, its URL with
// credentials masked, the method); no credential of a configuration
// appears in them, nor in the fields of the errors below, even where the
// server quoted one back (a JSON-RPC error's message, an error page,
// stderr): it reads "REDACTED" (docs/configuration.md, "What is kept out
// of logs").
var (
	// ErrTransportClosed: the connection ended, before or while the
	// request waited: the server exited or crashed, Close was called, a
	// reconnection replaced it (Error.Next names the new one), or the
	// server read none of its input for the write stall timeout. Text:
	// `MCP server "<name>": <method>: Transport closed: <exit status>;
	// stderr: <excerpt>`.
	ErrTransportClosed = errkind.ErrTransportClosed
	// ErrTimeout: no answer within the request timeout (the server was
	// sent notifications/cancelled; text `MCP server "<name>": <method>
	// (id <id>): Request timeout after <ms>ms`), a connect slower than the
	// connect timeout (`Connection to MCP server "<name>" timed out after
	// <ms>ms`; everything was torn down), or a Close or Stop that ran out
	// of time (the server was killed, the rest goes on without the
	// caller).
	ErrTimeout = errkind.ErrTimeout
	// ErrStart: the server could not be started at all (its command is
	// missing or not executable, its dial failed); Error.Cause is the
	// operating system's error.
	ErrStart = errkind.ErrStart
	// ErrRPC: the server answered with a JSON-RPC error (*RPCError), or a
	// task failed with one (*TaskError).
	ErrRPC = errkind.ErrRPC
	// ErrHTTP: an HTTP exchange failed: an error status (Error.Status,
	// Body, the authorization hints), a session the server ended twice,
	// no answer at all (connection refused, a name that did not resolve,
	// TLS), an answer or a 2026-07-28 response stream that broke off
	// twice, an SSE stream that ended before the response, a body MCP
	// does not allow (not JSON, no body).
	ErrHTTP = errkind.ErrHTTP
	// ErrAuthorization: an HTTP request could not be authorized: its
	// Authorizer (ServerConfig.Auth) failed before the server could answer
	// (the authorization server refused or could not be reached, the user
	// step is needed). It unwraps to the Authorizer's error
	// (transport/oauth's, for an OAuth client).
	ErrAuthorization = errkind.ErrAuthorization
	// ErrBadResponse: an answer arrived but cannot be used: larger than
	// ServerConfig.MaxFrameSize (Error.Size, Limit), both result and
	// error, nested too deeply, a result that does not decode as the
	// method's result type, a tool's structured output its outputSchema
	// refuses (ValidateOutput: Error.Tool, Location, Violation), a skill's
	// file that fails verification (Error.Skill, URI, Check), a listing
	// cut short (a repeated cursor, MaxPages: Error.Pages, Cursor; the
	// items read so far come with it). The request failed at once; the
	// connection lives on.
	ErrBadResponse = errkind.ErrBadResponse
	// ErrInvalidArguments: a request's arguments cannot be sent: they do
	// not encode as JSON (a channel, a function), or a tool call's not as
	// a JSON object; the call was refused before anything was sent.
	ErrInvalidArguments = errkind.ErrInvalidArguments
	// ErrConfig: a ServerConfig that cannot work (no command or URL, an
	// unusable URL, an invalid or taken server name: *ConfigError), or a
	// server's "!command" env or header value that could not be computed
	// (it failed, timed out, or was stopped by Remove or Close; the error
	// names the server and the key, never the output); nothing was
	// started.
	ErrConfig = errkind.ErrConfig
	// ErrUnsupported: the server or the protocol version in use does not
	// have it: the server insisted on a version we do not speak
	// (Error.Version, Supported), the method is not part of the
	// connection's version (NotifyRootsChanged in the 2026-07-28 era), or
	// the server did not declare the extension (Error.Extension).
	ErrUnsupported = errkind.ErrUnsupported
	// ErrStopped: Open or Connect after Stop ("mcpactor: runtime
	// stopped"), or any Manager method after Close ("mcpactor: manager
	// closed").
	ErrStopped = errkind.ErrStopped
	// ErrServerUnavailable: a call to a server that is not, or no longer,
	// connected; or a Manager's call to a server that cannot take it now
	// (failed, breaker open, disabled, not approved; with FailFast,
	// restarting or unhealthy; a restart waited for too long):
	// Error.State is its state (a ServerState's text), Error.Cause its
	// last error.
	ErrServerUnavailable = errkind.ErrServerUnavailable
	// ErrNotFound: the Manager has no server offering that tool or prompt
	// name (Error.Tool), or no server of that name (Error.Server).
	ErrNotFound = errkind.ErrNotFound
)

// Error is every failure of a call, a connect, a close or the Manager,
// for errors.As. Its fields, set where they apply:
//
//   - Kind: one of the Err sentinels of this package, or context.Canceled /
//     context.DeadlineExceeded for a caller's context that ended first
//     (errors.Is matches Kind).
//   - Server, Method, ID (the request id; zero when none), URL (HTTP only,
//     credentials masked), Cause (errors.Unwrap; for an http server
//     neither Streamable HTTP nor the legacy HTTP+SSE transport could
//     reach, both failures joined, the legacy one first).
//   - A server process: Command (ErrStart), ExitStatus, Stderr and Stdout
//     (excerpts: the first lines and the last), SkippedStdout (non-JSON
//     lines skipped before a connect timed out; Stdout is the first),
//     Closed (the close was asked for: not a failure).
//   - An HTTP exchange: Status, ContentType, Body (a one-line excerpt),
//     RPC (the JSON-RPC error the body held), WWWAuthenticate and
//     AuthServer (authorization hints), RetryAfter, Retries and
//     NotRetried (a 429 or 503's Retry-After), SessionID.
//   - After (the timeout that ran out), Notify (a notification timed out).
//   - The answer: Problem (what is wrong, in words), Size and Limit (the
//     frame cap; for a queue timeout, Limit is the in-flight slots), Pages
//     and Cursor (a listing cut short).
//   - Versions: Version, Supported, Theirs, Refused; Extension.
//   - Tools and skills: Tool, Got, Want, Location, Violation, Skill, URI,
//     Check (messages.SkillCheckSize, ...).
//   - Generation and Next: the connection a reconnection replaced, and
//     the one that replaced it.
//   - State: a Manager's server state.
//
// Cases within a kind are told apart by these fields:
//
//   - ErrTransportClosed: Closed (the close was asked for), ExitStatus (the
//     process ended); in the chain, an *Error with Next set (a
//     reconnection replaced the connection) or with After set (the server
//     read none of its input for After).
//   - ErrTimeout: Method set (a request; with Limit too, one that waited
//     After for one of the connection's Limit in-flight slots and was
//     never sent), Closed (a Close or Stop that ran out of time), neither
//     (a connect slower than After).
//   - ErrHTTP, in this order: SessionID (a session the server refused),
//     Problem (an SSE stream that ended before the response when Status
//     is 0, a body MCP does not allow when not), a 2xx Status (an answer,
//     or a 2026-07-28 response stream, that began and broke off), another
//     Status (an error status), no Status (no answer came).
//   - ErrBadResponse: Limit (an answer over the frame cap), Violation or
//     Check (an output or a skill refused), Pages (a listing cut short).
//   - ErrServerUnavailable: State, when known, is the state that keeps the
//     Manager's server from the call; Cause its last error.
//   - ErrNotFound: Tool (no server offers it), or a Server not managed.
type Error = callerr.Error

// The other errors, for errors.As.
type (
	// RPCError is a JSON-RPC error answer: Code, Message, Data. Its text
	// is `MCP server "<name>": <method> (id <id>): MCP error <code>:
	// <message>`. A configured credential of the
	// server's that Message or Data quote is masked.
	RPCError = callerr.RPCError
	// ConfigError lists what is wrong with a ServerConfig (Server,
	// Problems); it matches ErrConfig.
	ConfigError = messages.ConfigError
)
