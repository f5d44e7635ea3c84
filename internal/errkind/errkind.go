// Package errkind declares the kinds of failure a caller tells apart with
// errors.Is: the sentinels the root package exports. They live here, below
// both messages (whose ConfigError matches ErrConfig) and internal/callerr
// (whose *Error carries one as its Kind), because callerr's carrier names
// messages' types (ID, Error) and messages cannot import it back.
package errkind

import "errors"

// The kinds, all in one list. Every *callerr.Error has one of them as its
// Kind (or the caller's context error); *callerr.RPCError matches ErrRPC
// and *messages.ConfigError ErrConfig. ErrNotJSONRPC and
// ErrInvalidRequestID, which mark frames the decoder refuses, stand beside
// the JSON-RPC error object in messages.
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
