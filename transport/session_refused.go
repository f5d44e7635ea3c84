package transport

import (
	"net/http"
	"strings"

	"github.com/mcpactor/mcpactor/internal/callerr"
)

// sessionRefused reports whether an error answer to a message that carried
// a session id says that the session is gone, so that the message was not
// processed and a new session must be started
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
//
// The specification says 404. Servers in the field say it otherwise: the
// reference TypeScript server (server-everything's streamableHttp, and the
// many servers written after it) answers a session id it does not know,
// after a restart for instance, with 400 "Bad Request: No valid session ID
// provided", as a JSON-RPC error or as text. Left unrecognised, that one
// restart fails every later call of the client. The rule, kept narrow so
// that an ordinary bad request is never taken for an expiry (which would
// cost a new session and send the request a second time):
//
//   - 404: the session is gone, whatever the body;
//   - another 4xx, except those about the caller rather than the session
//     (401, 403, 407: authorization; 429: rate limits), when the body's
//     text or its JSON-RPC error message names the session ("session") and
//     says it is not valid: "invalid", "no valid", "not valid", "not
//     found", "unknown", "expired", "terminated", "does not exist" or "no
//     such", case-insensitively.
//
// Only a message that carried a session id is judged; without one, no
// session can have been refused.
func sessionRefused(e *callerr.Error) bool {
	switch {
	case e.Status == http.StatusNotFound:
		return true
	case e.Status < 400 || e.Status > 499:
		return false
	case e.Status == http.StatusUnauthorized, e.Status == http.StatusForbidden,
		e.Status == http.StatusProxyAuthRequired, e.Status == http.StatusTooManyRequests:
		return false
	}
	return namesInvalidSession(e.Body) || e.RPC != nil && namesInvalidSession(e.RPC.Message)
}

// invalidSessionWords are the words that, beside "session", say a session
// is not valid.
var invalidSessionWords = []string{
	"invalid", "no valid", "not valid", "not found", "unknown", "expired", "terminated", "does not exist", "no such",
}

// namesInvalidSession reports whether text says a session is not valid.
func namesInvalidSession(text string) bool {
	t := strings.ToLower(text)
	if !strings.Contains(t, "session") {
		return false
	}
	for _, w := range invalidSessionWords {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}
