package mcpactor_test

// The independent peers over HTTP (peer_everything_test.go,
// peer_gosdk_test.go): a peer server process listening on a loopback port,
// a recording reverse proxy in front of it (so that tests assert what went
// on the wire, not only what came back), and connections through that proxy
// that tests share or own.
//
// Over HTTP every Connect is a session of its own, so one server process
// serves every test of a mode: tests that leave the session as they found
// it take turns on one shared connection; tests that change the session's
// state (log level, subscriptions) or end it make a connection of their own
// to the same server.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
)

// ---------------------------------------------------------------------------
// The server process.

// httpProc is a peer server process serving HTTP on 127.0.0.1:port, in a
// process group of its own (on Unix; http_proc_unix_test.go) so that
// stopping it stops whatever it started.
type httpProc struct {
	name   string
	cmd    *exec.Cmd
	port   int
	out    *outputLog // its stdout and stderr, by line
	exited chan struct{}
}

// procCommand builds a peer's command for a port: the program, its
// arguments and its extra environment.
type procCommand func(port int) (path string, args, env []string)

// startHTTPProc starts a server and waits until its port accepts
// connections (a cold node start can take more than 1.5 s). It tries three
// ports before giving up.
func startHTTPProc(name string, command procCommand) (*httpProc, error) {
	var errs []error
	for range 3 {
		p, err := tryHTTPProc(name, command)
		if err == nil {
			return p, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func tryHTTPProc(name string, command procCommand) (*httpProc, error) {
	port, err := harness.FreePort()
	if err != nil {
		return nil, err
	}
	return startHTTPProcAt(name, command, port)
}

// startHTTPProcAt starts a server on port and waits until the port accepts
// connections. A server restarted in a test comes back on the port its
// clients know.
func startHTTPProcAt(name string, command procCommand, port int) (*httpProc, error) {
	path, args, env := command(port)
	cmd := exec.Command(path, args...)
	cmd.Env = append(cmd.Environ(), env...)
	out := newOutputLog()
	cmd.Stdout, cmd.Stderr = out, out
	inOwnGroup(cmd)
	// A grandchild holding the output pipes must not hold Wait forever.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	p := &httpProc{name: name, cmd: cmd, port: port, out: out, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	deadline := time.Now().Add(waitLimit)
	for {
		conn, err := net.DialTimeout("tcp", p.addr(), time.Second)
		if err == nil {
			conn.Close()
			return p, nil
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("%s exited before port %d answered (%v); its output:\n%s", name, port, cmd.ProcessState, out.text())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("%s: port %d did not answer within %v; its output:\n%s", name, port, waitLimit, out.text())
		}
	}
}

func (p *httpProc) addr() string { return "127.0.0.1:" + strconv.Itoa(p.port) }

// stop ends the server's process group, politely first and by force if
// it lingers, and returns once the server is reaped and no process of its
// group is left; an error says what was left behind.
func (p *httpProc) stop() error {
	pid := p.cmd.Process.Pid
	terminateGroup(p.cmd)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		killGroup(p.cmd)
		select {
		case <-p.exited:
		case <-time.After(waitLimit):
			return fmt.Errorf("%s (pid %d) not reaped %v after it was killed", p.name, pid, waitLimit)
		}
	}
	// The leader is reaped; children it started may outlive it.
	deadline := time.Now().Add(5 * time.Second)
	for groupAlive(p.cmd) {
		if time.Now().After(deadline) {
			killGroup(p.cmd)
			return fmt.Errorf("%s: processes of group %d outlived their leader; killed", p.name, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// outputLog keeps a process's output lines and lets a test wait for one.
type outputLog struct {
	mu      sync.Mutex
	partial []byte
	lines   []string
	wake    chan struct{}
}

func newOutputLog() *outputLog { return &outputLog{wake: make(chan struct{})} }

func (o *outputLog) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.partial = append(o.partial, b...)
	for {
		i := bytes.IndexByte(o.partial, '\n')
		if i < 0 {
			break
		}
		if len(o.lines) < 100000 {
			o.lines = append(o.lines, string(o.partial[:i]))
		}
		o.partial = o.partial[i+1:]
	}
	close(o.wake)
	o.wake = make(chan struct{})
	return len(b), nil
}

// waitLine waits for a line containing substr.
func (o *outputLog) waitLine(t *testing.T, substr string) string {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		o.mu.Lock()
		for _, l := range o.lines {
			if strings.Contains(l, substr) {
				o.mu.Unlock()
				return l
			}
		}
		wake := o.wake
		o.mu.Unlock()
		select {
		case <-wake:
		case <-deadline:
			t.Fatalf("the server printed no line with %q within %v", substr, waitLimit)
			return ""
		}
	}
}

func (o *outputLog) text() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := strings.Join(o.lines, "\n")
	if len(s) > 8<<10 {
		s = "...\n" + s[len(s)-8<<10:]
	}
	return s
}

// ---------------------------------------------------------------------------
// Peers and connections.

// httpPeer is a server process with its recording proxy.
type httpPeer struct {
	proc  *httpProc
	proxy *wireProxy
}

func startHTTPPeer(name string, command procCommand) (*httpPeer, error) {
	proc, err := startHTTPProc(name, command)
	if err != nil {
		return nil, err
	}
	proxy, err := newWireProxy("http://" + proc.addr())
	if err != nil {
		proc.stop()
		return nil, err
	}
	return &httpPeer{proc: proc, proxy: proxy}, nil
}

// stop closes the proxy and stops the server; the errors say what was
// left running.
func (p *httpPeer) stop() error {
	return errors.Join(p.proxy.close(), p.proc.stop())
}

// httpSpec says how to start one peer in one mode and how to connect to it.
type httpSpec struct {
	name    string      // names the server in Connect (and the recorder)
	command procCommand // the server for a port
	path    string      // the MCP endpoint (or, for sse, the SSE endpoint)
	typ     string      // ServerConfig.Type
	version string      // ServerConfig.ProtocolVersion (usually "": probe)
	rec     func() *peerRecorder
}

// httpConn is one runtime connected to a peer through its proxy.
type httpConn struct {
	rt   *mcpactor.Runtime
	c    *mcpactor.Client
	rec  *peerRecorder
	peer *httpPeer
	id   string // the value of connHeader on its requests
	cfg  mcpactor.ServerConfig
}

var httpConnSeq atomic.Int64

// connectHTTP starts a runtime with rec's handlers (none declared when
// plain) and connects it to peer through its proxy (startConnected).
func connectHTTP(spec httpSpec, peer *httpPeer, rec *peerRecorder, plain bool) (*httpConn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	id := spec.name + "-" + strconv.FormatInt(httpConnSeq.Add(1), 10)
	cfg := mcpactor.ServerConfig{
		Type:            spec.typ,
		URL:             peer.proxy.url(spec.path),
		Headers:         map[string]string{connHeader: id},
		ProtocolVersion: spec.version,
	}
	rt, c, err := startConnected(ctx, rec, plain, cfg)
	if err != nil {
		return nil, fmt.Errorf("%v\nwire:\n%s", err, dumpExchanges(peer.proxy.exchanges(id)))
	}
	return &httpConn{rt: rt, c: c, rec: rec, peer: peer, id: id, cfg: cfg}, nil
}

// stop stops the connection's runtime.
func (h *httpConn) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := h.rt.Stop(ctx); err != nil {
		return fmt.Errorf("%s: Stop: %v", h.id, err)
	}
	return nil
}

// wire returns the connection's exchanges so far.
func (h *httpConn) wire() []exchange { return h.peer.proxy.exchanges(h.id) }

// waitAllDone waits until no exchange of the connection is running.
func (h *httpConn) waitAllDone(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		var running []exchange
		for _, ex := range h.wire() {
			if !ex.Done {
				running = append(running, ex)
			}
		}
		if len(running) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("exchanges still running %v after the client closed:\n%s", waitLimit, dumpExchanges(running))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitWire waits for an exchange of this connection that matches.
func (h *httpConn) waitWire(t *testing.T, what string, match func(exchange) bool) exchange {
	t.Helper()
	return h.peer.proxy.waitFor(t, h.id, what, match)
}

// sharedHTTP is one peer server (in one mode) shared by every test that uses
// it, and one connection to it that those tests take turns on. It is started
// by the first test that needs it and stopped when the last user ends; like
// sharedPeer, it counts its users before they call t.Parallel, so that the
// count is complete before any of them runs.
type sharedHTTP struct {
	spec func(t *testing.T) httpSpec // fails t if the peer is not installed

	sharedUse[httpSpec] // its turn is taken on conn

	// guarded by mu
	peer *httpPeer
	err  error
	conn *httpConn
	cerr error
}

// count counts t as a user until it ends. Call it for every shared server
// a test uses, and then t.Parallel.
func (s *sharedHTTP) count(t *testing.T) {
	t.Helper()
	s.countUser(t, s.spec(t), s.release)
}

// server returns the running server, starting it if need be.
func (s *sharedHTTP) server(t *testing.T) *httpPeer {
	t.Helper()
	s.mu.Lock()
	if s.peer == nil && s.err == nil {
		s.peer, s.err = startHTTPPeer(s.specV.name, s.specV.command)
	}
	peer, err := s.peer, s.err
	s.mu.Unlock()
	if err != nil {
		t.Fatalf("%s server: %v", s.specV.name, err)
	}
	return peer
}

// shared returns the shared connection for t's turn (t may be a subtest of
// the counted test).
func (s *sharedHTTP) shared(t *testing.T) *httpConn {
	t.Helper()
	peer := s.server(t)
	s.turn.Lock()
	t.Cleanup(s.turn.Unlock)
	s.mu.Lock()
	if s.conn == nil && s.cerr == nil {
		s.conn, s.cerr = connectHTTP(s.specV, peer, s.specV.rec(), false)
	}
	conn, err := s.conn, s.cerr
	s.mu.Unlock()
	if err != nil {
		t.Fatalf("shared %s connection: %v", s.specV.name, err)
	}
	t.Cleanup(func() { conn.rec.check(t) })
	return conn
}

// own returns a connection of t's own to the shared server, stopped when t
// ends; plain leaves out the handlers that declare client capabilities.
func (s *sharedHTTP) own(t *testing.T, plain bool) *httpConn {
	t.Helper()
	peer := s.server(t)
	conn, err := connectHTTP(s.specV, peer, s.specV.rec(), plain)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := conn.stop(); err != nil {
			t.Error(err)
		}
		conn.rec.check(t)
	})
	return conn
}

// release ends t's use; the last user stops the shared connection and the
// server and reports to t what went wrong in stopping them.
func (s *sharedHTTP) release(t *testing.T) {
	var peer *httpPeer
	var conn *httpConn
	s.leave(func() {
		peer, conn = s.peer, s.conn
		s.peer, s.err, s.conn, s.cerr = nil, nil, nil, nil
	})
	if conn != nil {
		if err := conn.stop(); err != nil {
			t.Error(err)
		}
	}
	if peer != nil {
		if err := peer.stop(); err != nil {
			t.Error(err)
		}
		requireReaped(t, []int{peer.proc.cmd.Process.Pid})
	}
}
