package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/proctest"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// The faults a stdio server can commit, over real pipes to a child
// process. Each test checks that the caller gets the right result or a
// clear error, that every request ends exactly once, that nothing hangs
// (every wait is bounded) and that nothing leaks (goleak in TestMain; the
// child is reaped).

// concurrently runs n calls at once and returns their n outcomes, failing
// the test if any call does not end.
func concurrently(t *testing.T, n int, call func(i int) (string, error)) ([]string, []error) {
	t.Helper()
	texts, errs := make([]string, n), make([]error, n)
	ended := make(chan int, n)
	for i := range n {
		go func() {
			texts[i], errs[i] = call(i)
			ended <- i
		}()
	}
	seen := make(map[int]bool, n)
	timeout := time.After(harness.Bound + 5*time.Second)
	for range n {
		select {
		case i := <-ended:
			if seen[i] {
				t.Fatalf("call %d ended twice", i)
			}
			seen[i] = true
		case <-timeout:
			t.Fatalf("only %d of %d calls ended", len(seen), n)
		}
	}
	return texts, errs
}

func TestNoiseOnStdoutIsSkipped(t *testing.T) {
	// A banner (two lines, neither JSON), and after every response a
	// non-JSON line, a JSON line that is not JSON-RPC, and a response to
	// an id never issued.
	s := startServer(t, testserver.Options{Banner: "Starting MCP server v1.0\nlistening on stdio", NoiseEvery: 1}, nil, nil, nil)
	ctx := harness.Context(t)
	for i := range 10 {
		s.mustEcho(fmt.Sprint("sequential ", i))
	}
	texts, errs := concurrently(t, 40, func(i int) (string, error) { return s.echo(ctx, fmt.Sprint("concurrent ", i)) })
	for i := range texts {
		if errs[i] != nil || texts[i] != fmt.Sprint("concurrent ", i) {
			t.Fatalf("call %d: %q, %v", i, texts[i], errs[i])
		}
	}
	const responses = 50
	want := Stats{Malformed: 2 + 2*responses, UnknownIDs: responses}
	harness.WaitFor(t, "the noise to be counted", func() bool { return s.conn.Stats() == want })
	if err := s.conn.Err(); err != nil {
		t.Fatalf("connection ended: %v", err)
	}
}

func TestFrameOverCapIsDiscarded(t *testing.T) {
	// A 20 MiB line against the default 16 MiB cap: dropped, counted, and
	// the answer written after it still arrives.
	s := startServer(t, testserver.Options{HugeFrameBytes: 20 << 20}, nil, nil, nil)
	s.mustEcho("after the huge frame")
	if st := s.conn.Stats(); st[Oversized] != 1 || st[Malformed] != 0 {
		t.Errorf("stats %+v, want one oversized frame", st)
	}
	s.mustEcho("still alive")
}

func TestFrameCapBoundary(t *testing.T) {
	// A frame of exactly the cap is delivered; one byte more is not.
	const limit = 1 << 20
	for _, tc := range []struct {
		size      int
		delivered bool
	}{{limit, true}, {limit + 1, false}} {
		t.Run(strconv.Itoa(tc.size), func(t *testing.T) {
			sys := harness.ActorSystem(t)
			rec, owner := newRecorder(t, sys)
			s := startServer(t, testserver.Options{HugeFrameBytes: tc.size}, owner, sys, func(c *StdioConfig) { c.MaxFrameSize = limit })
			s.mustEcho("after")
			if tc.delivered {
				n := recv[InboundNotification](t, rec)
				if n.Method != "notifications/testserver/huge_frame" || len(n.Params) < limit-100 {
					t.Errorf("got %s with %d bytes of params", n.Method, len(n.Params))
				}
			}
			want := int64(0)
			if !tc.delivered {
				want = 1
			}
			if st := s.conn.Stats(); st[Oversized] != want {
				t.Errorf("oversized %d, want %d", st[Oversized], want)
			}
		})
	}
}

func TestEndlessLine(t *testing.T) {
	// The first tools/call starts a line that never ends. The reader keeps
	// discarding it; calls time out cleanly; Close still ends and reaps.
	s := startServer(t, testserver.Options{EndlessLine: true}, nil, nil, func(c *StdioConfig) {
		c.MaxFrameSize = 1 << 20
		c.CloseGrace, c.TermGrace = 200*time.Millisecond, 200*time.Millisecond
	})
	pid := s.pid()
	ctx := harness.Context(t)
	// The server writes the line until the first call is cancelled: that
	// one must not be (NoCancel), or the line would end.
	first := make(chan error, 1)
	go func() {
		_, err := s.conn.Call(ctx, "tools/call", toolParams("echo", map[string]any{"message": "x"}), RequestOptions{Timeout: 300 * time.Millisecond, NoCancel: true})
		first <- err
	}()
	// The line has started once the server has written megabytes.
	harness.WaitFor(t, "the endless line to start", func() bool { return written(pid) > 8<<20 })
	_, errs := concurrently(t, 4, func(i int) (string, error) {
		_, err := s.conn.Call(ctx, "tools/call", toolParams("echo", map[string]any{"message": "x"}), RequestOptions{Timeout: 300 * time.Millisecond})
		return "", err
	})
	errs = append(errs, <-first)
	for i, err := range errs {
		var te *callerr.Error
		if !(errors.As(err, &te) && callerr.Timeout(te) == te) || !errors.Is(err, errkind.ErrTimeout) || err.Error() != `MCP server "ts": tools/call (id `+te.ID.String()+`): Request timeout after 300ms` {
			t.Errorf("call %d: %v, want a 300 ms timeout", i, err)
		}
	}
	if err := s.conn.Err(); err != nil {
		t.Fatalf("connection ended during the endless line: %v", err)
	}
	start := time.Now()
	if err := s.close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Close took %v", d)
	}
	proctest.AssertGone(t, pid)
}

// written returns how many bytes process pid has written so far (the
// wchar line of /proc/<pid>/io), or 0.
func written(pid int) int64 {
	io, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(io), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

func TestStderrFlood(t *testing.T) {
	// 10 MiB on stderr before the server serves: only a client that drains
	// stderr ever gets an answer. The tail kept for the error stays small.
	const flood = 10 << 20
	s := startServer(t, testserver.Options{StderrFloodBytes: flood}, nil, nil, nil)
	s.mustEcho("heard over the flood")
	// Each line is delivered or, when the callback fell behind, counted:
	// none is lost silently, and the server was never blocked.
	harness.WaitFor(t, "every flood line", func() bool {
		return s.stderr.Count()+s.conn.Stats()[DroppedStderrLines] >= flood/80
	})

	// End it with a crash: the error carries a bounded excerpt, the first
	// lines and the last.
	_, err := s.conn.Call(harness.Context(t), "tools/call", toolParams("crash", map[string]any{"code": 3, "stderr": "last words"}), RequestOptions{})
	if !errors.Is(err, errkind.ErrTransportClosed) || !strings.Contains(err.Error(), "exit status 3") || !strings.HasSuffix(err.Error(), "last words") {
		t.Fatalf("crash: %v", err)
	}
	var tce *callerr.Error
	if !(errors.As(err, &tce) && callerr.TransportClosed(tce) == tce) || len(tce.Stderr) > stderrHeadBytes+stderrTailBytes+64 {
		t.Errorf("stderr excerpt of %d bytes", len(tce.Stderr))
	}
	if !strings.HasPrefix(tce.Stderr, "testserver stderr flood line 00000001 ") {
		t.Errorf("the excerpt lost the first line: %.100q", tce.Stderr)
	}
}

// inFlight starts n progress calls and returns once the server has sent
// progress for each, so they are surely being handled. The calls' errors
// arrive on the returned channel.
func inFlight(t *testing.T, s *server, n int) <-chan error {
	t.Helper()
	ctx := harness.Context(t)
	errs := make(chan error, n)
	var started sync.WaitGroup
	started.Add(n)
	for i := range n {
		go func() {
			var once sync.Once
			tok := fmt.Sprint("inflight-", i)
			params, _ := json.Marshal(map[string]any{
				"name": "progress", "arguments": map[string]any{"steps": 100000, "intervalMs": 20},
				"_meta": map[string]any{"progressToken": tok},
			})
			key, _ := messages.ProgressTokenKey(tok)
			_, err := s.conn.Call(ctx, "tools/call", params, RequestOptions{ProgressToken: key, OnProgress: func(json.RawMessage) {
				once.Do(started.Done)
			}})
			once.Do(started.Done)
			errs <- err
		}()
	}
	started.Wait()
	return errs
}

func TestServerExitsMidRequest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stderr string
	}{
		{"with stderr", "panic: out of cheese\ngoroutine 1 [running]"},
		{"without stderr", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, testserver.Options{}, nil, nil, nil)
			pid := s.pid()
			running := inFlight(t, s, 4)
			_, err := s.conn.Call(harness.Context(t), "tools/call", toolParams("crash", map[string]any{"code": 7, "stderr": tc.stderr}), RequestOptions{})
			check := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, errkind.ErrTransportClosed) || !strings.Contains(err.Error(), "exit status 7") ||
					tc.stderr != "" && !strings.HasSuffix(err.Error(), tc.stderr) {
					t.Errorf("%s: %v", what, err)
				}
			}
			check("the crashing call", err)
			for i := range 4 {
				select {
				case err := <-running:
					check(fmt.Sprint("in-flight call ", i), err)
				case <-time.After(harness.Bound):
					t.Fatal("an in-flight call never ended")
				}
			}
			// Later calls fail at once with the same error.
			_, err = s.echo(harness.Context(t), "too late")
			check("a later call", err)
			<-s.conn.Done()
			check("Err", s.conn.Err())
			proctest.AssertGone(t, pid)
		})
	}
}

func TestExitAfterRequests(t *testing.T) {
	// The third tools/call ends the server: three calls sent together all
	// fail with the exit status and the stderr text, whichever was third.
	s := startServer(t, testserver.Options{ExitAfterRequests: 3, ExitCode: 4, StderrOnExit: "fatal: quota exceeded"}, nil, nil, nil)
	ctx := harness.Context(t)
	_, errs := concurrently(t, 3, func(i int) (string, error) {
		_, err := s.conn.Call(ctx, "tools/call", toolParams("sleep", map[string]any{"ms": 60000}), RequestOptions{})
		return "", err
	})
	for i, err := range errs {
		if !errors.Is(err, errkind.ErrTransportClosed) || err.Error() != `MCP server "ts": Transport closed: exit status 4; stderr: fatal: quota exceeded` {
			t.Errorf("call %d: %v", i, err)
		}
	}
}

func TestServerIgnoringSIGTERMIsKilled(t *testing.T) {
	s := startServer(t, testserver.Options{IgnoreSIGTERM: true}, nil, nil, func(c *StdioConfig) {
		c.CloseGrace, c.TermGrace = 200*time.Millisecond, 200*time.Millisecond
	})
	pid := s.pid()
	s.mustEcho("up") // the server has installed its signal handling
	running := inFlight(t, s, 2)
	start := time.Now()
	if err := s.close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	took := time.Since(start)
	if took > 10*time.Second {
		t.Errorf("Close took %v", took)
	}
	if took < 400*time.Millisecond {
		t.Errorf("Close took only %v: the server cannot have been killed after both grace periods", took)
	}
	for range 2 {
		if err := <-running; !errors.Is(err, errkind.ErrTransportClosed) {
			t.Errorf("pending call: %v", err)
		}
	}
	proctest.AssertGone(t, pid)
}

func TestCloseDuringForcedContext(t *testing.T) {
	// A Close whose context ends returns then, with the context's error,
	// and the transport skips the grace periods: the server is killed and
	// reaped soon after, on the transport's own time.
	s := startServer(t, testserver.Options{IgnoreSIGTERM: true}, nil, nil, nil) // 2 s graces
	pid := s.pid()
	s.mustEcho("up")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := s.conn.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close = %v, want the context's deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v with a 100ms deadline", d)
	}
	select {
	case <-s.conn.Done():
	case <-time.After(harness.Bound):
		t.Fatal("the transport never finished after a forced close")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the forced close took %v: the 2 s graces were not skipped", d)
	}
	proctest.AssertGone(t, pid)
}

func TestNeverAnsweredCallTimesOutAndIsCancelled(t *testing.T) {
	s := startServer(t, testserver.Options{NeverAnswer: true, ReportCancels: true}, nil, nil, nil)
	ctx := harness.Context(t)
	_, err := s.conn.Call(ctx, "tools/call", toolParams("echo", map[string]any{"message": "x"}), RequestOptions{Timeout: 200 * time.Millisecond})
	var te *callerr.Error
	if !(errors.As(err, &te) && callerr.Timeout(te) == te) || err.Error() != `MCP server "ts": tools/call (id `+te.ID.String()+`): Request timeout after 200ms` || te.Method != "tools/call" || !te.ID.IsValid() {
		t.Fatalf("got %#v", err)
	}
	// basic/utilities/cancellation: the server is told which request.
	line := s.stderr.Wait(t, "cancelled "+te.ID.String()+" ")
	if !strings.HasSuffix(line, "Request timeout after 200ms") {
		t.Errorf("cancellation %q", line)
	}
	// Other requests on the connection are unharmed.
	if _, err := s.conn.Call(ctx, "tools/list", nil, RequestOptions{}); err != nil {
		t.Errorf("tools/list after the timeout: %v", err)
	}
}

func TestContextCancellation(t *testing.T) {
	s := startServer(t, testserver.Options{NeverAnswer: true, ReportCancels: true}, nil, nil, nil)
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx()
			defer cancel()
			_, err := s.conn.Call(ctx, "tools/call", toolParams("echo", map[string]any{"message": "x"}), RequestOptions{})
			var ce *callerr.Error
			if !(errors.As(err, &ce) && callerr.Canceled(ce) == ce) || !errors.Is(err, tc.want) || errors.Is(err, errkind.ErrTimeout) || !ce.ID.IsValid() {
				t.Fatalf("got %#v", err)
			}
			s.stderr.Wait(t, "cancelled "+ce.ID.String()+" ")
		})
	}
	// A context already ended: nothing is sent.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.conn.Call(ctx, "tools/call", nil, RequestOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("ended context: %v", err)
	}
}

func TestNoCancelIsNeverCancelled(t *testing.T) {
	// initialize must not be cancelled: NoCancel retires the call without
	// telling the server.
	s := startServer(t, testserver.Options{NeverAnswer: true, ReportCancels: true}, nil, nil, nil)
	_, err := s.conn.Call(harness.Context(t), "tools/call", toolParams("echo", nil), RequestOptions{Timeout: 100 * time.Millisecond, NoCancel: true})
	if !errors.Is(err, errkind.ErrTimeout) {
		t.Fatalf("got %v", err)
	}
	// A cancellation sent after it would be reported before this one.
	_, err = s.conn.Call(harness.Context(t), "tools/call", toolParams("echo", nil), RequestOptions{Timeout: 100 * time.Millisecond})
	var te *callerr.Error
	if !(errors.As(err, &te) && callerr.Timeout(te) == te) {
		t.Fatalf("got %v", err)
	}
	s.stderr.Wait(t, "cancelled "+te.ID.String()+" ")
	for _, line := range s.stderr.All() {
		if strings.HasPrefix(line, "cancelled ") && line != s.mustFind("cancelled "+te.ID.String()+" ") {
			t.Errorf("unexpected cancellation %q", line)
		}
	}
}

func (s *server) mustFind(prefix string) string {
	line, _ := s.stderr.Find(prefix)
	return line
}

func TestOutOfOrderAndStringIDs(t *testing.T) {
	// Answers come back reversed, in batches, with our integer ids echoed
	// as strings: each of 256 concurrent callers still gets its own.
	s := startServer(t, testserver.Options{OutOfOrder: true, StringIDs: true}, nil, nil, nil)
	ctx := harness.Context(t)
	const n = 256
	texts, errs := concurrently(t, n, func(i int) (string, error) { return s.echo(ctx, fmt.Sprint("message #", i)) })
	for i := range n {
		if errs[i] != nil || texts[i] != fmt.Sprint("message #", i) {
			t.Errorf("call %d got %q, %v", i, texts[i], errs[i])
		}
	}
	if st := s.conn.Stats(); st != (Stats{}) {
		t.Errorf("stats %+v, want nothing dropped", st)
	}
}

func TestWriteFailureFailsAtOnce(t *testing.T) {
	// The "server" closes its stdin and lives on: our write gets EPIPE and
	// the request fails at once, not after its 30 s timeout.
	sys := harness.ActorSystem(t)
	log := &harness.Lines{}
	conn := SpawnStdio(sys.Root, sys.Root, nil, StdioConfig{
		Server: "sh", Command: "/bin/sh", Args: []string{"-c", "exec 0<&-; echo ready >&2; exec sleep 60"},
		Limits: Limits{RequestTimeout: 30 * time.Second}, CloseGrace: 200 * time.Millisecond, TermGrace: 200 * time.Millisecond,
		StderrLine: log.Add,
	})
	defer conn.Close(context.Background())
	log.Wait(t, "ready")
	start := time.Now()
	_, err := conn.Call(harness.Context(t), "tools/call", toolParams("echo", nil), RequestOptions{})
	if !errors.Is(err, errkind.ErrTransportClosed) || errors.Is(err, errkind.ErrTimeout) {
		t.Fatalf("got %v, want ErrTransportClosed", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the failed write took %v to report", d)
	}
	// Later calls fail at once too.
	if _, err := conn.Call(harness.Context(t), "ping", nil, RequestOptions{}); !errors.Is(err, errkind.ErrTransportClosed) {
		t.Errorf("later call: %v", err)
	}
}

func TestCommandNotFound(t *testing.T) {
	sys := harness.ActorSystem(t)
	conn := SpawnStdio(sys.Root, sys.Root, nil, StdioConfig{Server: "ghost", Command: "/nonexistent/mcp-server"})
	_, err := conn.Call(harness.Context(t), "ping", nil, RequestOptions{})
	// A server that never ran did not close: it could not start.
	if !errors.Is(err, errkind.ErrStart) || errors.Is(err, errkind.ErrTransportClosed) ||
		!strings.HasPrefix(err.Error(), `could not start MCP server "ghost" (/nonexistent/mcp-server): `) ||
		!strings.Contains(err.Error(), "no such file or directory") {
		t.Fatalf("got %v", err)
	}
	select {
	case <-conn.Done():
	case <-time.After(harness.Bound):
		t.Fatal("Done never closed")
	}
	if err := conn.Close(harness.Context(t)); err == nil || err.Error() != conn.Err().Error() {
		t.Errorf("Close = %v, Err = %v", err, conn.Err())
	}
}

func TestOwnerIsToldWhyTheTransportClosed(t *testing.T) {
	sys := harness.ActorSystem(t)
	rec, owner := newRecorder(t, sys)
	s := startServer(t, testserver.Options{}, owner, sys, nil)
	_, err := s.conn.Call(harness.Context(t), "tools/call", toolParams("crash", map[string]any{"code": 2, "stderr": "bye"}), RequestOptions{})
	closed := recv[TransportClosed](t, rec)
	if closed.Err == nil || closed.Err.Error() != err.Error() || !strings.Contains(err.Error(), "exit status 2; stderr: bye") {
		t.Errorf("owner told %v; call got %v", closed.Err, err)
	}
}

func TestServerRequestWithoutOwnerGetsMethodNotFound(t *testing.T) {
	// With no owner to serve it, a server-to-client request is answered
	// with -32601 rather than left to stall the server.
	s := startServer(t, testserver.Options{}, nil, nil, nil)
	raw, err := s.conn.Call(harness.Context(t), "tools/call", toolParams("ask-client", map[string]any{"method": "roots/list"}), RequestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if text := textOf(t, raw); !strings.Contains(text, "-32601") {
		t.Errorf("server got %s", text)
	}
	if st := s.conn.Stats(); st[InboundRequests] != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestBackpressure(t *testing.T) {
	// At most MaxInFlight requests are outstanding: 100 calls of a 40 ms
	// sleep through 4 slots take at least 25 rounds. (A lower harness.Bound: it
	// holds however slow the machine.)
	s := startServer(t, testserver.Options{}, nil, nil, func(c *StdioConfig) { c.MaxInFlight = 4 })
	s.mustEcho("up")
	ctx := harness.Context(t)
	start := time.Now()
	_, errs := concurrently(t, 100, func(i int) (string, error) {
		_, err := s.conn.Call(ctx, "tools/call", toolParams("sleep", map[string]any{"ms": 40}), RequestOptions{})
		return "", err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if d := time.Since(start); d < 25*40*time.Millisecond {
		t.Errorf("100 calls of 40 ms through 4 slots took only %v: more than 4 were in flight", d)
	}
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(entries)
}

func TestNoFileDescriptorLeak(t *testing.T) {
	// Every way a transport ends gives back its pipes at once, not when
	// the garbage collector gets to them.
	debug.SetGCPercent(-1) // keep finalizers from closing what leaked
	defer debug.SetGCPercent(100)
	run := func() {
		sys := harness.ActorSystem(t)
		// An orderly close.
		s := startServer(t, testserver.Options{}, nil, sys, nil)
		s.mustEcho("x")
		s.close()
		// A crash.
		s = startServer(t, testserver.Options{}, nil, sys, nil)
		s.conn.Call(harness.Context(t), "tools/call", toolParams("crash", map[string]any{"code": 1}), RequestOptions{})
		<-s.conn.Done()
		// A failed write.
		s = startServer(t, testserver.Options{}, nil, sys, func(c *StdioConfig) {
			c.Command, c.Args = "/bin/sh", []string{"-c", "exec 0<&-; echo ready >&2; exec sleep 60"}
			c.CloseGrace, c.TermGrace = 100*time.Millisecond, 100*time.Millisecond
		})
		s.stderr.Wait(t, "ready")
		s.conn.Call(harness.Context(t), "ping", nil, RequestOptions{})
		s.close()
		// A command that does not exist.
		s = startServer(t, testserver.Options{}, nil, sys, func(c *StdioConfig) { c.Command = "/nonexistent" })
		<-s.conn.Done()
	}
	run() // warm up: the poller and the like open their descriptors once
	before := openFDs(t)
	for range 3 {
		run()
	}
	if after := openFDs(t); after > before {
		t.Errorf("%d file descriptors open before, %d after", before, after)
	}
}

func TestStoppedByParent(t *testing.T) {
	// A transport stopped from outside (its parent going away) still
	// fails its pending requests, kills its process and ends every
	// goroutine it started (goleak checks the last).
	s := startServer(t, testserver.Options{IgnoreSIGTERM: true}, nil, nil, nil)
	pid := s.pid()
	s.mustEcho("up")
	running := inFlight(t, s, 3)
	s.conn.root.Stop(s.conn.pid)
	for range 3 {
		if err := <-running; !errors.Is(err, errkind.ErrTransportClosed) {
			t.Errorf("pending call: %v", err)
		}
	}
	<-s.conn.Done()
	proctest.WaitGone(t, pid)
	proctest.AssertGone(t, pid)
}

func TestWrapperExitsLeavingItsChild(t *testing.T) {
	// A wrapper script starts the real server and exits; the server keeps
	// our pipes open. The transport must not wait on it for ever, and must
	// not leave it running. (It is killed as the wrapper exits, so the
	// test cannot count on finding it alive: it checks that no process
	// with the test's mark is left.)
	s := startServer(t, testserver.Options{}, nil, nil, func(c *StdioConfig) {
		c.Command, c.Args = "/bin/sh", []string{"-c", "sleep 60 & echo started >&2; exit 3"}
		c.CloseGrace, c.TermGrace = 200*time.Millisecond, 200*time.Millisecond
	})
	s.stderr.Wait(t, "started")
	select {
	case <-s.conn.Done():
	case <-time.After(harness.Bound):
		t.Fatal("the transport waits for the pipes for ever")
	}
	if err := s.conn.Err(); !errors.Is(err, errkind.ErrTransportClosed) || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("Err = %v", err)
	}
	harness.WaitFor(t, "the orphan to be killed", func() bool {
		// Gone, or a zombie waiting for its new parent to reap it
		// (whose environment cannot be read).
		return proctest.WithEnv(markVar+"="+s.mark, "sleep") == 0
	})
}

func TestLateAnswerIsCountedNotDelivered(t *testing.T) {
	// A call retired by its timeout without telling the server (NoCancel)
	// gets its answer later: it is counted, and reaches nobody else.
	s := startServer(t, testserver.Options{}, nil, nil, nil)
	ctx := harness.Context(t)
	_, err := s.conn.Call(ctx, "tools/call", toolParams("sleep", map[string]any{"ms": 1000}), RequestOptions{Timeout: 50 * time.Millisecond, NoCancel: true})
	if !errors.Is(err, errkind.ErrTimeout) {
		t.Fatalf("got %v", err)
	}
	harness.WaitFor(t, "the late answer", func() bool { return s.conn.Stats()[LateResponses] == 1 })
	s.mustEcho("next")
	if st := s.conn.Stats(); st != (Stats{LateResponses: 1}) {
		t.Errorf("stats %+v", st)
	}
}
