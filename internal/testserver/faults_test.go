package testserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
)

func TestBanner(t *testing.T) {
	c := startPipe(t, Options{Banner: "Welcome!\nserver starting"})
	c.request("ping", nil)
	for _, want := range []string{"Welcome!", "server starting"} {
		if got := string(c.recvLine()); got != want {
			t.Errorf("line %q, want %q", got, want)
		}
	}
	if m := c.recv(); string(m.Result) != "{}" {
		t.Errorf("ping = %+v", m)
	}
}

func TestStringIDs(t *testing.T) {
	c := startPipe(t, Options{StringIDs: true})
	c.send(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "ping"})
	if m := c.recv(); string(m.ID) != `"7"` {
		t.Errorf("id = %s", m.ID)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": "already", "method": "ping"})
	if m := c.recv(); string(m.ID) != `"already"` {
		t.Errorf("id = %s", m.ID)
	}
}

func TestOutOfOrder(t *testing.T) {
	// Held until the second is ready however slow the machine, the first
	// answer then leaves after it. Instant tools are answered on the
	// reading goroutine, so the answers reach the fault in the order the
	// requests were read.
	c := startPipe(t, Options{OutOfOrder: true, OutOfOrderHold: time.Hour})
	c.initialize()
	echo := func(c *pipeServer, id int) {
		c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}}})
	}
	echo(c, 1)
	echo(c, 2)
	if a, b := c.recv(), c.recv(); string(a.ID) != "2" || string(b.ID) != "1" {
		t.Errorf("order %s, %s; want 2, 1", a.ID, b.ID)
	}
	// Non-tool answers are not held.
	if got := string(c.call("ping", nil)); got != "{}" {
		t.Errorf("ping = %s", got)
	}

	// A lone answer still comes, after the hold.
	lone := startPipe(t, Options{OutOfOrder: true})
	lone.initialize()
	start := time.Now()
	echo(lone, 3)
	if m := lone.recv(); string(m.ID) != "3" || time.Since(start) < reorderDelay/2 {
		t.Errorf("lone answer %s after %v", m.ID, time.Since(start))
	}
}

func TestNoise(t *testing.T) {
	c := startPipe(t, Options{NoiseEvery: 2})
	c.call("ping", nil)
	c.request("ping", nil)
	if m := c.recv(); m.Result == nil {
		t.Fatalf("want the answer first, got %+v", m)
	}
	for _, want := range noiseLines {
		if got := c.recvLine(); string(got) != string(want) {
			t.Errorf("noise line %q, want %q", got, want)
		}
	}
	c.call("ping", nil)
	c.expectSilence(20 * time.Millisecond) // third answer: no noise
}

func TestHugeFrame(t *testing.T) {
	const size = 20 << 20
	c := startPipe(t, Options{HugeFrameBytes: size})
	c.initialize()
	id := c.request("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}})
	line := c.recvLine()
	if len(line) != size {
		t.Fatalf("huge line is %d bytes, want %d", len(line), size)
	}
	// Check the envelope and the filling separately: decoding 20 MiB under
	// the race detector takes seconds.
	head, tail := len(hugeFramePrefix), len(hugeFrameSuffix)
	var m message
	if err := json.Unmarshal(append(line[:head:head], line[size-tail:]...), &m); err != nil || m.Method == "" || m.ID != nil {
		t.Fatalf("huge line is not a notification: %v", err)
	}
	if n := bytes.Count(line[head:size-tail], []byte{'x'}); n != size-head-tail {
		t.Fatalf("filling holds %d 'x' of %d bytes", n, size-head-tail)
	}
	if resp := c.recv(); idKey(resp.ID) != fmt.Sprint(id) || decodeTool(t, resp.Result).text() != "hi" {
		t.Errorf("answer = %+v", resp)
	}
	// Only the first call gets one.
	if r := c.callTool("echo", map[string]any{"message": "again"}); r.text() != "again" {
		t.Errorf("second echo = %q", r.text())
	}
}

func TestEndlessLine(t *testing.T) {
	// Read raw bytes: a line reader would buffer the endless line forever.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := Serve(ctx, inR, outW, nil, Options{EndlessLine: true})
		outW.Close()
		done <- err
	}()
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`)
	r := bufio.NewReader(outR)
	head := make([]byte, len(endlessLinePrefix))
	if _, err := io.ReadFull(r, head); err != nil || string(head) != endlessLinePrefix {
		t.Fatalf("head %q: %v", head, err)
	}
	buf := make([]byte, 1<<20)
	for total := 0; total < 8<<20; {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsRune(string(buf[:n]), '\n') {
			t.Fatal("the endless line ended")
		}
		total += n
	}
	cancel()
	go io.Copy(io.Discard, r) //nolint:errcheck // drains until Serve closes outW
	if err := <-done; err != nil {
		t.Errorf("Serve = %v", err)
	}
	inW.Close()
}

func TestStderrFlood(t *testing.T) {
	const size = 1<<20 + 123
	c := startPipe(t, Options{StderrFloodBytes: size})
	c.call("ping", nil)
	// The flood is written before serving: it is complete once answered.
	if got := c.stderr.String(); len(got) != size || !strings.HasPrefix(got, "testserver stderr flood line 00000001") {
		t.Errorf("stderr holds %d bytes: %.60q", len(got), got)
	}
}

func TestExitAfterRequests(t *testing.T) {
	c := startPipe(t, Options{ExitAfterRequests: 2, ExitCode: 3, StderrOnExit: "bye"})
	c.call("ping", nil) // not counted: only tools/call are
	// Both calls in one write: the answer to the first, which the server
	// batches, must still leave before the exit.
	c.sendRaw(`{"jsonrpc":"2.0","id":"one","method":"tools/call","params":{"name":"echo","arguments":{"message":"one"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"echo","arguments":{"message":"two"}}}`)
	if m := c.recv(); string(m.ID) != `"one"` {
		t.Errorf("answer %s", m.ID)
	}
	var exit *ExitError
	if err := c.wait(); !errors.As(err, &exit) || exit.Code != 3 {
		t.Fatalf("Serve = %v", err)
	}
	if !hasLine(c.stderr.String(), "bye") {
		t.Errorf("stderr = %q", c.stderr.String())
	}
	for l := range c.lines {
		t.Errorf("unexpected line after exit: %q", truncate(l))
	}
}

func TestCrashTool(t *testing.T) {
	c := startPipe(t, Options{})
	c.request("tools/call", map[string]any{"name": "crash", "arguments": map[string]any{"code": 5, "stderr": "panic: boom"}})
	var exit *ExitError
	if err := c.wait(); !errors.As(err, &exit) || exit.Code != 5 {
		t.Fatalf("Serve = %v", err)
	}
	if !hasLine(c.stderr.String(), "panic: boom") {
		t.Errorf("stderr = %q", c.stderr.String())
	}
}

func TestExitAtStart(t *testing.T) {
	var stderr harness.Log
	var stdout strings.Builder
	err := Serve(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"),
		&stdout, &stderr, Options{ExitAtStart: true, ExitCode: 4, StderrOnExit: "no", Banner: "never shown"})
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 4 || stdout.Len() != 0 || stderr.String() != "no\n" {
		t.Errorf("Serve = %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
}

func TestNeverAnswer(t *testing.T) {
	c := startPipe(t, Options{NeverAnswer: true, ReportCancels: true})
	c.initialize()
	id := c.request("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}})
	c.call("ping", nil)
	c.expectSilence(50 * time.Millisecond)
	c.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "timeout"})
	harness.WaitFor(t, "the cancel report", func() bool {
		return hasLine(c.stderr.String(), fmt.Sprintf("cancelled %d timeout", id))
	})
}

func TestIgnoreEOF(t *testing.T) {
	c := startPipe(t, Options{IgnoreSIGTERM: true})
	c.call("ping", nil)
	c.w.Close()
	select {
	case err := <-c.done:
		t.Fatalf("Serve returned at EOF: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	c.cancel()
	if err := c.wait(); err != nil {
		t.Errorf("Serve = %v", err)
	}
}

func TestSlowInitializeAndVersion(t *testing.T) {
	c := startPipe(t, Options{SlowInitialize: 100 * time.Millisecond, ProtocolVersion: "1999-01-01"})
	start := time.Now()
	var res struct{ ProtocolVersion string }
	mustUnmarshal(t, c.initialize(), &res)
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("initialize answered after %v", d)
	}
	if res.ProtocolVersion != "1999-01-01" {
		t.Errorf("protocolVersion = %q", res.ProtocolVersion)
	}
}
