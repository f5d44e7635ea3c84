package callerr

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/messages"
)

// A cancelled call names the server, the method and the id, and still
// matches its context's cause.
func TestCanceledErrorText(t *testing.T) {
	err := error(NewCanceled(&Error{Server: "files", Method: "tools/call", ID: messages.Int64ID(7), Cause: context.Canceled}))
	if got, want := err.Error(), `MCP server "files": tools/call (id 7) cancelled: context canceled`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(err, context.Canceled) {
		t.Error("not context.Canceled")
	}
	unsent := NewCanceled(&Error{Server: "files", Method: "tools/call", Cause: context.DeadlineExceeded})
	if got, want := unsent.Error(), `MCP server "files": tools/call cancelled: context deadline exceeded`; got != want || !errors.Is(unsent, context.DeadlineExceeded) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := NewCanceled(&Error{Cause: context.Canceled}).Error(); got != "context canceled" {
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
		{NewTimeout(&Error{After: 200 * time.Millisecond}), "Request timeout after 200ms"},
		{NewTimeout(&Error{Server: "files", Method: "tools/call", ID: messages.Int64ID(7), After: 200 * time.Millisecond}),
			`MCP server "files": tools/call (id 7): Request timeout after 200ms`},
		{NewTimeout(&Error{Server: "files", Method: "notifications/roots/list_changed", Notify: true, After: time.Second}),
			`MCP server "files": notifications/roots/list_changed: Notify timeout after 1000ms`},
		{&RPCError{Server: "files", Method: "tools/call", ID: messages.Int64ID(7), Code: -32602, Message: "Invalid params"},
			`MCP server "files": tools/call (id 7): MCP error -32602: Invalid params`},
		{NewTransportClosed(&Error{Server: "files", Method: "tools/call", ExitStatus: "signal: killed", Cause: pipe, Stderr: "server ready on stdio"}),
			`MCP server "files": tools/call: Transport closed: signal: killed; stderr: server ready on stdio`},
		{NewTransportClosed(&Error{Server: "files", Method: "tools/call", Cause: pipe}),
			`MCP server "files": tools/call: Transport closed: write |1: broken pipe`},
		{NewTransportClosed(&Error{Server: "files", Cause: NewWriteStall(&Error{After: time.Second}), ExitStatus: "signal: killed"}),
			`MCP server "files": Transport closed: signal: killed: write stalled: the server read none of our input for 1000ms`},
		{NewFrameTooLarge(&Error{Server: "files", Method: "tools/call", ID: messages.Int64ID(2), Size: 20, Limit: 10}),
			`MCP server "files": tools/call (id 2): response of 20 bytes exceeds the 10-byte frame limit`},
		{NewNoResponse(&Error{Server: "remote", Method: "tools/call", ID: messages.Int64ID(4), Problem: "no event ids"}),
			`MCP server "remote": tools/call: No response received for request ID 4 (no event ids)`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
	tc := NewTransportClosed(&Error{Server: "files", ExitStatus: "signal: killed", Cause: pipe})
	if !errors.Is(tc, syscall.EPIPE) {
		t.Error("the broken pipe left the chain, not only the text")
	}
}

// What a server printed on stdout shows in the errors that end a
// connection and time out a connect.
func TestStdoutInErrors(t *testing.T) {
	tc := NewTransportClosed(&Error{Server: "s", ExitStatus: "exit status 1", Stderr: "oops", Stdout: "Error: no API key"})
	if got, want := tc.Error(), `MCP server "s": Transport closed: exit status 1; stderr: oops; stdout (not JSON-RPC): Error: no API key`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, tc := range []struct {
		e    *Error
		want string
	}{
		{NewConnectTimeout(&Error{Server: "s", After: time.Second}), `Connection to MCP server "s" timed out after 1000ms`},
		{NewConnectTimeout(&Error{Server: "s", After: time.Second, SkippedStdout: 1, Stdout: "Listening on :8080"}),
			`Connection to MCP server "s" timed out after 1000ms; 1 non-JSON line on stdout was skipped: "Listening on :8080"`},
		{NewConnectTimeout(&Error{Server: "s", After: time.Second, SkippedStdout: 3, Stdout: "Welcome!"}),
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
	var err error = fmt.Errorf("call: %w", NewStreamBroken(&Error{Server: "s", ID: messages.Int64ID(7)}))
	if !errors.Is(err, errkind.ErrHTTP) {
		t.Errorf("%v does not match ErrHTTP", err)
	}
	if e := BrokenAnswer(err); e == nil || StreamBroken(err) != e || Unreachable(err) != nil {
		t.Errorf("%v: not told apart as a stream broken", err)
	}
	if got, want := err.Error(), `call: MCP server "s": the response stream of request 7 broke before its response`; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

// Each case of a *Error survives its JSON (a cluster hop's form):
// kind, case and fields, so the text reads the same.
func TestErrorJSONRoundTrip(t *testing.T) {
	for _, e := range []*Error{
		NewTimeout(&Error{Server: "files", Method: "tools/call", ID: messages.Int64ID(7), After: 200 * time.Millisecond}),
		NewSessionExpired(&Error{Server: "r", Method: "tools/call", SessionID: "abc", Status: 404}),
		NewReplaced(&Error{Server: "s", Generation: 2, Next: 3}),
		NewCanceled(&Error{Server: "s", Method: "ping", Cause: context.DeadlineExceeded}),
		NewHTTPStatus(&Error{Server: "r", Status: 500, URL: "http://h/mcp", RPC: &messages.Error{Code: -1, Message: "no"}}),
	} {
		b, err := Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back Error
		back.Cause = e.Cause
		if err := Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.Error() != e.Error() || back.Kind != e.Kind || back.form != e.form {
			t.Errorf("%s: back as %q (kind %v)", b, back.Error(), back.Kind)
		}
	}
}

// A caller of the public API tells the cases of a kind by fields (the
// root package's Error doc): the constructors set them.
func TestCasesToldByFields(t *testing.T) {
	closeTimeout := NewIncompleteClose(&Error{Server: "s", Cause: context.DeadlineExceeded})
	if !closeTimeout.Closed || closeTimeout.Method != "" || !errors.Is(closeTimeout, errkind.ErrTimeout) {
		t.Errorf("a Close that ran out of time: Closed %v, Method %q", closeTimeout.Closed, closeTimeout.Method)
	}
	broken := NewRequestFailed(&Error{Server: "s", Status: 200, Cause: errors.New("reset")})
	if BrokenAnswer(broken) != broken || Unreachable(broken) != nil || !errors.Is(broken, errkind.ErrHTTP) {
		t.Errorf("an answer that broke off (Status 200) read as %q", broken)
	}
	none := NewRequestFailed(&Error{Server: "s", Cause: errors.New("refused")})
	if Unreachable(none) != none || BrokenAnswer(none) != nil {
		t.Errorf("a request with no answer (no Status) read as %q", none)
	}
}
