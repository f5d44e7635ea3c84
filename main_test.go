package mcpactor_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/proctest"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// TestMain lets this test binary double as our own test server (the
// Examples start it as a child process) and as the test kit's servers
// (kitServers, reached by mcptest.Stdio), then runs the tests and fails
// the run if any goroutine outlives them.
func TestMain(m *testing.M) {
	mcptest.RunIfChild(kitServers)
	testserver.RunIfChild()
	goleak.VerifyTestMain(m)
}

// waitLimit bounds every wait on a peer. It is generous on purpose: the
// tests prove outcomes and ordering, never speed.
const waitLimit = 30 * time.Second

// testServerConfig is the ServerConfig that starts this test binary as our
// own test server with opts.
func testServerConfig(opts testserver.Options) mcpactor.ServerConfig {
	path, args, env := testserver.Command(opts)
	return mcpactor.ServerConfig{Command: path, Args: args, Env: harness.EnvMap(env)}
}

// startRuntime starts a runtime with opts and stops it when the test ends.
func startRuntime(t *testing.T, opts mcpactor.Options) *mcpactor.Runtime {
	t.Helper()
	rt, err := mcpactor.Start(opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		if err := rt.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return rt
}

// waitCtx is a context bounded by waitLimit, cancelled when the test ends.
func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

// noteLog records every notification delivered to Handlers.Notification
// and lets a test wait for one that matches.
type noteLog struct {
	mu    sync.Mutex
	notes []loggedNote
	wake  chan struct{} // closed and replaced at each append
}

type loggedNote struct {
	server string
	note   mcpactor.Notification
}

func newNoteLog() *noteLog { return &noteLog{wake: make(chan struct{})} }

// add is the Handlers.Notification callback.
func (l *noteLog) add(server string, n mcpactor.Notification) {
	l.mu.Lock()
	l.notes = append(l.notes, loggedNote{server, n})
	close(l.wake)
	l.wake = make(chan struct{})
	l.mu.Unlock()
}

// mark returns a position for waitAfter: only notifications recorded after
// it are considered.
func (l *noteLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.notes)
}

// waitAfter returns the first notification at or after position from for
// which match is true, failing the test if none arrives in time.
func (l *noteLog) waitAfter(t *testing.T, from int, what string, match func(server string, n mcpactor.Notification) bool) mcpactor.Notification {
	t.Helper()
	n, _ := l.find(t, from, what, match)
	return n
}

// collectAfter waits until count notifications at or after position from
// match, and returns them in arrival order.
func (l *noteLog) collectAfter(t *testing.T, from, count int, what string, match func(server string, n mcpactor.Notification) bool) []mcpactor.Notification {
	t.Helper()
	var got []mcpactor.Notification
	for len(got) < count {
		n, i := l.find(t, from, what, match)
		got = append(got, n)
		from = i + 1
	}
	return got
}

// find is waitAfter that also returns the notification's position.
func (l *noteLog) find(t *testing.T, from int, what string, match func(server string, n mcpactor.Notification) bool) (mcpactor.Notification, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for i := from; ; {
		l.mu.Lock()
		for ; i < len(l.notes); i++ {
			if match(l.notes[i].server, l.notes[i].note) {
				n := l.notes[i].note
				l.mu.Unlock()
				return n, i
			}
		}
		wake := l.wake
		l.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			t.Fatalf("no %s within %v; notifications so far: %s", what, waitLimit, l.methods())
			return mcpactor.Notification{}, 0
		}
	}
}

// methods lists the methods recorded so far, for failure messages.
func (l *noteLog) methods() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	b.WriteString("[")
	for i, n := range l.notes {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(n.note.Method)
	}
	b.WriteString("] (" + strconv.Itoa(len(l.notes)) + ")")
	return b.String()
}

// childPIDs returns the pids of this process's children whose command line
// contains substr (Linux /proc).
func childPIDs(t *testing.T, substr string) []int {
	t.Helper()
	pids, err := proctest.Children(substr)
	if err != nil {
		t.Fatalf("reading /proc: %v", err)
	}
	return pids
}

// requireReaped fails the test if any of pids is still a process (a zombie
// counts: the runtime must have reaped it).
func requireReaped(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if _, state, ok := proctest.Stat(pid); ok {
			t.Errorf("server process %d still exists (state %s) after Close", pid, state)
		}
	}
}

// isMethod matches notifications of one method.
func isMethod(method string) func(string, mcpactor.Notification) bool {
	return func(_ string, n mcpactor.Notification) bool { return n.Method == method }
}

// peerRecorder answers a peer's server-to-client requests with canned
// results and records what it was asked, as a host application would.
type peerRecorder struct {
	server string // the name the peer is connected under
	notes  *noteLog

	// sample and elicit produce the answers; set them before connecting.
	sample func(*messages.CreateMessageParams) (*messages.CreateMessageResult, error)
	elicit func(*messages.ElicitParams) (*messages.ElicitResult, error)

	mu          sync.Mutex
	roots       []messages.Root
	rootsCalls  int
	samplings   []*messages.CreateMessageParams
	elicits     []*messages.ElicitParams
	wrongServer []string // server names handlers were called with, other than server
	stderr      []string
}

func newPeerRecorder(server string) *peerRecorder {
	return &peerRecorder{server: server, notes: newNoteLog()}
}

// options returns runtime options whose handlers are this recorder's.
func (r *peerRecorder) options() mcpactor.Options {
	return mcpactor.Options{
		Handlers: mcpactor.Handlers{
			Roots: func(_ context.Context, server string) ([]messages.Root, error) {
				r.mu.Lock()
				defer r.mu.Unlock()
				r.checkServer(server)
				r.rootsCalls++
				return append([]messages.Root(nil), r.roots...), nil
			},
			Sampling: func(_ context.Context, server string, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
				recordParams(r, server, &r.samplings, p)
				return r.sample(p)
			},
			Elicitation: func(_ context.Context, server string, p *messages.ElicitParams) (*messages.ElicitResult, error) {
				recordParams(r, server, &r.elicits, p)
				return r.elicit(p)
			},
			Notification: func(server string, n mcpactor.Notification) {
				r.mu.Lock()
				r.checkServer(server)
				r.mu.Unlock()
				r.notes.add(server, n)
			},
		},
		StderrLine: func(_, line string) {
			r.mu.Lock()
			r.stderr = append(r.stderr, line)
			r.mu.Unlock()
		},
	}
}

func (r *peerRecorder) checkServer(server string) {
	if server != r.server {
		r.wrongServer = append(r.wrongServer, server)
	}
}

func (r *peerRecorder) setRoots(roots ...messages.Root) {
	r.mu.Lock()
	r.roots = roots
	r.mu.Unlock()
}

func (r *peerRecorder) rootsCallCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rootsCalls
}

func (r *peerRecorder) lastSampling() *messages.CreateMessageParams {
	return lastRecorded(r, &r.samplings)
}

func (r *peerRecorder) lastElicit() *messages.ElicitParams {
	return lastRecorded(r, &r.elicits)
}

// recordParams adds the params p, which server sent, to r's list, under r.mu.
func recordParams[P any](r *peerRecorder, server string, list *[]*P, p *P) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checkServer(server)
	*list = append(*list, p)
}

// lastRecorded returns the last of the params r recorded in list, or nil
// if there are none yet; list is read under r.mu, as the handlers append
// to it.
func lastRecorded[P any](r *peerRecorder, list *[]*P) *P {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(*list) == 0 {
		return nil
	}
	return (*list)[len(*list)-1]
}

// check fails the test if a handler was called with another server's name,
// and logs the peer's stderr when the test failed.
func (r *peerRecorder) check(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.wrongServer) > 0 {
		t.Errorf("handlers called with server names %q, want only %q", r.wrongServer, r.server)
	}
	if t.Failed() {
		for _, line := range r.stderr {
			t.Logf("%s stderr: %s", r.server, line)
		}
	}
}

// callOK calls a tool and fails the test on an error or an isError result.
func callOK(t *testing.T, c *mcpactor.Client, name string, args any) *messages.CallToolResult {
	t.Helper()
	res, err := c.CallTool(waitCtx(t), name, args)
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	if res.IsError {
		t.Fatalf("CallTool(%s) returned a tool error: %s", name, resultText(res))
	}
	return res
}

// resultText joins the text blocks of a tool result.
func resultText(res *messages.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if c.Type == messages.ContentTypeText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// toolNames returns the names of tools, in order.
func toolNames(tools []messages.Tool) []string {
	names := make([]string, len(tools))
	for i, tl := range tools {
		names[i] = tl.Name
	}
	return names
}

// progressRecorder is a CallOptions.OnProgress callback that records what
// it receives and notices a call made after the tool call returned.
type progressRecorder struct {
	got      []messages.ProgressParams // written by the callback only
	returned atomic.Bool
	late     atomic.Int32
}

func (p *progressRecorder) onProgress(pp messages.ProgressParams) {
	if p.returned.Load() {
		p.late.Add(1)
		return
	}
	p.got = append(p.got, pp)
}

// checkSteps verifies that exactly steps notifications arrived, numbered 1
// to steps (or the given values), each with total, all with one token.
func (p *progressRecorder) check(t *testing.T, want []float64, total float64) {
	t.Helper()
	if n := p.late.Load(); n > 0 {
		t.Errorf("OnProgress called %d time(s) after CallToolWith returned", n)
	}
	var got []float64
	for _, pp := range p.got {
		got = append(got, pp.Progress)
	}
	if !slices.Equal(got, want) {
		t.Errorf("progress values = %v, want %v", got, want)
	}
	for i, pp := range p.got {
		if pp.Total == nil || *pp.Total != total {
			t.Errorf("progress %d: total = %v, want %v", i, pp.Total, total)
		}
		if i > 0 && pp.Progress <= p.got[i-1].Progress {
			t.Errorf("progress %d: %v does not increase on %v", i, pp.Progress, p.got[i-1].Progress)
		}
	}
	if k := p.tokens(); len(k) > 1 {
		t.Errorf("progress tokens %v: want one token per call", k)
	}
}

// tokens returns the distinct progress tokens received.
func (p *progressRecorder) tokens() []string {
	var keys []string
	for _, pp := range p.got {
		k, _ := messages.ProgressTokenKey(pp.ProgressToken)
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}
