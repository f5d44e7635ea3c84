package actors

import "github.com/mcpactor/mcpactor/messages"

// named returns err with the request's method in the errors that end a
// request but are made for the whole connection: a *TransportClosedError
// (one value fails every pending request) and a *NoResponseError. Their
// text then names the server and the method, as every error of a request
// does (README, "Errors"). The error is copied, never changed: others may
// hold the same value. It runs only for a failed request.
//
//go:noinline
func named(method string, err error) error {
	switch e := err.(type) {
	case *messages.TransportClosedError:
		if e.Method == "" {
			cp := *e
			cp.Method = method
			return &cp
		}
	case *messages.NoResponseError:
		if e.Method == "" {
			cp := *e
			cp.Method = method
			return &cp
		}
	}
	return err
}
