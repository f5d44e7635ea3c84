package callerr

import (
	"testing"

	"github.com/mcpactor/mcpactor/messages"
)

// A server whose error message is already formatted "MCP error <code>: ..."
// (the TypeScript SDK's servers do that) is not prefixed twice; another
// code's prefix is the server's own text and stays.
func TestRPCErrorNotPrefixedTwice(t *testing.T) {
	for _, tc := range []struct {
		code      int64
		msg, want string
	}{
		{-32602, "MCP error -32602: Invalid arguments for tool echo", "MCP error -32602: Invalid arguments for tool echo"},
		{-32602, "Invalid arguments", "MCP error -32602: Invalid arguments"},
		{-32603, "MCP error -32602: inner", "MCP error -32603: MCP error -32602: inner"},
		{-32000, "", "MCP error -32000: "},
	} {
		if got := (&RPCError{Code: tc.code, Message: tc.msg}).Error(); got != tc.want {
			t.Errorf("RPCError %d %q: %q, want %q", tc.code, tc.msg, got, tc.want)
		}
		if got := (&messages.Error{Code: tc.code, Message: tc.msg}).Error(); got != tc.want {
			t.Errorf("Error %d %q: %q, want %q", tc.code, tc.msg, got, tc.want)
		}
	}
}
