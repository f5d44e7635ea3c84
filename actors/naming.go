package actors

import (
	"github.com/mcpactor/mcpactor/internal/callerr"
)

// named returns err with the request's method in the errors that end a
// request but are made for the whole connection: a transport closed (one
// value fails every pending request) and an SSE stream with no response. Their
// text then names the server and the method, as every error of a request
// does (README, "Errors"). The error is copied, never changed: others may
// hold the same value. It runs only for a failed request.
//
//go:noinline
func named(method string, err error) error {
	if e, ok := err.(*callerr.Error); ok && e.Method == "" && (callerr.TransportClosed(e) == e || callerr.NoResponse(e) == e) {
		cp := *e
		cp.Method = method
		return &cp
	}
	return err
}
