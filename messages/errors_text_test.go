package messages

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
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
		if got := (&Error{Code: tc.code, Message: tc.msg}).Error(); got != tc.want {
			t.Errorf("Error %d %q: %q, want %q", tc.code, tc.msg, got, tc.want)
		}
	}
}

// A cancelled call names the server, the method and the id, and still
// matches its context's cause.
func TestCanceledErrorText(t *testing.T) {
	err := error(NewCanceled(&CallError{Server: "files", Method: "tools/call", ID: Int64ID(7), Cause: context.Canceled}))
	if got, want := err.Error(), `MCP server "files": tools/call (id 7) cancelled: context canceled`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(err, context.Canceled) {
		t.Error("not context.Canceled")
	}
	unsent := NewCanceled(&CallError{Server: "files", Method: "tools/call", Cause: context.DeadlineExceeded})
	if got, want := unsent.Error(), `MCP server "files": tools/call cancelled: context deadline exceeded`; got != want || !errors.Is(unsent, context.DeadlineExceeded) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := NewCanceled(&CallError{Cause: context.Canceled}).Error(); got != "context canceled" {
		t.Errorf("bare: %q", got)
	}
}

// The errors that end a request name, in their text, the server and the
// request (method and id, when known); without them, the reference text
// alone, which notifications/cancelled gives as its reason. A write that
// met a broken pipe is left out when the exit status says more.
func TestRequestErrorTextsNameServerAndMethod(t *testing.T) {
	pipe := &os.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{NewTimeout(&CallError{After: 200 * time.Millisecond}), "Request timeout after 200ms"},
		{NewTimeout(&CallError{Server: "files", Method: "tools/call", ID: Int64ID(7), After: 200 * time.Millisecond}),
			`MCP server "files": tools/call (id 7): Request timeout after 200ms`},
		{NewTimeout(&CallError{Server: "files", Method: "notifications/roots/list_changed", Notify: true, After: time.Second}),
			`MCP server "files": notifications/roots/list_changed: Notify timeout after 1000ms`},
		{&RPCError{Server: "files", Method: "tools/call", ID: Int64ID(7), Code: -32602, Message: "Invalid params"},
			`MCP server "files": tools/call (id 7): MCP error -32602: Invalid params`},
		{NewTransportClosed(&CallError{Server: "files", Method: "tools/call", ExitStatus: "signal: killed", Cause: pipe, Stderr: "server ready on stdio"}),
			`MCP server "files": tools/call: Transport closed: signal: killed; stderr: server ready on stdio`},
		{NewTransportClosed(&CallError{Server: "files", Method: "tools/call", Cause: pipe}),
			`MCP server "files": tools/call: Transport closed: write |1: broken pipe`},
		{NewTransportClosed(&CallError{Server: "files", Cause: NewWriteStall(&CallError{After: time.Second}), ExitStatus: "signal: killed"}),
			`MCP server "files": Transport closed: signal: killed: write stalled: the server read none of our input for 1000ms`},
		{NewFrameTooLarge(&CallError{Server: "files", Method: "tools/call", ID: Int64ID(2), Size: 20, Limit: 10}),
			`MCP server "files": tools/call (id 2): response of 20 bytes exceeds the 10-byte frame limit`},
		{NewNoResponse(&CallError{Server: "remote", Method: "tools/call", ID: Int64ID(4), Problem: "no event ids"}),
			`MCP server "remote": tools/call: No response received for request ID 4 (no event ids)`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
	tc := NewTransportClosed(&CallError{Server: "files", ExitStatus: "signal: killed", Cause: pipe})
	if !errors.Is(tc, syscall.EPIPE) {
		t.Error("the broken pipe left the chain, not only the text")
	}
}

// What a server printed on stdout shows in the errors that end a
// connection and time out a connect.
func TestStdoutInErrors(t *testing.T) {
	tc := NewTransportClosed(&CallError{Server: "s", ExitStatus: "exit status 1", Stderr: "oops", Stdout: "Error: no API key"})
	if got, want := tc.Error(), `MCP server "s": Transport closed: exit status 1; stderr: oops; stdout (not JSON-RPC): Error: no API key`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, tc := range []struct {
		e    *CallError
		want string
	}{
		{NewConnectTimeout(&CallError{Server: "s", After: time.Second}), `Connection to MCP server "s" timed out after 1000ms`},
		{NewConnectTimeout(&CallError{Server: "s", After: time.Second, SkippedStdout: 1, Stdout: "Listening on :8080"}),
			`Connection to MCP server "s" timed out after 1000ms; 1 non-JSON line on stdout was skipped: "Listening on :8080"`},
		{NewConnectTimeout(&CallError{Server: "s", After: time.Second, SkippedStdout: 3, Stdout: "Welcome!"}),
			`Connection to MCP server "s" timed out after 1000ms; 3 non-JSON lines on stdout were skipped, the first: "Welcome!"`},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// A 2026-07-28 request whose stream broke twice reaches the caller as an
// ErrHTTP whose answer broke off (found by the soak: it once matched no
// root error, docs/reliability.md); the runtime tells it apart, and the
// text says what happened.
func TestStreamBrokenMatchesHTTP(t *testing.T) {
	var err error = fmt.Errorf("call: %w", NewStreamBroken(&CallError{Server: "s", ID: Int64ID(7)}))
	if !errors.Is(err, ErrHTTP) {
		t.Errorf("%v does not match ErrHTTP", err)
	}
	if e := Find(err, (*CallError).BrokenAnswer); e == nil || !e.StreamBroken() || e.Unreachable() {
		t.Errorf("%v: not told apart as a stream broken", err)
	}
	if got, want := err.Error(), `call: MCP server "s": the response stream of request 7 broke before its response`; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

// Each case of a *CallError survives its JSON (a cluster hop's form):
// kind, case and fields, so the text reads the same.
func TestCallErrorJSONRoundTrip(t *testing.T) {
	for _, e := range []*CallError{
		NewTimeout(&CallError{Server: "files", Method: "tools/call", ID: Int64ID(7), After: 200 * time.Millisecond}),
		NewSessionExpired(&CallError{Server: "r", Method: "tools/call", SessionID: "abc", Status: 404}),
		NewReplaced(&CallError{Server: "s", Generation: 2, Next: 3}),
		NewCanceled(&CallError{Server: "s", Method: "ping", Cause: context.DeadlineExceeded}),
		NewHTTPStatus(&CallError{Server: "r", Status: 500, URL: "http://h/mcp", RPC: &Error{Code: -1, Message: "no"}}),
	} {
		b, err := e.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var back CallError
		back.Cause = e.Cause
		if err := back.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		if back.Error() != e.Error() || back.Kind != e.Kind || back.form != e.form {
			t.Errorf("%s: back as %q (kind %v)", b, back.Error(), back.Kind)
		}
	}
}
