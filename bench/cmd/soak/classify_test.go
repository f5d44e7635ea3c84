package main

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// The error.type of a call's span, as the soak reads it, against the
// call's class (docs/telemetry.md, error.type): an HTTP error status
// without a JSON-RPC error in its body, and an expired session, carry the
// HTTP status; a JSON-RPC error its code.
func TestSpanTypeAllowed(t *testing.T) {
	for _, tc := range []struct {
		class     class
		errorType string
		ok        bool
	}{
		{cTransport, "502", true}, // an HTTP error status
		{cTransport, "503", true},
		{cTransport, "404", true}, // an expired session
		{cTransport, "transport_closed", true},
		{cTransport, "_OTHER", true},
		{cTransport, "-32603", false},
		{cRPCError, "-32602", true},
		{cRPCError, "-32000", true},
		{cRPCError, "503", false},
		{cResult, "", true},
		{cResult, "502", false},
		{cTimeout, "timeout", true},
		{cTimeout, "transport_closed", false},
		{cToolError, "tool_error", true},
		{cTransport, "bogus", false},
	} {
		if got := spanTypeAllowed(tc.class, spanTypeCode(tc.errorType)); got != tc.ok {
			t.Errorf("a %s call with error.type %q: allowed %v, want %v", tc.class, tc.errorType, got, tc.ok)
		}
	}
}

// The soak tells every case it counts from the public API alone: the
// root package's sentinels and the documented fields of *mcpactor.Error
// (its doc lists which field tells which case).
func TestClassifyByDocumentedFields(t *testing.T) {
	closedBy := func(cause error) error {
		return fmt.Errorf("call: %w", &mcpactor.Error{Kind: mcpactor.ErrTransportClosed, Server: "s", Cause: cause})
	}
	http := func(e mcpactor.Error) error { e.Kind = mcpactor.ErrHTTP; return &e }
	for _, tc := range []struct {
		name  string
		err   error
		class class
		cause cause
	}{
		{"unavailable", &mcpactor.Error{Kind: mcpactor.ErrServerUnavailable, State: "failed"}, cServerDown, causeNone},
		{"unknown tool", &mcpactor.Error{Kind: mcpactor.ErrNotFound, Tool: "t"}, cRemoved, causeNone},
		{"connect timeout", &mcpactor.Error{Kind: mcpactor.ErrTimeout, Server: "s", After: time.Second}, cConnectTimeout, causeNone},
		{"request timeout", &mcpactor.Error{Kind: mcpactor.ErrTimeout, Method: "tools/call", After: time.Second}, cTimeout, causeNone},
		{"queue timeout", &mcpactor.Error{Kind: mcpactor.ErrTimeout, Method: "tools/call", After: time.Second, Limit: 8}, cQueueTimeout, causeNone},
		{"incomplete close", &mcpactor.Error{Kind: mcpactor.ErrTimeout, Closed: true, Cause: context.DeadlineExceeded}, cCancelled, causeNone},
		{"cancelled", &mcpactor.Error{Kind: context.Canceled, Method: "tools/call", Cause: context.Canceled}, cCancelled, causeNone},
		{"frame too large", &mcpactor.Error{Kind: mcpactor.ErrBadResponse, Size: 20, Limit: 10}, cProtocol, causeFrameTooLarge},
		{"replaced", closedBy(&mcpactor.Error{Kind: mcpactor.ErrTransportClosed, Generation: 1, Next: 2}), cTransport, causeReplaced},
		{"write stall", closedBy(&mcpactor.Error{Kind: mcpactor.ErrTransportClosed, After: time.Second}), cTransport, causeWriteStall},
		{"closed", &mcpactor.Error{Kind: mcpactor.ErrTransportClosed, Closed: true}, cTransport, causeClosed},
		{"exited", &mcpactor.Error{Kind: mcpactor.ErrTransportClosed, ExitStatus: "exit status 1"}, cTransport, causeExited},
		{"closed: unreachable", closedBy(http(mcpactor.Error{URL: "http://h/mcp", Cause: errors.New("refused")})), cTransport, causeUnreachable},
		{"closed: broken", closedBy(http(mcpactor.Error{Status: 200, Cause: errors.New("reset")})), cTransport, causeBroken},
		{"closed: session", closedBy(http(mcpactor.Error{Status: 404, SessionID: "x"})), cTransport, causeSession},
		{"unreachable", http(mcpactor.Error{Cause: errors.New("refused")}), cTransport, causeUnreachable},
		{"broken stream", http(mcpactor.Error{Status: 200, ID: messages.Int64ID(3)}), cTransport, causeBroken},
		{"error status", http(mcpactor.Error{Status: 502}), cTransport, causeHTTPStatus},
		{"session", http(mcpactor.Error{Status: 404, SessionID: "x"}), cTransport, causeSession},
		{"no response", http(mcpactor.Error{Problem: "no event ids"}), cTransport, causeNoResponse},
		{"bad body", http(mcpactor.Error{Problem: "a body that is not JSON", Status: 200}), cTransport, causeBadBody},
		{"fallback", http(mcpactor.Error{Cause: errors.Join(http(mcpactor.Error{Status: 404}), http(mcpactor.Error{Status: 405}))}), cTransport, causeHTTPStatus},
		{"unmatched broken stream", &mcpactor.Error{Status: 200}, cTransport, causeStreamBroken},
	} {
		if c, ca := classify(nil, tc.err); c != tc.class || ca != tc.cause {
			t.Errorf("%s: %v: classified %s (%s), want %s (%s)", tc.name, tc.err, c, ca, tc.class, tc.cause)
		}
	}
}
