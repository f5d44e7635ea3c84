package transport

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/proctest"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// An answer that carries a pending request's id but cannot be used fails
// that request at once, with an error naming the problem, and the
// connection lives on. Before, it was counted as malformed and the caller
// waited out its whole timeout.
func TestUnusableAnswerFailsItsCallAtOnce(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, tc := range []struct {
		name, line, problem string
		limit               int
	}{
		{"both result and error", `{"jsonrpc":"2.0","id":{{id}},"result":{},"error":{"code":-32000,"message":"x"}}`, "both result and error", 0},
		{"too deeply nested", `{"jsonrpc":"2.0","id":{{id}},"result":{"content":` + deep + `}}`, "nesting deeper than", 0},
		{"over the frame cap with the id last", `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 300<<10) + `"}]},"id":{{id}}}`, "", 256 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, testserver.Options{}, nil, nil, func(c *StdioConfig) {
				if tc.limit > 0 {
					c.MaxFrameSize = tc.limit
				}
			})
			start := time.Now()
			_, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, toolParams("reply-raw", map[string]any{"line": tc.line}), RequestOptions{})
			if d := time.Since(start); d > 10*time.Second { // the request timeout is 30 s
				t.Errorf("took %v: the call waited for its timeout", d)
			}
			if tc.limit > 0 {
				if !errors.Is(err, errkind.ErrBadResponse) {
					t.Fatalf("got %v, want a FrameTooLargeError", err)
				}
			} else {
				var bad *callerr.Error
				if !(errors.As(err, &bad) && errors.Is(bad, errkind.ErrBadResponse)) || !errors.Is(err, errkind.ErrBadResponse) || !strings.Contains(bad.Problem, tc.problem) || bad.Method != messages.MethodToolsCall {
					t.Fatalf("got %v, want a BadResponseError naming %q", err, tc.problem)
				}
				if st := s.conn.Stats(); st[BadResponses] != 1 || st[Malformed] != 0 {
					t.Errorf("stats %+v: want one bad response, nothing malformed", st)
				}
			}
			s.mustEcho("still usable")
		})
	}
}

// A server that closes its stdout but keeps running can answer nothing:
// pending and new calls fail at once, not after the close graces.
func TestStdoutClosedWhileTheServerRuns(t *testing.T) {
	s := startServer(t, testserver.Options{IgnoreSIGTERM: true}, nil, nil, func(c *StdioConfig) {
		c.CloseGrace, c.TermGrace = 5*time.Second, 5*time.Second
	})
	s.mustEcho("up")
	pending := make(chan error, 1)
	go func() {
		_, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, toolParams("sleep", map[string]any{"ms": 60000}), RequestOptions{})
		pending <- err
	}()
	start := time.Now()
	_, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, toolParams("close-stdout", nil), RequestOptions{})
	if !errors.Is(err, errkind.ErrTransportClosed) || !errors.Is(err, errStdoutClosed) {
		t.Fatalf("the call that closed stdout: %v", err)
	}
	if err := <-pending; !errors.Is(err, errkind.ErrTransportClosed) {
		t.Errorf("the pending call: %v", err)
	}
	if _, err := s.echo(harness.Context(t), "after"); !errors.Is(err, errkind.ErrTransportClosed) {
		t.Errorf("a new call: %v", err)
	}
	if d := time.Since(start); d > 4*time.Second { // the close graces are 5 s each
		t.Errorf("the calls failed after %v, not at once", d)
	}
	closeForcibly(t, s)
}

// closeForcibly closes s without its grace periods, for servers that would
// sit them out (they ignore SIGTERM), and waits for the end.
func closeForcibly(t *testing.T, s *server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	s.conn.Close(ctx)
	select {
	case <-s.conn.Done():
	case <-time.After(harness.Bound):
		t.Fatal("the transport never ended after a forced close")
	}
}

// A server request whose id JSON-RPC does not allow is answered with
// Invalid Request and id null (JSON-RPC 2.0 §5), counted, and never
// reaches the owner; an error reply with id null is logged with the
// server's own code and message.
func TestInvalidServerRequestsAreAnsweredAndCounted(t *testing.T) {
	var logs harness.Log
	sys := harness.ActorSystem(t)
	r, owner := newRecorder(t, sys)
	s := startServer(t, testserver.Options{}, owner, sys, func(c *StdioConfig) { c.Logger = logs.Logger() })
	lines := []string{
		`{"jsonrpc":"2.0","id":null,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":true,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected end"}}`,
	}
	if _, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, toolParams("send-raw", map[string]any{"lines": lines}), RequestOptions{}); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "four Invalid Request answers at the server", func() bool {
		return len(s.stderr.WithPrefix("testserver: response to unknown request id null with error -32600")) == 4
	})
	if st := s.conn.Stats(); st[InvalidRequests] != 4 || st[InboundRequests] != 0 || st[Malformed] != 0 {
		t.Errorf("stats %+v", st)
	}
	select {
	case m := <-r.ch:
		t.Errorf("the owner was handed %#v", m)
	default:
	}
	if !strings.Contains(logs.String(), "code=-32700") || !strings.Contains(logs.String(), `"Parse error: unexpected end"`) {
		t.Errorf("the id-null error was not logged in the server's words:\n%s", logs.String())
	}
}

// Progress for a token nobody waits on is dropped progress, not a
// notification for the owner.
func TestProgressForNoPendingCallIsDropped(t *testing.T) {
	sys := harness.ActorSystem(t)
	r, owner := newRecorder(t, sys)
	s := startServer(t, testserver.Options{}, owner, sys, nil)
	line := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"nobody","progress":1}}`
	if _, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, toolParams("send-raw", map[string]any{"lines": []string{line}}), RequestOptions{}); err != nil {
		t.Fatal(err)
	}
	s.mustEcho("after") // the frames are handled in order: the progress is done with
	if st := s.conn.Stats(); st[DroppedProgress] != 1 {
		t.Errorf("DroppedProgress = %d", st[DroppedProgress])
	}
	select {
	case m := <-r.ch:
		t.Errorf("the owner was handed %#v", m)
	default:
	}
}

// A panic in the transport actor stops it: its process is killed and
// reaped, each pending call fails once with an error naming the panic, new
// calls fail at once, and nothing is left running (goleak at the end).
func TestTransportActorPanicIsContained(t *testing.T) {
	var logs harness.Log
	sys := harness.ActorSystem(t)
	r, owner := newRecorder(t, sys)
	s := startServer(t, testserver.Options{}, owner, sys, func(c *StdioConfig) { c.Logger = logs.Logger() })
	pid := s.pid()
	s.mustEcho("up")
	const n = 20
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, toolParams("sleep", map[string]any{"ms": 60000}), RequestOptions{})
			errs <- err
		}()
	}
	harness.WaitFor(t, "the calls to be in flight", func() bool { return s.conn.InFlight() == n })
	injectPanic(s.conn, "boom")
	for range n {
		select {
		case err := <-errs:
			var pe *PanicError
			if !errors.Is(err, errkind.ErrTransportClosed) || !errors.As(err, &pe) || pe.Value != "boom" {
				t.Errorf("pending call: %v", err)
			}
		case <-time.After(harness.Bound):
			t.Fatal("a pending call never ended")
		}
	}
	select {
	case <-s.conn.Done():
	case <-time.After(harness.Bound):
		t.Fatal("the transport never published its end")
	}
	if _, err := s.echo(harness.Context(t), "after"); !errors.Is(err, errkind.ErrTransportClosed) {
		t.Errorf("a new call: %v", err)
	}
	if closed := recv[TransportClosed](t, r); !errors.Is(closed.Err, errkind.ErrTransportClosed) {
		t.Errorf("owner told %v", closed.Err)
	}
	proctest.WaitGone(t, pid)
	if !strings.Contains(logs.String(), "transport actor panicked") || !strings.Contains(logs.String(), "goroutine") {
		t.Errorf("the panic was not logged with its stack:\n%.500s", logs.String())
	}
}
