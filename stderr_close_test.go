package mcpactor_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// stderrLines is a server's stderr of n numbered lines.
func stderrLines(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	return b.String()
}

// lineCounter is an Options.StderrLine that takes its time, so that lines
// queue up behind it, and counts what it was given, and what it was given
// after a moment the test marks.
type lineCounter struct {
	mu    sync.Mutex
	lines []string
	late  atomic.Int64 // lines delivered after closed was set
	shut  atomic.Bool
}

func (c *lineCounter) line(server, line string) {
	if c.shut.Load() {
		c.late.Add(1)
	}
	time.Sleep(time.Millisecond)
	c.mu.Lock()
	c.lines = append(c.lines, line)
	c.mu.Unlock()
}

func (c *lineCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.lines)
}

// TestStderrLinesDeliveredBeforeFailedConnectReturns checks that a server
// that writes many stderr lines and exits before its handshake has every
// line handed to Options.StderrLine by the time Connect returns its
// error: the client is closed by then, and a line still queued must not
// vanish (there is no Client left whose Stats could count it).
func TestStderrLinesDeliveredBeforeFailedConnectReturns(t *testing.T) {
	t.Parallel()
	const n = 300
	var got lineCounter
	rt := startRuntime(t, mcpactor.Options{StderrLine: got.line})
	_, err := rt.Connect(waitCtx(t), "chatty", testServerConfig(testserver.Options{ExitAtStart: true, ExitCode: 2, StderrOnExit: stderrLines(n)}))
	if !errors.Is(err, mcpactor.ErrTransportClosed) {
		t.Fatalf("Connect: %v, want the server's exit", err)
	}
	got.shut.Store(true)
	if c := got.count(); c != n {
		t.Fatalf("%d of %d stderr lines delivered when Connect returned", c, n)
	}
	for i, l := range got.lines {
		if l != "line "+strconv.Itoa(i) {
			t.Fatalf("line %d = %q", i, l)
		}
	}
}

// TestStderrLinesAtForcedCloseAreCounted checks that a Close that runs out
// of time, with stderr lines still queued for a slow callback, delivers
// none after it returns, and counts each line it did not deliver in
// Stats.DroppedStderrLines: delivered and dropped add up to what the
// server wrote.
func TestStderrLinesAtForcedCloseAreCounted(t *testing.T) {
	t.Parallel()
	const n = 600
	var got lineCounter
	rt := startRuntime(t, mcpactor.Options{StderrLine: got.line})
	c, err := rt.Open(waitCtx(t), "chatty", testServerConfig(testserver.Options{ExitAtStart: true, ExitCode: 2, StderrOnExit: stderrLines(n)}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WaitReady(waitCtx(t)); !errors.Is(err, mcpactor.ErrTransportClosed) {
		t.Fatalf("WaitReady: %v, want the server's exit", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	c.Close(ctx)
	got.shut.Store(true)
	deadline := time.Now().Add(waitLimit)
	for {
		delivered, dropped := got.count(), int(c.Stats().DroppedStderrLines)
		if delivered+dropped == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d delivered + %d dropped, of %d lines", delivered, dropped, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A callback already running when Close shut the gate may finish
	// after it; none may start after.
	if late := got.late.Load(); late > 1 {
		t.Errorf("%d lines delivered after Close returned", late)
	}
}
