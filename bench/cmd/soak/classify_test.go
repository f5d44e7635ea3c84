package main

import "testing"

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
