package refclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/jsonscan"
)

func startBlocking(t *testing.T, cmd *exec.Cmd) *Blocking {
	t.Helper()
	return mustStart(t, "StartBlocking", StartBlocking, cmd)
}

// message is the n-th unique message, with everything JSON must escape
// or may carry: quotes, backslashes, control characters, non-ASCII, a
// character outside the BMP.
func message(n int) string {
	return fmt.Sprintf("m%d \"quoted\" back\\slash\nnew line\ttab \x01 é 日本 😀 </>&", n)
}

func echoArgs(msg string) json.RawMessage {
	return append(jsonscan.AppendString([]byte(`{"message":`), msg), '}')
}

func TestBlockingEcho(t *testing.T) {
	b := startBlocking(t, fastserver())
	if got := b.Protocol(); got != "2025-11-25" {
		t.Errorf("Protocol() = %q, want 2025-11-25", got)
	}
	var wg sync.WaitGroup
	for g := range 50 {
		wg.Go(func() {
			for k := range 40 {
				msg := message(g*1000 + k)
				got, err := b.Call(context.Background(), "echo", echoArgs(msg))
				if err != nil || got != msg {
					t.Errorf("echo %q: got %q, %v", msg, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	// Arguments with newlines in them (pretty-printed) are compacted, not
	// sent as two lines.
	got, err := b.Call(context.Background(), "echo", json.RawMessage("{\n  \"message\": \"a\\nb\"\n}"))
	if err != nil || got != "a\nb" {
		t.Errorf("echo of indented arguments: %q, %v", got, err)
	}
	closeOK(t, b)
}

func TestBlockingBig(t *testing.T) {
	b := startBlocking(t, fastserver())
	for _, n := range []int{0, 65536, 65536, 1 << 20, 17 << 20} {
		got, err := b.Call(context.Background(), "big", json.RawMessage(fmt.Sprintf(`{"bytes":%d}`, n)))
		if err != nil {
			t.Fatalf("big %d: %v", n, err)
		}
		if len(got) != n || strings.Trim(got, "x") != "" {
			t.Fatalf("big %d: got %d bytes, not all x", n, len(got))
		}
	}
	closeOK(t, b)
}

func TestBlockingSleepInFlight(t *testing.T) {
	b := startBlocking(t, fastserver())
	const n = 1000
	start := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			got, err := b.Call(context.Background(), "sleep", json.RawMessage(`{"ms":5}`))
			if err != nil || got != "slept 5ms" {
				t.Errorf("sleep: %q, %v", got, err)
			}
		})
	}
	wg.Wait()
	t.Logf("%d calls of sleep 5ms in flight: %v", n, time.Since(start))
	closeOK(t, b)
}

func TestBlockingErrors(t *testing.T) {
	b := startBlocking(t, fastserver())
	ctx := context.Background()

	_, err := b.Call(ctx, "nope", nil)
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32602 || !strings.Contains(rpc.Message, "nope") {
		t.Errorf("unknown tool: %v, want an RPCError -32602", err)
	}
	_, err = b.Call(ctx, "echo", json.RawMessage(`{"message":3}`))
	var te *ToolError
	if !errors.As(err, &te) || !strings.Contains(te.Text, "message") {
		t.Errorf("echo of a number: %v, want a ToolError", err)
	}
	_, err = b.Call(ctx, "big", json.RawMessage(`{"bytes":-1}`))
	if !errors.As(err, &te) {
		t.Errorf("big -1: %v, want a ToolError", err)
	}
	if _, err := b.Call(ctx, "echo", json.RawMessage(`{"message":"still fine"}`)); err != nil {
		t.Errorf("echo after errors: %v", err)
	}
	closeOK(t, b)
	if _, err := b.Call(ctx, "echo", json.RawMessage(`{"message":"x"}`)); !errors.Is(err, ErrClosed) {
		t.Errorf("Call after Close: %v, want ErrClosed", err)
	}
}

// A call that times out returns at its timeout; its late answer is
// dropped, never delivered to a later call that reuses its slot.
func TestBlockingTimeout(t *testing.T) {
	b := startBlocking(t, fastserver())
	b.Timeout = 50 * time.Millisecond
	ctx := context.Background()

	start := time.Now()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := b.Call(ctx, "sleep", json.RawMessage(`{"ms":300}`)); !errors.Is(err, ErrTimeout) {
				t.Errorf("sleep 300ms with a 50ms timeout: %v, want ErrTimeout", err)
			}
		})
	}
	wg.Wait()
	if d := time.Since(start); d > time.Second {
		t.Errorf("the timed-out calls took %v", d)
	}
	// Calls go on working while, and after, the late answers come.
	b.Timeout = 5 * time.Second
	for k := 0; time.Since(start) < 450*time.Millisecond; k++ {
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				msg := message(k*10 + g)
				got, err := b.Call(ctx, "echo", echoArgs(msg))
				if err != nil || got != msg {
					t.Errorf("echo after timeouts: %q, %v; want %q", got, err, msg)
				}
			})
		}
		wg.Wait()
	}

	// ctx bounds a call too.
	cctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	if _, err := b.Call(cctx, "sleep", json.RawMessage(`{"ms":200}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("sleep 200ms with a 30ms ctx: %v", err)
	}
	if got, err := b.Call(ctx, "sleep", json.RawMessage(`{"ms":1}`)); err != nil || got != "slept 1ms" {
		t.Errorf("sleep after a cancelled call: %q, %v", got, err)
	}
	closeOK(t, b)
}

func TestBlockingServerDies(t *testing.T) {
	cmd := fastserver()
	b := startBlocking(t, cmd)
	start := time.Now()
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			if _, err := b.Call(context.Background(), "sleep", json.RawMessage(`{"ms":5000}`)); err == nil {
				t.Error("a call to a killed server succeeded")
			}
		})
	}
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Kill()
	wg.Wait()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the calls to a killed server took %v to fail", d)
	}
	if _, err := b.Call(context.Background(), "echo", json.RawMessage(`{"message":"x"}`)); err == nil {
		t.Error("a call after the server died succeeded")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.Close(ctx); err == nil {
		t.Error("Close after the server was killed: no error")
	}
	checkNoGoroutines(t)
}

// Against a server that sends notifications and requests between answers,
// orders fields its own way and adds some: the answers are found, the
// requests answered with -32601.
func TestBlockingUnusualServer(t *testing.T) {
	b := startBlocking(t, fake(t, "weird"))
	if got := b.Protocol(); got != "2025-06-18" {
		t.Errorf("Protocol() = %q", got)
	}
	ctx := context.Background()
	for k := range 50 {
		msg := message(k)
		got, err := b.Call(ctx, "echo", echoArgs(msg))
		if err != nil || got != msg {
			t.Fatalf("echo: %q, %v; want %q", got, err, msg)
		}
	}
	// The error answers to the server's requests went out; they may not
	// all be read yet when count runs.
	deadline := time.Now().Add(3 * time.Second)
	for {
		got, err := b.Call(ctx, "count", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got == "50" || got == "51" || time.Now().After(deadline) {
			if got != "50" && got != "51" {
				t.Errorf("the server got %s -32601 answers to its requests, want 50", got)
			}
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	closeOK(t, b)
}

func TestStartFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := StartBlocking(ctx, fake(t, "exit")); err == nil {
		t.Error("StartBlocking of a server that exits: no error")
	}
	if _, err := StartEventLoop(ctx, exec.Command("/nonexistent/server")); err == nil {
		t.Error("StartEventLoop of a missing command: no error")
	}
	sctx, scancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer scancel()
	start := time.Now()
	if _, err := StartBlocking(sctx, fake(t, "silent")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("StartBlocking of a silent server: %v, want the ctx's error", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the handshake with a silent server took %v", d)
	}
	checkNoGoroutines(t)
}

// A server that does not exit when stdin closes is killed when Close's
// ctx ends.
func TestCloseKillsStubbornServer(t *testing.T) {
	b := startBlocking(t, fake(t, "stubborn"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := b.Close(ctx); err == nil {
		t.Error("Close of a server that had to be killed: no error")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v", d)
	}
	checkNoGoroutines(t)
}
