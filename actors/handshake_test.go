package actors_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/proctest"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

func TestHandshakeEstablishesSession(t *testing.T) {
	s := connect(t, testserver.Options{}, actors.Env{}, nil)
	c := s.c
	if c.ProtocolVersion() != messages.Version20251125 {
		t.Errorf("version %q", c.ProtocolVersion())
	}
	if info := c.ServerInfo(); info.Name != testserver.ServerName || info.Version != testserver.ServerVersion {
		t.Errorf("server info %+v", info)
	}
	if caps := c.Capabilities(); caps.Tools == nil || caps.Logging == nil || caps.Resources == nil {
		t.Errorf("capabilities %+v", caps)
	}
	if !strings.HasPrefix(c.Instructions(), "mcpactor test server") {
		t.Errorf("instructions %q", c.Instructions())
	}
	if err := c.Ping(harness.Context(t)); err != nil {
		t.Errorf("ping: %v", err)
	}
	if c.Err() != nil {
		t.Errorf("Err = %v on a live client", c.Err())
	}
}

func TestHandshakeNegotiatesAPinnedVersion(t *testing.T) {
	for _, v := range []string{messages.Version20241105, messages.Version20250326, messages.Version20250618} {
		s := connect(t, testserver.Options{}, actors.Env{}, func(c *actors.Spec) { c.ProtocolVersion = v })
		if s.c.ProtocolVersion() != v {
			t.Errorf("offered %s, negotiated %s", v, s.c.ProtocolVersion())
		}
		s.mustEcho("works on " + v)
	}
}

func TestHandshakeUnsupportedVersion(t *testing.T) {
	// lifecycle "Version Negotiation": a version we do not speak means we
	// disconnect; nothing is left running.
	s := open(t, testserver.Options{ProtocolVersion: "1999-01-01"}, actors.Env{}, nil)
	pid := s.pid()
	err := s.c.WaitReady(harness.Context(t))
	var uv *callerr.Error
	if !errors.Is(err, errkind.ErrUnsupported) || !(errors.As(err, &uv) && errors.Is(uv, errkind.ErrUnsupported)) || uv.Version != "1999-01-01" || uv.Server != "ts" {
		t.Fatalf("got %v", err)
	}
	proctest.AssertGone(t, pid) // torn down without being asked
	if _, err := s.c.CallTool(harness.Context(t), "echo", nil); !errors.Is(err, errkind.ErrUnsupported) {
		t.Errorf("a call after the failed handshake: %v", err)
	}
	s.failedButOpen()
}

func TestHandshakeConnectTimeout(t *testing.T) {
	// The server answers initialize after 10 s; the connect timeout is
	// 300 ms. The connect fails with the reference's text, everything is
	// torn down, and initialize is never cancelled (basic/utilities/
	// cancellation: it MUST NOT be).
	s := open(t, testserver.Options{SlowInitialize: 10 * time.Second, ReportCancels: true}, actors.Env{}, func(c *actors.Spec) {
		c.ConnectTimeout = 300 * time.Millisecond
		c.Stdio.CloseGrace, c.Stdio.TermGrace = 200*time.Millisecond, 200*time.Millisecond
	})
	pid := s.pid()
	start := time.Now()
	err := s.c.WaitReady(harness.Context(t))
	var ct *callerr.Error
	if !(errors.As(err, &ct) && callerr.ConnectTimeout(ct) == ct) || !errors.Is(err, errkind.ErrTimeout) ||
		err.Error() != `Connection to MCP server "ts" timed out after 300ms` {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the connect timeout took %v", d)
	}
	proctest.AssertGone(t, pid)
	s.failedButOpen()
	if got := s.stderr.WithPrefix("cancelled"); len(got) != 0 {
		t.Errorf("initialize was cancelled: %q", got)
	}
}

func TestInitializeIsBoundedByTheConnectTimeout(t *testing.T) {
	// A server slower to start than one request may take is still given
	// its connect timeout for the handshake.
	s := connect(t, testserver.Options{SlowInitialize: 600 * time.Millisecond}, actors.Env{}, func(c *actors.Spec) {
		c.Limits.RequestTimeout = 100 * time.Millisecond
		c.ConnectTimeout = harness.Bound
	})
	s.mustEcho("ready")
}

func TestRequestsMadeBeforeTheHandshakeWait(t *testing.T) {
	// Requests made right after Open wait for the handshake, then succeed.
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Stop(context.Background())
	cfg := config(testserver.Options{SlowInitialize: 300 * time.Millisecond}, "early")
	c, err := rt.Open(context.Background(), "early", mcpactor.ServerConfig{Command: cfg.Stdio.Command, Args: cfg.Stdio.Args, Env: cfg.Stdio.Env})
	if err != nil {
		t.Fatal(err)
	}
	ctx := harness.Context(t)
	errs := concurrently(t, 8, func(i int) error {
		res, err := c.CallTool(ctx, "echo", map[string]any{"message": fmt.Sprint(i)})
		if err == nil && text(t, res) != fmt.Sprint(i) {
			err = fmt.Errorf("answer %q", text(t, res))
		}
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if c.ProtocolVersion() == "" {
		t.Error("no session after the calls")
	}
}

func TestWaitForTheHandshakeIsBoundedByTheCaller(t *testing.T) {
	s := open(t, testserver.Options{SlowInitialize: 10 * time.Second}, actors.Env{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := s.c.CallTool(ctx, "echo", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v", err)
	}
}

func TestHandshakeCommandNotFound(t *testing.T) {
	s := open(t, testserver.Options{}, actors.Env{}, func(c *actors.Spec) { c.Stdio.Command = "/nonexistent/mcp-server" })
	err := s.c.WaitReady(harness.Context(t))
	var se *callerr.Error
	if !errors.Is(err, errkind.ErrStart) || !(errors.As(err, &se) && callerr.Start(se) == se) || errors.Is(err, errkind.ErrTransportClosed) ||
		!strings.HasPrefix(err.Error(), `could not start MCP server "ts" (/nonexistent/mcp-server): `) ||
		!strings.Contains(err.Error(), "no such file or directory") {
		t.Fatalf("got %v", err)
	}
	s.failedButOpen()
}

func TestHandshakeServerExitsAtStart(t *testing.T) {
	// Its exit status and its last words make the error.
	for range 3 { // the write of initialize may or may not beat the exit
		s := open(t, testserver.Options{ExitAtStart: true, ExitCode: 3, StderrOnExit: "error: MCP_API_KEY is not set"}, actors.Env{}, nil)
		err := s.c.WaitReady(harness.Context(t))
		if !errors.Is(err, errkind.ErrTransportClosed) || !strings.Contains(err.Error(), "exit status 3") ||
			!strings.Contains(err.Error(), "error: MCP_API_KEY is not set") {
			t.Fatalf("got %v", err)
		}
		if !errors.Is(s.c.Err(), errkind.ErrTransportClosed) {
			t.Errorf("Err = %v", s.c.Err())
		}
		s.failedButOpen()
	}
}

func TestCloseDuringTheHandshake(t *testing.T) {
	s := open(t, testserver.Options{SlowInitialize: 10 * time.Second}, actors.Env{}, func(c *actors.Spec) {
		c.Stdio.CloseGrace, c.Stdio.TermGrace = 200*time.Millisecond, 200*time.Millisecond
	})
	pid := s.pid()
	waiting := make(chan error, 1)
	go func() { waiting <- s.c.WaitReady(harness.Context(t)) }()
	start := time.Now()
	s.close()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Close took %v", d)
	}
	err := <-waiting
	if !errors.Is(err, errkind.ErrTransportClosed) || errors.Is(err, context.Canceled) {
		t.Errorf("WaitReady after Close: %v", err)
	}
	proctest.AssertGone(t, pid)
}

func TestBannerDoesNotBreakTheHandshake(t *testing.T) {
	s := connect(t, testserver.Options{Banner: "Secure MCP Filesystem Server running on stdio", NoiseEvery: 2}, actors.Env{}, nil)
	for i := range 6 {
		s.mustEcho(fmt.Sprint(i))
	}
	if st := s.c.Stats(); st.Malformed == 0 || st.UnknownIDs == 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestServerDiesAfterTheHandshake(t *testing.T) {
	s := connect(t, testserver.Options{}, actors.Env{}, nil)
	pid := s.pid()
	_, err := s.c.CallTool(harness.Context(t), "crash", map[string]any{"code": 9, "stderr": "segmentation fault"})
	if !errors.Is(err, errkind.ErrTransportClosed) || !strings.Contains(err.Error(), "exit status 9") ||
		!strings.Contains(err.Error(), "segmentation fault") {
		t.Fatalf("got %v", err)
	}
	harness.WaitFor(t, "Err to report the end", func() bool { return s.c.Err() != nil })
	// The connection's end is the call's, but no request's: its text
	// names no method.
	if want := strings.Replace(err.Error(), "tools/call: ", "", 1); s.c.Err().Error() != want {
		t.Errorf("Err = %v, want %s", s.c.Err(), want)
	}
	start := time.Now()
	if _, err := s.c.CallTool(harness.Context(t), "echo", nil); !errors.Is(err, errkind.ErrTransportClosed) {
		t.Errorf("a later call: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a call on a dead connection took %v", d)
	}
	s.close()
	proctest.AssertGone(t, pid)
}

func TestConnectViaTheFacadeCleansUpOnFailure(t *testing.T) {
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Stop(context.Background())
	cfg := config(testserver.Options{ProtocolVersion: "1999-01-01"}, "facade")
	start := time.Now()
	c, err := rt.Connect(harness.Context(t), "facade", mcpactor.ServerConfig{Command: cfg.Stdio.Command, Args: cfg.Stdio.Args, Env: cfg.Stdio.Env})
	if c != nil || !errors.Is(err, mcpactor.ErrUnsupported) {
		t.Fatalf("Connect = %v, %v", c, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Connect took %v", d)
	}
}
