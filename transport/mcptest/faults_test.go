package mcptest_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// The tests below hold the errors the faults' documentation promises.

func TestFaultDelayTimesOut(t *testing.T) {
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			rt := start(t, mcpactor.Options{})
			s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}, Fault: mcptest.Fault{Delay: time.Minute}}
			c := connect(t, rt, w.config(t, s))
			_, err := c.CallToolWith(context.Background(), "echo", nil, mcpactor.CallOptions{Timeout: 50 * time.Millisecond})
			wantErr(t, err, mcpactor.ErrTimeout)
			var te *mcpactor.Error
			if !(errors.As(err, &te) && callerr.Timeout(te) == te) {
				t.Errorf("%T is no *mcpactor.Error", err)
			}
			harness.WaitFor(t, "the cancellation", func() bool { return len(s.Cancellations()) == 1 })
		})
	}
}

func TestFaultDelayAnswers(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	tool := echoTool
	tool.Fault = mcptest.Fault{Delay: 30 * time.Millisecond}
	s := &mcptest.Server{Tools: []mcptest.Tool{tool}}
	c := connect(t, rt, s.InProcess())
	t.Cleanup(s.Close)
	begin := time.Now()
	res, err := c.CallTool(context.Background(), "echo", map[string]any{"message": "late"})
	if err != nil || text(res) != "late" || time.Since(begin) < 30*time.Millisecond {
		t.Fatalf("echo = %v, %v after %v", res, err, time.Since(begin))
	}
}

func TestFaultHangTimesOut(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{{Name: "stuck", Fault: mcptest.Fault{Hang: true}}}}
	c := connect(t, rt, s.InProcess())
	t.Cleanup(s.Close)
	_, err := c.CallToolWith(context.Background(), "stuck", nil, mcpactor.CallOptions{Timeout: 50 * time.Millisecond})
	wantErr(t, err, mcpactor.ErrTimeout)
}

func TestFaultCrash(t *testing.T) {
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			rt := start(t, mcpactor.Options{})
			s := &mcptest.Server{Tools: []mcptest.Tool{echoTool, {
				Name: "crash", Fault: mcptest.Fault{Crash: &mcptest.Crash{Code: 3, Stderr: "bye"}}}}}
			c := connect(t, rt, w.config(t, s))
			_, err := c.CallTool(context.Background(), "crash", nil)
			switch w.name {
			case "streamable-http-2026-07-28":
				wantErr(t, err, mcpactor.ErrHTTP)
				var sb *mcpactor.Error
				if !(errors.As(err, &sb) && callerr.StreamBroken(sb) == sb) {
					t.Errorf("%T is no *mcpactor.Error", err)
				} else if sb.Status != 200 {
					// A caller tells an answer that broke off from one
					// that never came by its Status.
					t.Errorf("a response stream that broke has Status %d, want 200", sb.Status)
				}
			case "streamable-http":
				wantErr(t, err, mcpactor.ErrHTTP)
				var nr *mcpactor.Error
				if !(errors.As(err, &nr) && callerr.NoResponse(nr) == nr) {
					t.Errorf("%T is no *mcpactor.Error", err)
				}
			default:
				wantErr(t, err, mcpactor.ErrTransportClosed)
				var tc *mcpactor.Error
				if !(errors.As(err, &tc) && callerr.TransportClosed(tc) == tc) {
					t.Errorf("%T is no *mcpactor.Error", err)
				}
			}
			if !contains(s.Stderr(), "bye") {
				t.Errorf("stderr = %q", s.Stderr())
			}
		})
	}
}

func TestFaultCrashStdio(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	c := connect(t, rt, mcptest.Stdio("crash"))
	_, err := c.CallTool(context.Background(), "crash", nil)
	wantErr(t, err, mcpactor.ErrTransportClosed)
	if !contains(err.Error(), "crashed on purpose") || !contains(err.Error(), "3") {
		t.Errorf("error = %v: no exit status or stderr", err)
	}
}

func TestFaultCrashTimes(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}, Fault: mcptest.Fault{Crash: &mcptest.Crash{Times: 1}}}
	t.Cleanup(s.Close)
	c := connect(t, rt, s.InProcess())
	ctx := context.Background()
	_, err := c.CallTool(ctx, "echo", nil)
	wantErr(t, err, mcpactor.ErrTransportClosed)
	if err := c.Reconnect(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := c.CallTool(ctx, "echo", map[string]any{"message": "again"}); err != nil || text(res) != "again" {
		t.Fatalf("after the crash: %v, %v", res, err)
	}
}

func TestFaultGarbage(t *testing.T) {
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			rt := start(t, mcpactor.Options{})
			s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}, Fault: mcptest.Fault{Garbage: true}}
			c := connect(t, rt, w.config(t, s))
			res, err := c.CallTool(context.Background(), "echo", map[string]any{"message": "still"})
			if err != nil || text(res) != "still" {
				t.Fatalf("echo = %v, %v", res, err)
			}
			harness.WaitFor(t, "the garbage counted", func() bool {
				st := c.Stats()
				return st.Malformed == 2 && st.UnknownIDs == 1
			})
		})
	}
}

// An answer over ServerConfig.MaxFrameSize fails its call with
// ErrBadResponse, and the connection lives on, by every way: a line
// over stdio and InProcess, a JSON body or an SSE event over HTTP.
func TestFaultOversized(t *testing.T) {
	for _, w := range ways {
		for _, jsonAnswers := range []bool{false, true} {
			name := w.name
			if jsonAnswers {
				if !contains(name, "streamable") {
					continue
				}
				name += "-json"
			}
			t.Run(name, func(t *testing.T) {
				rt := start(t, mcpactor.Options{})
				tool := echoTool
				tool.Name = "big"
				tool.Fault = mcptest.Fault{Oversized: 4096}
				s := &mcptest.Server{Tools: []mcptest.Tool{echoTool, tool}, Faults: mcptest.Faults{HTTPJSONAnswers: jsonAnswers}}
				cfg := w.config(t, s)
				cfg.MaxFrameSize = 1024
				c := connect(t, rt, cfg)
				ctx := context.Background()
				_, err := c.CallTool(ctx, "big", nil)
				wantErr(t, err, mcpactor.ErrBadResponse)
				var fe *mcpactor.Error
				if !(errors.As(err, &fe) && callerr.FrameTooLarge(fe) == fe) {
					t.Errorf("%T is no *mcpactor.Error", err)
				}
				if res, err := c.CallTool(ctx, "echo", map[string]any{"message": "alive"}); err != nil || text(res) != "alive" {
					t.Fatalf("the connection did not live on: %v, %v", res, err)
				}
			})
		}
	}
}

func TestFaultOutOfOrder(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}, Faults: mcptest.Faults{OutOfOrder: true}}
	t.Cleanup(s.Close)
	c := connect(t, rt, s.InProcess())
	var wg sync.WaitGroup
	for _, msg := range []string{"a", "b", "c", "d"} {
		wg.Go(func() {
			res, err := c.CallTool(context.Background(), "echo", map[string]any{"message": msg})
			if err != nil || text(res) != msg {
				t.Errorf("echo %s = %v, %v", msg, res, err)
			}
		})
	}
	wg.Wait()
}

func TestFaultSlowReadsStall(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}, Faults: mcptest.Faults{SlowReads: time.Minute}}
	t.Cleanup(s.Close)
	cfg := s.InProcess()
	cfg.WriteStallTimeout = 100 * time.Millisecond
	cfg.ConnectTimeout = 5 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, err := rt.Connect(ctx, "fake", cfg)
	wantErr(t, err, mcpactor.ErrTransportClosed)
	if callerr.WriteStalled(err) == nil {
		t.Errorf("%v: no write stall in it", err)
	}
}

func TestFaultSlowInitialize(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Faults: mcptest.Faults{SlowInitialize: time.Minute}}
	t.Cleanup(s.Close)
	cfg := s.InProcess()
	cfg.ConnectTimeout = 100 * time.Millisecond
	_, err := rt.Connect(context.Background(), "fake", cfg)
	wantErr(t, err, mcpactor.ErrTimeout)
	var ce *mcpactor.Error
	if !(errors.As(err, &ce) && callerr.ConnectTimeout(ce) == ce) {
		t.Errorf("%T is no *mcpactor.Error", err)
	}
}

func TestFaultIgnorePing(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Faults: mcptest.Faults{IgnorePing: true}}
	t.Cleanup(s.Close)
	cfg := s.InProcess()
	cfg.RequestTimeout = 50 * time.Millisecond
	c := connect(t, rt, cfg)
	wantErr(t, c.Ping(context.Background()), mcpactor.ErrTimeout)
}

// A manager whose keepalive pings go unanswered marks the server
// unhealthy (its error wraps context.DeadlineExceeded: each ping waits
// one interval) and restarts it: a new connection to the
// same Server.
func TestFaultIgnorePingKeepaliveRestarts(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}, Faults: mcptest.Faults{IgnorePing: true}}
	t.Cleanup(s.Close)
	cfg := s.InProcess()
	cfg.Keepalive = 20 * time.Millisecond
	cfg.Restart = mcpactor.RestartPolicy{BackoffMin: 5 * time.Millisecond, BackoffMax: 20 * time.Millisecond}
	var mu sync.Mutex
	var unhealthy []error
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true, Servers: map[string]mcpactor.ServerConfig{"stuck": cfg},
		OnEvent: func(e mcpactor.ManagerEvent) {
			if e.Kind == mcpactor.EventStateChanged && e.State == mcpactor.StateUnhealthy {
				mu.Lock()
				unhealthy = append(unhealthy, e.Err)
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	harness.WaitFor(t, "a restart", func() bool {
		st := m.Status()
		return len(st) == 1 && st[0].Restarts >= 1
	})
	mu.Lock()
	first := unhealthy[0]
	mu.Unlock()
	wantErr(t, first, context.DeadlineExceeded)
	// The stuck connection is retired after three pings; a new one
	// initializes.
	harness.WaitFor(t, "a second initialize, after 3 pings", func() bool {
		inits, pings := 0, 0
		for _, method := range s.Methods() {
			switch method {
			case "initialize":
				inits++
			case "ping":
				if inits == 1 {
					pings++
				}
			}
		}
		return inits >= 2 && pings >= 3
	})
	// The restarted server serves, until its pings fail again.
	harness.WaitFor(t, "a call on the restarted server", func() bool {
		res, err := m.CallTool(ctx, "mcp__stuck__echo", map[string]any{"message": "back"})
		return err == nil && text(res) == "back"
	})
}

func TestFaultBanner(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}, Faults: mcptest.Faults{Banner: "Welcome!"}}
	t.Cleanup(s.Close)
	c := connect(t, rt, s.InProcess())
	if res, err := c.CallTool(context.Background(), "echo", map[string]any{"message": "x"}); err != nil || text(res) != "x" {
		t.Fatalf("echo = %v, %v", res, err)
	}
}

func TestFaultHTTPFailCalls(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}, Faults: mcptest.Faults{HTTPFailCalls: 1, HTTPFailStatus: 502}}
	h := s.StartHTTP()
	t.Cleanup(h.Close)
	c := connect(t, rt, h.Config())
	ctx := context.Background()
	_, err := c.CallTool(ctx, "echo", nil)
	wantErr(t, err, mcpactor.ErrHTTP)
	var he *mcpactor.Error
	if !(errors.As(err, &he) && callerr.HTTPStatus(he) == he) || he.Status != 502 {
		t.Errorf("error = %#v", err)
	}
	if res, err := c.CallTool(ctx, "echo", map[string]any{"message": "ok"}); err != nil || text(res) != "ok" {
		t.Fatalf("the next call: %v, %v", res, err)
	}
}

func TestFaultHTTPSessionExpiry(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}, Faults: mcptest.Faults{HTTPExpireSessionAfter: 1}}
	h := s.StartHTTP()
	t.Cleanup(h.Close)
	c := connect(t, rt, h.Config())
	ctx := context.Background()
	for i := range 3 {
		if _, err := c.CallTool(ctx, "echo", nil); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	// A call may reach the session before it ends, and be sent again:
	// at least one new session, at most one per call.
	if n := count(s.Methods(), "initialize"); n < 2 || n > 4 {
		t.Errorf("%d sessions initialized: %v", n, s.Methods())
	}
}

func TestExpireSessions(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}}
	h := s.StartHTTP()
	t.Cleanup(h.Close)
	c := connect(t, rt, h.Config())
	h.ExpireSessions()
	if _, err := c.CallTool(context.Background(), "echo", nil); err != nil {
		t.Fatal(err)
	}
	if n := count(s.Methods(), "initialize"); n != 2 {
		t.Errorf("%d sessions initialized, want 2", n)
	}
}

func count(list []string, v string) int {
	n := 0
	for _, s := range list {
		if s == v {
			n++
		}
	}
	return n
}

func TestFaultCrashHTTPJSONAnswers(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{{Name: "crash", Fault: mcptest.Fault{Crash: &mcptest.Crash{}}}},
		Faults: mcptest.Faults{HTTPJSONAnswers: true}}
	h := s.StartHTTP()
	t.Cleanup(h.Close)
	c := connect(t, rt, h.Config())
	_, err := c.CallTool(context.Background(), "crash", nil)
	wantErr(t, err, mcpactor.ErrHTTP)
}

// Without a GET stream the client goes on: calls and what they send
// arrive on their own streams; a notification outside any call is kept
// for a stream never opened.
func TestFaultHTTPNoGetStream(t *testing.T) {
	n := &notes{}
	rt := start(t, mcpactor.Options{Handlers: handlers(n)})
	s := richServer()
	s.Faults.HTTPNoGetStream = true
	h := s.StartHTTP()
	t.Cleanup(h.Close)
	c := connect(t, rt, h.Config())
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := c.CallTool(ctx, "notify", nil); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the call's notification", func() bool { return n.has("notifications/message") })
	if got, _ := s.Notify("notifications/resources/updated", map[string]string{"uri": "test://a"}); got != 1 {
		t.Fatalf("Notify told %d sessions", got)
	}
	if res, err := c.CallTool(ctx, "echo", map[string]any{"message": "still"}); err != nil || text(res) != "still" {
		t.Fatalf("echo: %v %v", res, err)
	}
	time.Sleep(100 * time.Millisecond)
	if n.has("notifications/resources/updated") {
		t.Error("a notification outside any call arrived without a GET stream")
	}
}

// A Stdio child that ignores SIGTERM and stdin's end lives on until the
// client kills it, after both grace periods; the close still succeeds.
func TestFaultIgnoreSIGTERM(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	cfg := mcptest.Stdio("stubborn")
	cfg.CloseGrace, cfg.TermGrace = 150*time.Millisecond, 150*time.Millisecond
	c := connect(t, rt, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if res, err := c.CallTool(ctx, "echo", map[string]any{"message": "alive"}); err != nil || text(res) != "alive" {
		t.Fatalf("echo: %v %v", res, err)
	}
	start := time.Now()
	if err := c.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("Close took %v: the child ended before both grace periods, SIGTERM was not ignored", d)
	}
}
