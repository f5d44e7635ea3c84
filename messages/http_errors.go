package messages

import (
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// HTTPStatusError is a request an HTTP server answered with a status that
// is not a success. Its text names the server, the status, the URL and the
// request, shows a one-line excerpt of the body, and the authorization
// hints a server sent ("[WWW-Authenticate: ...; Mcp-Auth-Server: ...]") so
// that the caller, or the OAuth layer, can act on them. The request was not
// retried: a 5xx says nothing about whether the server acted on it. The
// one exception is a 429 or 503 with Retry-After, which says to come back
// later: a request safe to send again is sent again after that delay
// (RetryAfter, Retries and NotRetried tell what happened), as
// docs/features.md, "Retry-After", describes.
type HTTPStatusError struct {
	Server string
	Method string
	// URL is the URL requested, its credentials (userinfo, secret query
	// parameters) masked.
	URL    string
	Status int
	// Body is a one-line excerpt of the body: blank space collapsed, the
	// text of an HTML page without its tags, at most 200 bytes, with the
	// server's configured header values masked.
	Body            string
	WWWAuthenticate string // the WWW-Authenticate header, if any
	AuthServer      string // the Mcp-Auth-Server header, if any
	// RPC is the JSON-RPC error the body held, if it held one.
	RPC *RPCErrorBody
	// RetryAfter is the delay the answer's Retry-After asked for (a 429
	// or 503), 0 when it had none.
	RetryAfter time.Duration
	// Retries counts the times the request was sent again after such an
	// answer before this one.
	Retries int
	// NotRetried says why the runtime did not wait RetryAfter and send
	// the request again ("" when the answer had no Retry-After): the
	// request was not safe to repeat, the delay would pass the call's
	// deadline or the cap on waits, or the retries were spent.
	NotRetried string
}

// RPCErrorBody is the JSON-RPC error object an HTTP error's body carried.
type RPCErrorBody struct {
	Code    int64
	Message string
	Data    []byte
}

// Error reads `MCP server "<name>": HTTP <status> from <url> to <method>:
// <body> [<hints>]`, each part only when known; a body holding a JSON-RPC
// error shows its message and code.
func (e *HTTPStatusError) Error() string {
	var b strings.Builder
	if e.Server != "" {
		b.WriteString("MCP server " + strconv.Quote(e.Server) + ": ")
	}
	b.WriteString("HTTP ")
	b.WriteString(strconv.Itoa(e.Status))
	if e.URL != "" {
		b.WriteString(" from ")
		b.WriteString(e.URL)
	}
	if m := shownMethod(e.Method); m != "" {
		b.WriteString(" to ")
		b.WriteString(m)
	}
	switch {
	case e.RPC != nil && e.RPC.Message != "":
		// The JSON-RPC error says it better than its JSON.
		b.WriteString(": ")
		b.WriteString(cutLine(e.RPC.Message, 200))
		b.WriteString(" (JSON-RPC error ")
		b.WriteString(strconv.FormatInt(e.RPC.Code, 10))
		b.WriteString(")")
	case e.Body != "":
		b.WriteString(": ")
		b.WriteString(e.Body)
	}
	var hints []string
	if e.WWWAuthenticate != "" {
		hints = append(hints, "WWW-Authenticate: "+e.WWWAuthenticate)
	}
	if e.AuthServer != "" {
		hints = append(hints, "Mcp-Auth-Server: "+e.AuthServer)
	}
	if e.RetryAfter > 0 || e.NotRetried != "" {
		hints = append(hints, "Retry-After: "+e.RetryAfter.String())
	}
	if e.Retries > 0 {
		hints = append(hints, "retried "+strconv.Itoa(e.Retries)+" times")
	}
	if e.NotRetried != "" {
		hints = append(hints, "not retried: "+e.NotRetried)
	}
	if len(hints) > 0 {
		b.WriteString(" [")
		b.WriteString(strings.Join(hints, "; "))
		b.WriteString("]")
	}
	return b.String()
}

// shownMethod is the method an error names: the one the user's call sent.
// The stateless protocol's server/discover is the runtime's own probe at
// connect time, which the user never asked for; an error during it names
// the server and its URL only.
func shownMethod(method string) string {
	if method == MethodServerDiscover {
		return ""
	}
	return method
}

// Is makes errors.Is(err, ErrHTTPStatus) true.
func (e *HTTPStatusError) Is(target error) bool { return target == ErrHTTPStatus }

// SessionExpiredError fails a request that an HTTP server refused because
// the session id it carried is no longer valid: a 404, as the
// specification has it, or a 4xx whose body says so (sessionRefused). The
// server did not process the request. The transport tells its owner, which
// starts a new session (a new connection generation); the request may then
// be sent once more.
type SessionExpiredError struct {
	Server    string
	Method    string
	SessionID string
	Status    int // the HTTP status of the refusal: 404, or the 4xx a server used instead
}

// Error reads `MCP server "<server>": session expired (HTTP <status> to
// <method>)`, the method only when the user's call sent it.
func (e *SessionExpiredError) Error() string {
	s := "MCP server " + strconv.Quote(e.Server) + ": session expired (HTTP " + strconv.Itoa(e.Status)
	if m := shownMethod(e.Method); m != "" {
		s += " to " + m
	}
	return s + ")"
}

// Is makes errors.Is(err, ErrSessionExpired) true.
func (e *SessionExpiredError) Is(target error) bool { return target == ErrSessionExpired }

// NoResponseError fails a request whose SSE stream ended before its
// response arrived and could not be resumed: the server gave its events
// no ids, or the resumption budget ran out.
type NoResponseError struct {
	Server string
	Method string // the request's method, when known
	ID     int64
	Reason string // why it could not be resumed
}

// Error reads `MCP server "<name>": <method>: No response received for
// request ID <id> (<reason>)`, each part only when known.
func (e *NoResponseError) Error() string {
	var b strings.Builder
	writeRequestPrefix(&b, e.Server, e.Method, ID{})
	b.WriteString("No response received for request ID " + strconv.FormatInt(e.ID, 10))
	if e.Reason != "" {
		b.WriteString(" (" + e.Reason + ")")
	}
	return b.String()
}

// Is makes errors.Is(err, ErrNoResponse) true.
func (e *NoResponseError) Is(target error) bool { return target == ErrNoResponse }

// BadBodyError reports an HTTP answer whose body is not what MCP allows:
// not JSON, an unexpected content type, or no body at all. It names the
// server and the URL, and shows the first bytes.
type BadBodyError struct {
	Server      string
	Method      string
	URL         string // the URL requested, credentials masked
	Status      int
	ContentType string
	Head        string // a one-line excerpt of the start of the body
	Problem     string
}

// Error names the server, its URL and the method when known, the problem,
// the HTTP status and Content-Type, and the first bytes of the body.
func (e *BadBodyError) Error() string {
	s := "MCP server " + strconv.Quote(e.Server)
	if e.URL != "" {
		s += " at " + e.URL
	}
	s += " answered"
	if m := shownMethod(e.Method); m != "" {
		s += " " + m
	}
	s += " with " + e.Problem + " (HTTP " + strconv.Itoa(e.Status)
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

// RequestError fails a request whose HTTP exchange failed before an answer
// came (the connection was refused or reset, the name did not resolve, TLS
// failed; or its Authorizer failed), or whose answer broke off
// (BrokenAnswer). The transport lives
// on; the next request makes a new connection.
type RequestError struct {
	Server string
	Method string
	URL    string // the URL requested, credentials masked
	// BrokenAnswer is true when the server had begun to answer and the
	// body broke off: it was reached, so the error is not ErrUnreachable.
	BrokenAnswer bool
	Err          error
}

// Error names the server, its URL and the method when known, and says
// whether the server was unreachable, the authorization failed or the
// answer broke off, followed by the cause on one line.
func (e *RequestError) Error() string {
	var b strings.Builder
	b.WriteString("MCP server ")
	b.WriteString(strconv.Quote(e.Server))
	m := shownMethod(e.Method)
	if e.BrokenAnswer {
		if e.URL != "" {
			b.WriteString(" at ")
			b.WriteString(e.URL)
		}
		b.WriteString(": the answer")
		if m != "" {
			b.WriteString(" to " + m)
		}
		b.WriteString(" broke off")
	} else {
		if errors.Is(e.Err, ErrAuthorization) {
			b.WriteString(": authorization failed")
		} else {
			b.WriteString(" unreachable")
		}
		if e.URL != "" {
			b.WriteString(" at ")
			b.WriteString(e.URL)
		}
		if m != "" {
			b.WriteString(" (" + m + ")")
		}
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(oneLine(e.Err.Error()))
	}
	return b.String()
}

// Is makes errors.Is(err, ErrUnreachable) true for a request that got no
// answer, errors.Is(err, ErrBrokenAnswer) for one whose answer broke off,
// and errors.Is(err, ErrAuthorization) for one that could not be
// authorized.
func (e *RequestError) Is(target error) bool {
	switch {
	case e.BrokenAnswer:
		return target == ErrBrokenAnswer
	case errors.Is(e.Err, ErrAuthorization):
		return target == ErrAuthorization
	}
	return target == ErrUnreachable
}

// Unwrap returns the cause: the dial, TLS or read error, or the
// Authorizer's.
func (e *RequestError) Unwrap() error { return e.Err }

// cutLine is s on one line, at most n bytes (cut at a character
// boundary, "..." added).
func cutLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// oneLine joins the lines of a message.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// StreamBrokenError fails a request of the stateless protocol (2026-07-28)
// whose response stream broke before the response: that protocol has no
// resumption, and the request must be issued again with a new id
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http),
// which the client does once, within the caller's deadline.
type StreamBrokenError struct {
	Server string
	ID     int64
	Err    error // how it broke, if known
}

// Error reads `MCP server "<server>": the response stream of request <id>
// broke before its response: <cause>`, the cause only when known.
func (e *StreamBrokenError) Error() string {
	s := "MCP server " + strconv.Quote(e.Server) + ": the response stream of request " + strconv.FormatInt(e.ID, 10) + " broke before its response"
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is makes errors.Is(err, ErrStreamBroken) true, and ErrBrokenAnswer
// too: to a caller, the server's answer broke off.
func (e *StreamBrokenError) Is(target error) bool {
	return target == ErrStreamBroken || target == ErrBrokenAnswer
}

// Unwrap returns how the stream broke, if known.
func (e *StreamBrokenError) Unwrap() error { return e.Err }
