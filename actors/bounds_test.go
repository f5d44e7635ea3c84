package actors_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/proctest"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// A sampling handler that ignores its context holds Close only until
// Close's context ends: the handler is abandoned (counted), its late
// answer is never sent, and nothing else waits for it.
func TestCloseIsBoundedByItsContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release) // let the abandoned handler go before goleak looks
	entered := make(chan struct{})
	var answered atomic.Bool
	env := actors.Env{Options: actors.Options{Handlers: actors.Handlers{
		Sampling: func(context.Context, string, *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			close(entered)
			<-release // ignores its context, as a careless handler would
			answered.Store(true)
			return &messages.CreateMessageResult{Role: "assistant", Model: "m", Content: messages.TextContent("late")}, nil
		},
	}}}
	s := connect(t, testserver.Options{}, env, nil)
	go s.c.CallTool(harness.Context(t), "ask-client", map[string]any{"method": messages.MethodSamplingCreateMessage, "params": map[string]any{"messages": []any{}, "maxTokens": 1}})
	<-entered

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	err := s.c.Close(ctx)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v with a 1 s deadline (the handler sleeps until released)", d)
	}
	if err != nil {
		t.Errorf("Close = %v", err)
	}
	if n := s.c.Stats().AbandonedCallbacks; n != 1 {
		t.Errorf("AbandonedCallbacks = %d, want 1", n)
	}
	s.waitDone()
	release <- struct{}{}
	harness.WaitFor(t, "the abandoned handler to return", answered.Load)
}

// No StderrLine callback starts after Close returns, even while the
// server floods stderr.
func TestNoStderrCallbackAfterClose(t *testing.T) {
	var closed atomic.Bool
	var seen, late atomic.Int64
	env := actors.Env{Options: actors.Options{StderrLine: func(_, _ string) {
		seen.Add(1)
		// A callback that passed the gate just before Close shut it can
		// get here after Close returned: it is abandoned, not late, and
		// Stats counts it; the check below allows for it.
		if closed.Load() {
			late.Add(1)
		}
	}}}
	c := actors.Spawn(context.Background(), harness.ActorSystem(t).Root, "flood", config(testserver.Options{}, "stderr-after-close"), env, nil)
	if _, err := c.CallTool(harness.Context(t), "stderr-flood", map[string]any{"bytes": 200 << 20}); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the flood to reach the callback", func() bool { return seen.Load() > 100 })
	if err := c.Close(harness.Context(t)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	closed.Store(true)
	time.Sleep(500 * time.Millisecond) // about a hundred late lines were seen in this window before
	abandoned := c.Stats().AbandonedCallbacks
	if n := late.Load(); n > abandoned {
		t.Errorf("%d stderr callbacks ran after Close returned, %d of them abandoned by it (running when it shut the gate)", n, abandoned)
	}
}

// Notifications of 1 MiB to a subscriber that is stuck: the queue keeps at
// most its byte budget (4 MiB here), dropping the oldest; before, it kept
// every one of them.
func TestNotificationQueueIsBoundedInBytes(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	entered := make(chan struct{}, 1)
	env := actors.Env{Options: actors.Options{Handlers: actors.Handlers{Notification: func(string, actors.Notification) {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release
	}}, MaxNotificationBytes: 4 << 20}}
	s := connect(t, testserver.Options{}, env, nil)
	base := harness.LiveHeap()
	if _, err := s.c.CallTool(harness.Context(t), "notify-flood", map[string]any{"count": 32, "bytes": 1 << 20}); err != nil {
		t.Fatal(err)
	}
	<-entered
	harness.WaitFor(t, "the oldest notifications to be dropped", func() bool { return s.c.Stats().DroppedNotifications >= 26 })
	grown := harness.LiveHeap() - base
	t.Logf("live heap grew by %.1f MiB with 32 MiB of notifications for a stuck subscriber", float64(grown)/(1<<20))
	if grown > 16<<20 {
		t.Errorf("%.1f MiB kept for a stuck subscriber; the queue's budget is 4 MiB", float64(grown)/(1<<20))
	}
}

// A server that dies at start printing its cause first and then pages of
// usage: the error keeps both ends.
func TestStartFailureKeepsItsCause(t *testing.T) {
	usage := "Error: failed to load kubeconfig: no configuration has been provided\n\nUsage:\n  server [flags]\n\nFlags:\n"
	for i := range 60 {
		usage += "      --option-" + strings.Repeat("x", i%20) + " string   what this option does, at some length\n"
	}
	usage += "Use \"server --help\" for more information."
	s := open(t, testserver.Options{ExitAtStart: true, ExitCode: 1, StderrOnExit: usage}, actors.Env{}, nil)
	err := s.c.WaitReady(harness.Context(t))
	if !errors.Is(err, errkind.ErrTransportClosed) || !strings.Contains(err.Error(), "Error: failed to load kubeconfig") ||
		!strings.Contains(err.Error(), `Use "server --help" for more information.`) || !strings.Contains(err.Error(), "bytes of stderr cut") {
		t.Fatalf("the error lost the cause or the end:\n%v", err)
	}
	s.failedButOpen()
}

// A panic in the client actor stops it: the transport's process is killed
// and reaped, each pending call fails once, waiting callers are released,
// and Done closes. protoactor does not restart it.
func TestClientActorPanicIsContained(t *testing.T) {
	var logs harness.Log
	s := connect(t, testserver.Options{}, actors.Env{Options: actors.Options{Logger: logs.Logger()}}, nil)
	pid := s.pid()
	const n = 10
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := s.c.CallTool(harness.Context(t), "sleep", map[string]any{"ms": 60000})
			errs <- err
		}()
	}
	harness.WaitFor(t, "the calls to be in flight", func() bool { return s.c.InFlight() == n })
	actors.InjectPanic(s.c, "client boom")
	for range n {
		select {
		case err := <-errs:
			if !errors.Is(err, errkind.ErrTransportClosed) {
				t.Errorf("pending call: %v", err)
			}
		case <-time.After(harness.Bound):
			t.Fatal("a pending call never ended")
		}
	}
	s.waitDone()
	proctest.WaitGone(t, pid)
	var pe *transport.PanicError
	if err := s.c.WaitReady(harness.Context(t)); !errors.As(err, &pe) || pe.Value != "client boom" {
		t.Errorf("WaitReady after the panic: %v", err)
	}
	if !strings.Contains(logs.String(), "client actor panicked") || !strings.Contains(logs.String(), "goroutine") {
		t.Errorf("the panic was not logged with its stack:\n%.300s", logs.String())
	}
}
