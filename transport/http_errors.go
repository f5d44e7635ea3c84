package transport

import (
	"errors"
	"strconv"
	"strings"
)

// ErrHTTPStatus matches every *HTTPStatusError.
var ErrHTTPStatus = errors.New("HTTP error status")

// HTTPStatusError is a request an HTTP server answered with a status that
// is not a success. Its text is "HTTP <status>: <body text>", with the
// authorization hints a server sent ("[WWW-Authenticate: ...;
// Mcp-Auth-Server: ...]") so that the caller, or the OAuth layer, can act
// on them. The request was not retried: a 5xx says nothing about whether
// the server acted on it.
type HTTPStatusError struct {
	Server          string
	Method          string
	Status          int
	Body            string // the start of the body, as text
	WWWAuthenticate string // the WWW-Authenticate header, if any
	AuthServer      string // the Mcp-Auth-Server header, if any
	// RPC is the JSON-RPC error the body held, if it held one.
	RPC *RPCErrorBody
}

// RPCErrorBody is the JSON-RPC error object an HTTP error's body carried.
type RPCErrorBody struct {
	Code    int64
	Message string
	Data    []byte
}

func (e *HTTPStatusError) Error() string {
	var b strings.Builder
	b.WriteString("HTTP ")
	b.WriteString(strconv.Itoa(e.Status))
	b.WriteString(": ")
	b.WriteString(e.Body)
	var hints []string
	if e.WWWAuthenticate != "" {
		hints = append(hints, "WWW-Authenticate: "+e.WWWAuthenticate)
	}
	if e.AuthServer != "" {
		hints = append(hints, "Mcp-Auth-Server: "+e.AuthServer)
	}
	if len(hints) > 0 {
		b.WriteString(" [")
		b.WriteString(strings.Join(hints, "; "))
		b.WriteString("]")
	}
	return b.String()
}

// Is makes errors.Is(err, ErrHTTPStatus) true.
func (e *HTTPStatusError) Is(target error) bool { return target == ErrHTTPStatus }

// ErrSessionExpired matches every *SessionExpiredError.
var ErrSessionExpired = errors.New("session expired")

// SessionExpiredError fails a request that an HTTP server answered 404 while
// it carried a session id: the session is gone, and the server did not
// process the request. The transport tells its owner, which starts a new
// session (a new connection generation); the request may then be sent
// once more.
type SessionExpiredError struct {
	Server    string
	Method    string
	SessionID string
}

func (e *SessionExpiredError) Error() string {
	return "MCP server " + strconv.Quote(e.Server) + ": session expired (HTTP 404 to " + e.Method + ")"
}

// Is makes errors.Is(err, ErrSessionExpired) true.
func (e *SessionExpiredError) Is(target error) bool { return target == ErrSessionExpired }

// ErrNoResponse matches every *NoResponseError.
var ErrNoResponse = errors.New("no response")

// NoResponseError fails a request whose SSE stream ended before its
// response arrived and could not be resumed: the server gave its events
// no ids, or the resumption budget ran out.
type NoResponseError struct {
	Server string
	ID     int64
	Reason string // why it could not be resumed
}

func (e *NoResponseError) Error() string {
	s := "No response received for request ID " + strconv.FormatInt(e.ID, 10)
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrNoResponse) true.
func (e *NoResponseError) Is(target error) bool { return target == ErrNoResponse }

// ErrBadBody matches every *BadBodyError.
var ErrBadBody = errors.New("bad response body")

// BadBodyError reports an HTTP answer whose body is not what MCP allows:
// not JSON, an unexpected content type, or no body at all. It names the
// server and shows the first bytes.
type BadBodyError struct {
	Server      string
	Method      string
	Status      int
	ContentType string
	Head        string // the first bytes of the body
	Problem     string
}

func (e *BadBodyError) Error() string {
	s := "MCP server " + strconv.Quote(e.Server) + " answered " + e.Method + " with " + e.Problem +
		" (HTTP " + strconv.Itoa(e.Status)
	if e.ContentType != "" {
		s += ", Content-Type " + e.ContentType
	}
	s += ")"
	if e.Head != "" {
		s += ": body starts " + strconv.Quote(e.Head)
	}
	return s
}

// Is makes errors.Is(err, ErrBadBody) true.
func (e *BadBodyError) Is(target error) bool { return target == ErrBadBody }
