package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/proctest"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// server is one test server child behind a stdio transport.
type server struct {
	t      *testing.T
	conn   *Conn
	stderr *harness.Lines
	mark   string // unique environment entry that finds the child in /proc
}

var marks atomic.Int64

// markVar is set in each child's environment to find its pid in /proc; the
// transport never shows pids to its callers (architecture.md).
const markVar = "MCPACTOR_TRANSPORT_TEST_MARK"

// startServer spawns the test server with opts behind a stdio transport.
// tune, if set, adjusts the configuration first. The transport is closed
// when the test ends.
func startServer(t *testing.T, opts testserver.Options, owner *actor.PID, sys *actor.ActorSystem, tune func(*StdioConfig)) *server {
	t.Helper()
	path, args, env := testserver.Command(opts)
	s := &server{t: t, stderr: &harness.Lines{}, mark: fmt.Sprintf("%d-%d", os.Getpid(), marks.Add(1))}
	vars := map[string]string{markVar: s.mark}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	cfg := StdioConfig{Server: "ts", Command: path, Args: args, Env: vars, StderrLine: s.stderr.Add}
	if tune != nil {
		tune(&cfg)
	}
	if sys == nil {
		sys = harness.ActorSystem(t)
	}
	s.conn = SpawnStdio(sys.Root, sys.Root, owner, cfg)
	t.Cleanup(func() { s.close() })
	return s
}

// close closes the transport, failing the test if that hangs.
func (s *server) close() error {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), harness.Bound)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.conn.Close(ctx) }()
	select {
	case err := <-done:
		return err
	case <-time.After(harness.Bound + 5*time.Second):
		s.t.Fatal("Close hung")
		return nil
	}
}

// pid finds the child's process id in /proc by its mark.
func (s *server) pid() int {
	s.t.Helper()
	return proctest.WaitChild(s.t, markVar+"="+s.mark)
}

// toolParams encodes tools/call params.
func toolParams(name string, args any) json.RawMessage {
	b, err := json.Marshal(map[string]any{"name": name, "arguments": args})
	if err != nil {
		panic(err)
	}
	return b
}

// textOf returns the first text content of a tools/call result.
func textOf(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var res struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("bad tool result %s: %v", raw, err)
	}
	return res.Content[0].Text
}

// echo calls the echo tool and returns its text or the error.
func (s *server) echo(ctx context.Context, msg string) (string, error) {
	raw, err := s.conn.Call(ctx, "tools/call", toolParams("echo", map[string]any{"message": msg}), RequestOptions{})
	if err != nil {
		return "", err
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) != 1 {
		return "", fmt.Errorf("bad echo result %s: %v", raw, err)
	}
	return res.Content[0].Text, nil
}

// mustEcho fails the test unless echo answers msg.
func (s *server) mustEcho(msg string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), harness.Bound)
	defer cancel()
	got, err := s.echo(ctx, msg)
	if err != nil || got != msg {
		s.t.Fatalf("echo %q = %q, %v", msg, got, err)
	}
}

// testCtx is a context bounded by harness.Bound.

// recorder is an owner actor that hands what the transport tells it to a
// channel (never blocking the actor: overflow would fail the test).
type recorder struct {
	ch       chan any
	overflow atomic.Bool
}

func (r *recorder) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case InboundNotification, InboundRequest, TransportClosed:
		select {
		case r.ch <- m:
		default:
			r.overflow.Store(true)
		}
	}
}

func newRecorder(t *testing.T, sys *actor.ActorSystem) (*recorder, *actor.PID) {
	r := &recorder{ch: make(chan any, 1024)}
	pid := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return r }))
	t.Cleanup(func() { sys.Root.Stop(pid) })
	return r, pid
}

// next returns the next message of type T the owner received, skipping
// others.
func recv[T any](t *testing.T, r *recorder) T {
	t.Helper()
	timeout := time.After(harness.Bound)
	for {
		select {
		case m := <-r.ch:
			if v, ok := m.(T); ok {
				return v
			}
		case <-timeout:
			var zero T
			t.Fatalf("no %T received", zero)
			return zero
		}
	}
}

// runWaiter runs waiter on a goroutine of its own, then release: the wait
// for a server that launch started, as the tests make it.
func runWaiter(release func(), waiter func()) {
	go func() {
		defer release()
		waiter()
	}()
}

// goroutinesIn counts the goroutines whose stack holds fn.
func goroutinesIn(t *testing.T, fn string) int {
	t.Helper()
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 2); err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b.Bytes(), []byte(fn))
}

// mostUntil reads count every period until done is closed, and once more
// then, and returns the largest count read.
func mostUntil(done <-chan struct{}, period time.Duration, count func() int) int {
	most := 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-time.After(period):
		}
		most = max(most, count())
	}
	return most
}
