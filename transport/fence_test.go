package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// gatedStream is the client's end of a stream to an in-process test
// server whose writes can be held: while the gate is shut, a write waits
// (the server has stopped reading, or the member was paused mid-write).
// It records every byte that reached the server.
type gatedStream struct {
	net.Conn
	mu      sync.Mutex
	shut    chan struct{} // nil: open
	entered chan struct{} // a write is waiting at the gate
	sent    strings.Builder
}

// dialGated returns a Dial for StdioConfig and the stream it will return.
func dialGated(t *testing.T) (func(context.Context) (io.ReadWriteCloser, error), *gatedStream) {
	g := &gatedStream{entered: make(chan struct{}, 1)}
	served := make(chan error, 1)
	t.Cleanup(func() {
		if err := <-served; err != nil {
			t.Errorf("the server ended with %v", err)
		}
	})
	dial := func(context.Context) (io.ReadWriteCloser, error) {
		ours, theirs := net.Pipe()
		g.Conn = ours
		go func() {
			served <- testserver.Serve(context.Background(), theirs, theirs, io.Discard, testserver.Options{})
			theirs.Close()
		}()
		return g, nil
	}
	return dial, g
}

func (g *gatedStream) Write(p []byte) (int, error) {
	g.mu.Lock()
	shut := g.shut
	g.mu.Unlock()
	if shut != nil {
		g.entered <- struct{}{}
		<-shut
	}
	g.mu.Lock()
	g.sent.Write(p)
	g.mu.Unlock()
	return g.Conn.Write(p)
}

func (g *gatedStream) hold() {
	g.mu.Lock()
	g.shut = make(chan struct{})
	g.mu.Unlock()
}

func (g *gatedStream) release() {
	g.mu.Lock()
	close(g.shut)
	g.shut = nil
	g.mu.Unlock()
}

// written is what reached the server so far.
func (g *gatedStream) written() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sent.String()
}

// errLapsed stands for a supervisor's "no longer the owner".
var errLapsed = errors.New("lease lapsed")

// startFenced starts a stdio transport over a gated stream with fence.
func startFenced(t *testing.T, fence func() error) (*server, *gatedStream) {
	dial, g := dialGated(t)
	sys := harness.ActorSystem(t)
	conn := SpawnStdio(sys.Root, sys.Root, nil, StdioConfig{Server: "fenced", Dial: dial, Fence: fence})
	s := &server{t: t, conn: conn, stderr: &harness.Lines{}}
	t.Cleanup(func() { s.close() })
	return s, g
}

// startEchoes hands n echo requests to the transport without waiting for
// them; their frames queue behind whatever is being written.
func startEchoes(t *testing.T, conn *Conn, n int, message func(i int) string) []Pending {
	t.Helper()
	pend := make([]Pending, n)
	for i := range pend {
		p, err := conn.Start(harness.Context(t), "tools/call", toolParams("echo", map[string]any{"message": message(i)}), &RequestOptions{})
		if err != nil {
			t.Fatalf("Start %d: %v", i, err)
		}
		pend[i] = p
	}
	return pend
}

// finishEcho waits for p's outcome and returns the echo's text or error.
func finishEcho(t *testing.T, conn *Conn, p Pending) (string, error) {
	t.Helper()
	ctx := harness.Context(t)
	out, woke := conn.Await(ctx, p, &RequestOptions{})
	raw, err := conn.Finish(ctx, p, &out, woke)
	if woke != Answered {
		t.Fatalf("no outcome: %v", err)
	}
	if err != nil {
		return "", err
	}
	return textOf(t, raw), nil
}

// Issue 34: frames queued while a write is in progress are written after
// it, however long it takes (a member paused mid-write, a server slow to
// read). A fence that closes meanwhile keeps every one of them from the
// server, and each of their calls ends once, with the fence's own error.
func TestFenceRefusesQueuedFrames(t *testing.T) {
	var refuse atomic.Bool
	s, g := startFenced(t, func() error {
		if refuse.Load() {
			return errLapsed
		}
		return nil
	})
	s.mustEcho("warm") // the stream is dialed and the writer running

	g.hold()
	first := make(chan error, 1)
	go func() {
		got, err := s.echo(harness.Context(t), "first")
		if err == nil && got != "first" {
			err = fmt.Errorf("echo answered %q", got)
		}
		first <- err
	}()
	<-g.entered // "first" passed the fence; its write is held
	const n = 20
	pend := startEchoes(t, s.conn, n, func(i int) string { return fmt.Sprintf("refused-%d", i) })
	refuse.Store(true)
	g.release()

	if err := <-first; err != nil {
		t.Fatalf("the frame written before the fence closed: %v", err)
	}
	for i, p := range pend {
		if _, err := finishEcho(t, s.conn, p); err != errLapsed {
			t.Errorf("call %d ended with %v, want the fence's error itself", i, err)
		}
	}
	if w := g.written(); strings.Contains(w, "refused-") {
		t.Fatalf("a refused frame reached the server:\n%s", w)
	}

	// The fence refuses writes, not the connection: open again, it
	// writes again.
	refuse.Store(false)
	s.mustEcho("after")
	if w := g.written(); !strings.Contains(w, `"after"`) || strings.Contains(w, "refused-") {
		t.Fatalf("the server received:\n%s", w)
	}
}

// A batch longer than one write is checked before each write that starts
// a frame: the frames written before the fence closed are answered, the
// rest are refused, and no frame is cut in two (the stream still works).
func TestFenceBetweenWritesOfABatch(t *testing.T) {
	const (
		allow = iota
		allowOnce
	)
	var mode, checks atomic.Int32
	s, g := startFenced(t, func() error {
		if mode.Load() == allowOnce && checks.Add(1) > 1 {
			return errLapsed
		}
		return nil
	})
	s.mustEcho("warm")

	g.hold()
	first := make(chan error, 1)
	go func() {
		_, err := s.echo(harness.Context(t), "first")
		first <- err
	}()
	<-g.entered
	const n = 24
	pad := strings.Repeat("x", 8<<10) // 24 frames of 8 KiB: three writes at least
	msg := func(i int) string { return fmt.Sprintf("big-%02d-%s", i, pad) }
	pend := startEchoes(t, s.conn, n, msg)
	mode.Store(allowOnce)
	g.release()
	if err := <-first; err != nil {
		t.Fatalf("first: %v", err)
	}

	answered := 0
	for i, p := range pend {
		got, err := finishEcho(t, s.conn, p)
		switch {
		case err == nil && got == msg(i) && answered == i:
			answered++
		case err == errLapsed && answered > 0:
		default:
			t.Fatalf("call %d (after %d answered): %.20q, %v", i, answered, got, err)
		}
	}
	if answered == 0 || answered == n {
		t.Fatalf("%d of %d answered: the fence was not asked between the batch's writes", answered, n)
	}
	w := g.written()
	for i := range n {
		if strings.Contains(w, fmt.Sprintf("big-%02d-", i)) != (i < answered) {
			t.Fatalf("frame %d reached the server: %v (%d answered)", i, i < answered, answered)
		}
	}
	mode.Store(allow)
	s.mustEcho("after") // no torn line ahead of it
}

// A fence that panics is a user's callback gone wrong, not the process's
// end: the write is refused with a *FencePanicError, and the connection
// lives on.
func TestFencePanicRefuses(t *testing.T) {
	var panics atomic.Bool
	s, _ := startFenced(t, func() error {
		if panics.Load() {
			panic("fence bug")
		}
		return nil
	})
	s.mustEcho("warm")
	panics.Store(true)
	_, err := s.echo(harness.Context(t), "refused")
	var fp *FencePanicError
	if !errors.As(err, &fp) || fp.Value != "fence bug" {
		t.Fatalf("got %v, want a *FencePanicError", err)
	}
	panics.Store(false)
	s.mustEcho("after")
}

// gatedDialer holds every new TCP connection until released, as a slow
// network or a paused member would between a request's start and its
// write.
type gatedDialer struct {
	waiting atomic.Int32
	gate    atomic.Pointer[chan struct{}] // nil: open
}

func (d *gatedDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if gate := d.gate.Load(); gate != nil {
		d.waiting.Add(1)
		select {
		case <-*gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}

// Over HTTP the fence is asked as the request is written, after the
// connection is made: requests that set out while the fence was open and
// waited for a connection are refused if it closed meanwhile, and the
// server receives none of them.
func TestFenceHTTPAskedAtTheWrite(t *testing.T) {
	peer := startHTTPPeer(t, testserver.Options{})
	var refuse atomic.Bool
	d := &gatedDialer{}
	tr := &http.Transport{DialContext: d.dial, DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	c := dialHTTP(t, peer.url, clientOpts{tune: func(cfg *HTTPConfig) {
		cfg.Client = &http.Client{Transport: tr}
		cfg.Fence = func() error {
			if refuse.Load() {
				return errLapsed
			}
			return nil
		}
	}})
	c.initialize(messages.Version20251125)
	c.mustEcho("warm")

	gate := make(chan struct{})
	d.gate.Store(&gate)
	const n = 8
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := c.echo(fmt.Sprintf("refused-%d", i))
			errs <- err
		}()
	}
	harness.WaitFor(t, "every request to wait for a connection", func() bool { return d.waiting.Load() == n })
	refuse.Store(true)
	d.gate.Store(nil)
	close(gate)
	for range n {
		if err := <-errs; err != errLapsed {
			t.Errorf("a call ended with %v, want the fence's error itself", err)
		}
	}
	if got := peer.exchanges(isCall); len(got) != 1 {
		t.Fatalf("the server received %d tools/call POSTs, want only the one before the fence closed", len(got))
	}
	refuse.Store(false)
	c.mustEcho("after")
}
