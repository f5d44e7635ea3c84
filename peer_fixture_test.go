package mcpactor_test

// Connections to the independent peers over stdio (peer_everything_test.go,
// peer_gosdk_test.go) that tests share or own.

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/proctest"
)

// peerFixture is a runtime connected to one independent peer server over
// stdio, with the recorder that answers the server's requests.
type peerFixture struct {
	rt   *mcpactor.Runtime
	c    *mcpactor.Client
	rec  *peerRecorder
	pids []int // the server's process
}

// peerSpec says how to start a peer: the recorder its runtime uses (made
// afresh for each connection), its command, and a substring of its command
// line that finds its process in /proc.
type peerSpec struct {
	rec    *peerRecorder
	cfg    mcpactor.ServerConfig
	marker string
	// plain leaves out the handlers that declare client capabilities
	// (roots, sampling, elicitation): only notifications and stderr are
	// recorded.
	plain bool
}

// fixtureEnv names the environment variable that tells a fixture's server
// process from the others running the same command.
const fixtureEnv = "MCPACTOR_TEST_FIXTURE"

var fixtureSeq atomic.Int64

// connectPeer starts a runtime with spec's handlers and connects it to the
// peer, which must be one child process.
func connectPeer(spec peerSpec) (*peerFixture, error) {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	id := spec.rec.server + "-" + strconv.FormatInt(fixtureSeq.Add(1), 10)
	cfg := spec.cfg
	cfg.Env = maps.Clone(cfg.Env)
	if cfg.Env == nil {
		cfg.Env = map[string]string{}
	}
	cfg.Env[fixtureEnv] = id

	rt, c, err := startConnected(ctx, spec.rec, spec.plain, cfg)
	if err != nil {
		return nil, err
	}
	pids, err := childrenWithEnv(spec.marker, fixtureEnv+"="+id)
	if err == nil && len(pids) != 1 {
		err = fmt.Errorf("want one %s child process, found %v", spec.rec.server, pids)
	}
	if err != nil {
		rt.Stop(ctx)
		return nil, err
	}
	return &peerFixture{rt: rt, c: c, rec: spec.rec, pids: pids}, nil
}

// startConnected starts a runtime with rec's handlers, without those that
// declare client capabilities (roots, sampling, elicitation) when plain,
// and connects it to cfg under rec's server name. Every peer fixture, over
// stdio or HTTP, connects through it.
func startConnected(ctx context.Context, rec *peerRecorder, plain bool, cfg mcpactor.ServerConfig) (*mcpactor.Runtime, *mcpactor.Client, error) {
	opts := rec.options()
	if plain {
		opts.Handlers.Roots, opts.Handlers.Sampling, opts.Handlers.Elicitation = nil, nil, nil
	}
	rt, err := mcpactor.Start(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("Start: %v", err)
	}
	c, err := rt.Connect(ctx, rec.server, cfg)
	if err != nil {
		rt.Stop(ctx)
		return nil, nil, fmt.Errorf("Connect: %v", err)
	}
	return rt, c, nil
}

// closeClient closes the fixture's client and checks what follows: the
// server reaped as Close returns, and what checkClosed checks.
func (f *peerFixture) closeClient(t *testing.T) {
	t.Helper()
	if err := f.c.Close(waitCtx(t)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	requireReaped(t, f.pids)
	checkClosed(t, f.c)
}

// childrenWithEnv returns the pids of this process's children whose command
// line contains substr and whose environment has entry ("K=V").
func childrenWithEnv(substr, entry string) ([]int, error) {
	pids, err := proctest.Children(substr)
	if err != nil {
		return nil, fmt.Errorf("reading /proc: %v", err)
	}
	var out []int
	for _, pid := range pids {
		environ, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err == nil && bytes.Contains(append([]byte{0}, environ...), []byte("\x00"+entry+"\x00")) {
			out = append(out, pid)
		}
	}
	return out, nil
}

// stop stops the runtime and fails t if that fails or leaves the server's
// process behind.
func (f *peerFixture) stop(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := f.rt.Stop(ctx); err != nil {
		t.Errorf("%s: Stop: %v", f.rec.server, err)
	}
	requireReaped(t, f.pids)
}

// ownPeer connects a peer for t alone and stops it when t ends. Tests that
// change the server's state for the session (log level, subscriptions,
// closing the client) use one. They are parallel (run makes them so): they
// spend their time waiting for the server, not computing, and so overlap
// with the tests that take turns on a sharedPeer.
func ownPeer(t *testing.T, spec peerSpec) *peerFixture {
	t.Helper()
	f, err := connectPeer(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.stop(t)
		f.rec.check(t)
	})
	return f
}

// sharedUse is what sharedPeer and sharedHTTP have in common: the count
// of the tests that use one shared server, so that the last to end stops
// it, and the turn those tests take on it. Users are counted before they
// call t.Parallel, so that the count is complete before any of them runs.
type sharedUse[S any] struct {
	turn sync.Mutex // held by the test whose turn it is

	mu    sync.Mutex // guards the fields below and those of the type that embeds it
	users int        // tests counted and not yet ended
	specV S          // the spec of the last user counted
}

// countUser counts t, whose peer is spec, as a user until it ends; then
// release runs.
func (s *sharedUse[S]) countUser(t *testing.T, spec S, release func(*testing.T)) {
	s.mu.Lock()
	s.users++
	s.specV = spec
	s.mu.Unlock()
	t.Cleanup(func() { release(t) })
}

// leave ends a use; the last one runs last with mu held, so that it takes
// what is to be stopped before another test can start it again.
func (s *sharedUse[S]) leave(last func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users--
	if s.users == 0 {
		last()
	}
}

// sharedPeer is one peer connection shared by several top-level tests, so
// that a slow server start is paid once, not once per test.
//
// It is started by the first test that uses it and stopped when the last
// one ends, before TestMain's leak check. Knowing the last one needs the
// number of users up front: count counts its test, which then calls
// t.Parallel (run does both), which pauses the test until every sequential
// top-level test has run (and every other user has been counted). The users then take turns: one test
// at a time holds the connection, in no fixed order, so each must leave the
// server as it found it and assume nothing about the others.
//
// Nothing runs on it while the package's sequential tests run: it is
// started on the first turn, after them, so their leak checks do not see
// it. With -count=n each round of tests starts and stops its own. A test's
// reported time includes its wait for its turn.
type sharedPeer struct {
	spec func(t *testing.T) peerSpec // fails t if the peer is not installed

	sharedUse[peerSpec]
	fix *peerFixture // guarded by mu
	err error        // why it could not be started; guarded by mu
}

// count counts t as a user until it ends. Call it before t.Parallel (run
// does), and take in t or one of its subtests.
func (s *sharedPeer) count(t *testing.T) {
	t.Helper()
	s.countUser(t, s.spec(t), s.release)
}

// take returns the shared connection for t's turn, starting the server if
// need be.
func (s *sharedPeer) take(t *testing.T) *peerFixture {
	t.Helper()
	s.turn.Lock()
	t.Cleanup(s.turn.Unlock)

	s.mu.Lock()
	if s.fix == nil && s.err == nil {
		s.fix, s.err = connectPeer(s.specV)
	}
	fix, err := s.fix, s.err
	s.mu.Unlock()
	if err != nil {
		t.Fatalf("shared %s server: %v", s.specV.rec.server, err)
	}
	t.Cleanup(func() { fix.rec.check(t) })
	return fix
}

// release ends t's use; the last user stops the server and reports to t
// whatever went wrong in stopping it.
func (s *sharedPeer) release(t *testing.T) {
	var fix *peerFixture
	s.leave(func() {
		fix = s.fix
		s.fix, s.err = nil, nil
	})
	if fix != nil {
		fix.stop(t)
	}
}
