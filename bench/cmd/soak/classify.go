package main

import (
	"context"
	"errors"
	"slices"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// class is how a call ended, as a caller tells it with errors.Is and
// errors.As on the root package's sentinels and types (the runtime's
// documented contract: every error is one of them, wraps one, or is the
// caller's context error). A call the soak cannot classify is cUnknown,
// which fails the run.
type class uint8

const (
	cUnknown        class = iota
	cResult               // a result
	cToolError            // a result with isError
	cTimeout              // no answer within the request timeout (ErrTimeout)
	cCancelled            // the caller's context ended first
	cTransport            // the connection failed under the call (see cause)
	cServerDown           // the manager refused: the server is down (ErrServerUnavailable)
	cQueueTimeout         // no in-flight slot within the queue timeout
	cRPCError             // the server answered with a JSON-RPC error
	cRemoved              // no such tool or server: it was removed (Manager.Remove)
	cConnectTimeout       // the call waited for a connection longer than the connect timeout
	cProtocol             // an answer that could not be used (too large, malformed)
	nClasses
)

var classNames = [nClasses]string{"unknown", "result", "tool error", "timeout", "cancelled", "transport failed", "server down", "queue timeout", "JSON-RPC error", "removed", "connect timeout", "unusable answer"}

func (c class) String() string { return classNames[c] }

// cause refines cTransport (and cProtocol): what failed.
type cause uint8

const (
	causeNone          cause = iota
	causeExited              // the server process ended (exit status or signal)
	causeReplaced            // a repair replaced the connection
	causeClosed              // an asked-for close (Remove, Reload, Stop)
	causeWriteStall          // the server read none of its input
	causeUnreachable         // HTTP: no answer at all
	causeBroken              // HTTP: the answer broke off
	causeHTTPStatus          // HTTP: an error status
	causeSession             // HTTP: the session expired twice
	causeNoResponse          // SSE: the stream ended before the answer, not resumable
	causeBadBody             // HTTP: a body MCP does not allow
	causeFrameTooLarge       // an answer over the frame cap
	causeStreamBroken        // 2026-07-28 HTTP: the response stream broke, twice (a finding: no root error matches it)
	causeOther
	nCauses
)

var causeNames = [nCauses]string{"", "process ended", "connection replaced", "closed as asked", "write stalled", "unreachable", "answer broken off", "HTTP error status", "session expired", "stream ended unanswered", "bad body", "frame too large", "stream broken (no root error)", "other"}

func (c cause) String() string { return causeNames[c] }

// classify tells a call's outcome from its result and error, with the
// public API only: errors.Is on the root package's sentinels, and the
// Kind and documented fields of the *mcpactor.Error values in the chain
// (the cases of a kind, as mcpactor.Error's doc tells them apart).
func classify(res *messages.CallToolResult, err error) (class, cause) {
	if err == nil {
		if res != nil && res.IsError {
			return cToolError, causeNone
		}
		return cResult, causeNone
	}
	var rpc *mcpactor.RPCError
	closed := first(err, func(e *mcpactor.Error) bool {
		return e.Kind == mcpactor.ErrTransportClosed && e.Next == 0 && e.After == 0
	})
	switch {
	case errors.Is(err, mcpactor.ErrServerUnavailable):
		return cServerDown, causeNone
	case errors.Is(err, mcpactor.ErrNotFound):
		return cRemoved, causeNone
	case errors.Is(err, mcpactor.ErrStopped):
		return cServerDown, causeClosed
	case !matchesRoot(err) && first(err, brokeOff) != nil:
		// Found by the soak: the runtime returned it matching no error
		// of the root package (TestSoakFound_StreamBrokenUnmatched).
		// Classified here so that the run goes on, and failed on.
		return cTransport, causeStreamBroken
	case isQueueTimeout(err):
		return cQueueTimeout, causeNone
	case found(err, isConnectTimeout):
		return cConnectTimeout, causeNone
	case errors.Is(err, mcpactor.ErrTimeout) && !found(err, isIncompleteClose):
		return cTimeout, causeNone
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return cCancelled, causeNone
	case errors.As(err, &rpc):
		return cRPCError, causeNone
	case found(err, isFrameTooLarge):
		return cProtocol, causeFrameTooLarge
	case errors.Is(err, mcpactor.ErrBadResponse):
		return cProtocol, causeOther
	case closed != nil:
		switch {
		case found(err, isReplaced):
			return cTransport, causeReplaced
		case found(err, isWriteStalled):
			return cTransport, causeWriteStall
		case closed.Closed:
			return cTransport, causeClosed
		case closed.ExitStatus != "":
			return cTransport, causeExited
		}
		for _, c := range []cause{causeUnreachable, causeBroken, causeSession} {
			if foundHTTP(err, c) {
				return cTransport, c
			}
		}
		return cTransport, causeOther
	case found(err, isWriteStalled):
		return cTransport, causeWriteStall
	}
	for _, c := range []cause{causeUnreachable, causeBroken, causeHTTPStatus, causeSession, causeNoResponse, causeBadBody} {
		if foundHTTP(err, c) {
			return cTransport, c
		}
	}
	if errors.Is(err, mcpactor.ErrTransportClosed) {
		return cTransport, causeOther
	}
	return cUnknown, causeNone
}

// The cases the soak tells apart within a kind, by the fields
// mcpactor.Error's doc names for them.
var (
	// isConnectTimeout: a connect slower than its timeout, which has no
	// request (Method) and was not a close.
	isConnectTimeout = func(e *mcpactor.Error) bool {
		return e.Kind == mcpactor.ErrTimeout && e.Method == "" && !e.Closed
	}
	// isIncompleteClose: a Close or Stop that ran out of time.
	isIncompleteClose = func(e *mcpactor.Error) bool { return e.Kind == mcpactor.ErrTimeout && e.Closed }
	// isFrameTooLarge: an answer over the frame cap (Limit).
	isFrameTooLarge = func(e *mcpactor.Error) bool { return e.Kind == mcpactor.ErrBadResponse && e.Limit > 0 }
	// isReplaced: a connection a reconnection replaced (Next).
	isReplaced = func(e *mcpactor.Error) bool { return e.Kind == mcpactor.ErrTransportClosed && e.Next != 0 }
	// isWriteStalled: a connection whose server read none of its input
	// for After.
	isWriteStalled = func(e *mcpactor.Error) bool { return e.Kind == mcpactor.ErrTransportClosed && e.After > 0 }
)

// brokeOff: an HTTP answer (or a response stream) that began, with a 2xx
// status, and broke off; told by its fields whatever its Kind, for the
// finding of an error that matched no root error.
func brokeOff(e *mcpactor.Error) bool {
	return e.SessionID == "" && e.Problem == "" && e.Status >= 200 && e.Status < 300
}

// httpCause is the case of an ErrHTTP error, in the order mcpactor.Error's
// doc tells them; causeNone for an http server's fallback (both attempts
// joined in its Cause), whose attempts tell theirs.
func httpCause(e *mcpactor.Error) cause {
	if _, joined := e.Cause.(interface{ Unwrap() []error }); joined {
		return causeNone
	}
	switch {
	case e.SessionID != "":
		return causeSession
	case e.Problem != "" && e.Status == 0:
		return causeNoResponse
	case e.Problem != "":
		return causeBadBody
	case brokeOff(e):
		return causeBroken
	case e.Status != 0:
		return causeHTTPStatus
	}
	return causeUnreachable
}

// foundHTTP reports whether err's chain holds an ErrHTTP error of case c.
func foundHTTP(err error, c cause) bool {
	return found(err, func(e *mcpactor.Error) bool { return e.Kind == mcpactor.ErrHTTP && httpCause(e) == c })
}

// found reports whether err's chain holds an *mcpactor.Error for which is
// holds.
func found(err error, is func(*mcpactor.Error) bool) bool { return first(err, is) != nil }

// first is the outermost *mcpactor.Error in err's chain for which is
// holds, or nil: errors.As, asked of each error of the chain in turn.
func first(err error, is func(*mcpactor.Error) bool) *mcpactor.Error {
	for _, e := range chain(err) {
		if me, ok := e.(*mcpactor.Error); ok && is(me) {
			return me
		}
	}
	return nil
}

// isQueueTimeout: a request that waited out the queue timeout for one of
// its connection's in-flight slots, unsent: a timeout with a Method and
// the slots in Limit (no frame cap applies to a timeout).
func isQueueTimeout(err error) bool {
	return first(err, func(e *mcpactor.Error) bool {
		return e.Kind == mcpactor.ErrTimeout && e.Method != "" && e.Limit != 0
	}) != nil
}

// rootErrors are the root package's sentinels: every error the runtime
// returns should match one of them (or be the caller's context error).
var rootErrors = []error{
	mcpactor.ErrTransportClosed, mcpactor.ErrTimeout, mcpactor.ErrStart, mcpactor.ErrRPC, mcpactor.ErrHTTP,
	mcpactor.ErrAuthorization, mcpactor.ErrBadResponse, mcpactor.ErrInvalidArguments, mcpactor.ErrConfig,
	mcpactor.ErrUnsupported, mcpactor.ErrStopped, mcpactor.ErrServerUnavailable, mcpactor.ErrNotFound,
	context.Canceled, context.DeadlineExceeded,
}

func matchesRoot(err error) bool {
	for _, e := range rootErrors {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// chain is err and everything it wraps, depth first.
func chain(err error) []error {
	var out []error
	var walk func(error)
	walk = func(e error) {
		if e == nil || len(out) > 64 {
			return
		}
		out = append(out, e)
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return out
}

// spanTypes are the error.type values a call's span may carry for each
// class, after the OpenTelemetry MCP conventions the runtime follows
// (docs/telemetry.md): "" is no error.type (success), "rpc" any JSON-RPC
// code, "http" an HTTP status (the error.type of a call that failed with
// an HTTP error status, or an expired session, checked before
// transport_closed). A class with no entry in spansWanted's "0" allows
// no span.
var spanTypes = [nClasses][]string{
	cResult:         {""},
	cToolError:      {"tool_error"},
	cTimeout:        {"timeout"},
	cCancelled:      {"cancelled"},
	cTransport:      {"transport_closed", "_OTHER", "http"},
	cQueueTimeout:   {"timeout"},
	cRPCError:       {"rpc"},
	cProtocol:       {"_OTHER"},
	cConnectTimeout: {"_OTHER", "timeout"},
}

// spanTypeAllowed: a span of a call of class c may carry the error.type
// numbered code (spanTypeCode).
func spanTypeAllowed(c class, code uint8) bool {
	return int(code) < len(spanTypeCodes) && slices.Contains(spanTypes[c], spanTypeCodes[code])
}

// spansAllowed says how many CLIENT spans a call of class c may have made:
// a call the manager refused before it reached a client made none; one
// cancelled or timed out while waiting for a connection may have made
// none; every other call made exactly one.
func spansAllowed(c class, n int) bool {
	switch c {
	case cServerDown, cRemoved:
		return n == 0
	case cCancelled, cConnectTimeout:
		return n <= 1
	}
	return n == 1
}
