package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
)

// runner is one soak run.
type runner struct {
	cfg    *config
	start  time.Time
	fleet  []*server
	byName map[string]*server

	rt     *mcpactor.Runtime
	m      *mcpactor.Manager
	mopts  mcpactor.ManageOptions
	tracer trace.Tracer
	spans  *spanCheck
	hist   *history

	ids           atomic.Uint32
	lateProgress  atomic.Int64
	notifications atomic.Int64
	handlerCalls  atomic.Int64
	inflight      atomic.Int64

	membersMu sync.Mutex
	members   map[string]mcpactor.ServerConfig

	cacheDir string
	base     baseline

	mu       sync.Mutex
	unknowns []string
	findings map[string][]string // errors of the runtime bugs found, by finding
	events   []stateEvent
	state    map[string]mcpactor.ServerState
	removals []removal
	samples  []sample
}

// stateEvent is a server's change of state (ManagerEvent), as heard.
type stateEvent struct {
	At     time.Duration
	Server string
	State  mcpactor.ServerState
	Err    string
}

// removal is a time a server was not a member (Remove to Add).
type removal struct {
	Server   string
	From, To time.Duration // To is 0 while it lasts
}

// baseline is what the process holds before the soak starts anything,
// which it must hold again after Stop.
type baseline struct {
	Goroutines, FDs, Children int
}

func (r *runner) since() time.Duration { return time.Since(r.start) }

func (r *runner) logf(format string, args ...any) {
	if r.cfg.log != nil {
		fmt.Fprintf(r.cfg.log, "soak %7.1fs: %s\n", r.since().Seconds(), fmt.Sprintf(format, args...))
	}
}

func (r *runner) onEvent(ev mcpactor.ManagerEvent) {
	if ev.Kind != mcpactor.EventStateChanged {
		return
	}
	e := stateEvent{At: r.since(), Server: ev.Server, State: ev.State}
	if ev.Err != nil {
		e.Err = errText(ev.Err)
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.state[ev.Server] = ev.State
	r.mu.Unlock()
}

func (r *runner) breakerOpen(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state[name] == mcpactor.StateBreakerOpen
}

func (r *runner) noteRemoval(name string, removed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if removed {
		r.removals = append(r.removals, removal{Server: name, From: r.since()})
		return
	}
	for i := len(r.removals) - 1; i >= 0; i-- {
		if r.removals[i].Server == name && r.removals[i].To == 0 {
			r.removals[i].To = r.since()
			return
		}
	}
}

// run runs the soak and analyses it. An error is a run that could not be
// made (a peer missing, the fleet not starting); a run made returns its
// report, passed or not.
func run(cfg *config) (*report, error) {
	if cfg.seed == 0 {
		cfg.seed = time.Now().UnixNano()
	}
	if cfg.servers < 12 {
		return nil, fmt.Errorf("-servers %d: the fleet needs at least 12 (every kind)", cfg.servers)
	}
	p, err := findPeers()
	if err != nil {
		return nil, err
	}
	runtime.GC()
	base := baseline{Goroutines: runtime.NumGoroutine(), FDs: openFDs(), Children: len(children())}

	dir := cfg.historyDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "soak-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, base: base, state: map[string]mcpactor.ServerState{}, findings: map[string][]string{}, byName: map[string]*server{}, spans: newSpanCheck()}
	r.cacheDir = filepath.Join(dir, "cache")
	if err := os.MkdirAll(r.cacheDir, 0o700); err != nil {
		return nil, err
	}
	histPath := filepath.Join(dir, "calls.bin")
	if r.hist, err = newHistory(histPath); err != nil {
		return nil, err
	}
	r.start = time.Now()
	r.fleet = buildFleet(cfg.servers, p)
	for _, s := range r.fleet {
		r.byName[s.name] = s
	}
	r.logf("seed %d; %d servers, %d callers, %.0f faults/min for %v", cfg.seed, len(r.fleet), cfg.callers, cfg.faultsPerMin, cfg.duration)

	// Whatever happens, the processes and proxies the soak started end.
	defer func() {
		for _, s := range r.fleet {
			if s.proxy != nil {
				s.proxy.close()
			}
			if s.backend != nil {
				s.backend.kill()
			}
		}
	}()
	if err := r.startBackends(p); err != nil {
		return nil, err
	}

	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(r.spans))
	r.tracer = tp.Tracer(soakScope)
	r.rt, err = mcpactor.Start(mcpactor.Options{Handlers: r.handlers(), Logger: newWarningLog(r), Telemetry: telemetry.Options{TracerProvider: tp}})
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = r.rt.Stop(ctx)
		}
	}()
	r.members = configs(r.fleet)
	r.mopts = mcpactor.ManageOptions{
		Servers:      maps.Clone(r.members),
		CacheDir:     r.cacheDir,
		BreakerRetry: breakerRetry,
		OnEvent:      r.onEvent,
	}
	if err := r.startFleet(); err != nil {
		return nil, err
	}
	r.logf("fleet ready: %d servers", len(r.fleet))

	// The load, the sampler, and after the quiet baseline the faults.
	loadCtx, stopLoad := context.WithCancel(context.Background())
	faultCtx, stopFaults := context.WithCancel(context.Background())
	sampleCtx, stopSampler := context.WithCancel(context.Background())
	var tap *probeTap
	if cfg.diag && cfg.historyDir != "" {
		tap = &probeTap{}
	}
	probePath := filepath.Join(dir, "probe.bin")
	runProbe, err := r.startProbe(sampleCtx, probePath, tap)
	if err != nil {
		stopLoad()
		stopFaults()
		stopSampler()
		return nil, err
	}
	var bg sync.WaitGroup
	bg.Add(2)
	go func() {
		defer bg.Done()
		r.runSampler(sampleCtx)
	}()
	go func() {
		defer bg.Done()
		runProbe()
	}()
	if tap != nil {
		bg.Add(1)
		go func() {
			defer bg.Done()
			r.runDiag(sampleCtx, cfg.historyDir, tap)
		}()
	}
	if cfg.profiles != "" {
		bg.Add(1)
		go func() {
			defer bg.Done()
			r.cpuProfiles(sampleCtx, cfg.profiles, cfg.window)
		}()
	}
	loadStart := r.since()
	inj := newInjector(r)
	injDone := faultsAfterQuiet(faultCtx, cfg.quiet, r.logf, inj.run)
	loadDone := make(chan int, 1)
	go func() { loadDone <- r.runLoad(loadCtx) }()
	time.Sleep(cfg.duration)
	loadEnd := r.since()
	stopFaults()
	stopLoad()
	r.logf("load over; waiting up to %v for the calls in flight", cfg.grace)
	stuck := <-loadDone
	select {
	case <-injDone:
	case <-time.After(2 * time.Minute):
		r.logf("faults under way did not end in 2 minutes")
	}
	stopSampler()
	bg.Wait()
	r.logf("calls over (%d still in a call after the grace period); stopping", stuck)

	// Stop, and what is left after it.
	td := r.teardown(tp)
	stopped = true
	if err := r.hist.close(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	r.logf("teardown: %s", td)
	rep := &report{
		cfg: cfg, fleet: r.fleet, base: base, teardown: td, stuck: stuck,
		loadStart: loadStart, loadEnd: loadEnd, quietEnd: loadStart + cfg.quiet,
		faults: inj.log, events: r.events, removals: r.removals, samples: r.samples,
		unknowns: r.unknowns, findingErrs: r.findings, lateProgress: r.lateProgress.Load(),
		spansStarted: r.spans.started.Load(), spansEnded: r.spans.ended.Load(), spansLate: r.spans.late.Load(),
		notifications: r.notifications.Load(), handlerCalls: r.handlerCalls.Load(), calls: int64(r.ids.Load()),
	}
	if err := rep.analyze(histPath, probePath); err != nil {
		return nil, err
	}
	if cfg.diag && cfg.historyDir != "" {
		r.writeDiagLogs(cfg.historyDir, inj.log, loadStart, rep.quietEnd, loadEnd)
	}
	return rep, nil
}

// startBackends starts the HTTP servers and their proxies, and points the
// configurations at the proxies.
func (r *runner) startBackends(p peerPaths) error {
	var wg sync.WaitGroup
	errs := make([]error, len(r.fleet))
	sem := make(chan struct{}, 4)
	for i, s := range r.fleet {
		if !isHTTPKind(s.kind) {
			continue
		}
		s.backend = newBackend(s, p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = s.backend.start()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, s := range r.fleet {
		if s.backend == nil {
			continue
		}
		px, err := newProxy(s.backend)
		if err != nil {
			return err
		}
		s.proxy = px
		s.cfg.URL = px.url(endpointPath(s.kind))
		s.cfg.Type = "http"
		if s.kind == kEverythingSSE {
			s.cfg.Type = "sse"
		}
	}
	return nil
}

// startFleet starts the manager and waits for every server to be ready,
// then learns each server's tools and a resource to read.
func (r *runner) startFleet() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m, err := r.rt.Manage(ctx, r.mopts)
	if err != nil {
		return fmt.Errorf("starting the manager: %w", err)
	}
	r.m = m
	// Ready, and with its tools listed: every kind offers tools, and a
	// caller picks them by the names listed below.
	for {
		var notReady []string
		for _, st := range m.Status() {
			if st.State != mcpactor.StateReady || st.ToolsPending || st.Tools == 0 {
				notReady = append(notReady, fmt.Sprintf("%s (%s, %d tools: %v)", st.Name, st.State, st.Tools, st.LastError))
			}
		}
		if len(notReady) == 0 {
			break
		}
		if ctx.Err() != nil {
			return fmt.Errorf("servers not ready after 3 minutes: %v", notReady)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, s := range r.fleet {
		s.tools = map[string]string{}
	}
	for _, t := range m.ListTools() {
		if s := r.byName[t.Server]; s != nil {
			s.tools[t.Tool.Name] = t.Name
		}
	}
	for _, s := range r.fleet {
		c, ok := m.Client(s.name)
		if !ok {
			return fmt.Errorf("%s: no client", s.name)
		}
		// A server without resources (the fast one) answers -32601:
		// it gets no reads.
		res, _ := c.ListResources(ctx)
		for _, x := range res {
			// A text resource that is always there.
			if slices.Contains([]string{"test://static/1", "test://static-text"}, x.URI) {
				s.uri = x.URI
			}
		}
		if s.uri == "" && len(res) > 0 {
			s.uri = res[0].URI
		}
	}
	return nil
}

func (r *runner) handlers() mcpactor.Handlers {
	return mcpactor.Handlers{
		Sampling: func(context.Context, string, *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			r.handlerCalls.Add(1)
			return &messages.CreateMessageResult{Role: messages.RoleAssistant, Content: messages.TextContent("soak"), Model: "soak"}, nil
		},
		Roots: func(context.Context, string) ([]messages.Root, error) {
			r.handlerCalls.Add(1)
			return []messages.Root{{URI: "file:///tmp/soak", Name: "soak"}}, nil
		},
		Elicitation: func(context.Context, string, *messages.ElicitParams) (*messages.ElicitResult, error) {
			r.handlerCalls.Add(1)
			return &messages.ElicitResult{Action: "accept", Content: map[string]any{"x": "soak"}}, nil
		},
		Notification: func(string, mcpactor.Notification) { r.notifications.Add(1) },
	}
}

// teardownResult is what Stop left.
type teardownResult struct {
	CloseErr, StopErr string
	StopTook          time.Duration
	RuntimeChildren   int // server processes of the runtime left 10 s after Stop
	After             baseline
	Zombies           []int
	Settled           time.Duration // how long after Stop the counts came back
}

func (t teardownResult) String() string {
	return fmt.Sprintf("stop took %v; %d runtime children left; after: %d goroutines, %d fds, %d children; zombies %v",
		t.StopTook.Round(time.Millisecond), t.RuntimeChildren, t.After.Goroutines, t.After.FDs, t.After.Children, t.Zombies)
}

// teardown closes the manager, stops the runtime, and measures what is
// left: the runtime's server processes first (the HTTP servers are the
// soak's), then, with the soak's proxies and servers gone too,
// goroutines, file descriptors and children against the baseline.
func (r *runner) teardown(tp *sdktrace.TracerProvider) teardownResult {
	var td teardownResult
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t0 := time.Now()
	if err := r.m.Close(ctx); err != nil {
		td.CloseErr = errText(err)
	}
	if err := r.rt.Stop(ctx); err != nil {
		td.StopErr = errText(err)
	}
	td.StopTook = time.Since(t0)
	backends := map[int]bool{}
	for _, s := range r.fleet {
		if s.backend != nil {
			backends[s.backend.pid()] = true
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		td.RuntimeChildren = 0
		for _, c := range children() {
			if !backends[c.pid] {
				td.RuntimeChildren++
			}
		}
		if td.RuntimeChildren == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, s := range r.fleet {
		if s.proxy != nil {
			s.proxy.close()
		}
		if s.backend != nil {
			s.backend.kill()
		}
	}
	_ = tp.Shutdown(ctx)
	settle := time.Now()
	deadline = settle.Add(20 * time.Second)
	for {
		runtime.GC()
		td.After = baseline{Goroutines: runtime.NumGoroutine(), FDs: openFDs(), Children: len(children())}
		if (td.After.Goroutines <= r.base.Goroutines+leakSlack && td.After.FDs <= r.base.FDs+leakSlack && td.After.Children == r.base.Children) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	td.Settled = time.Since(settle)
	td.Zombies = zombies()
	return td
}

// The slack of the leak check, over the baseline: none for children;
// for goroutines and descriptors a couple that the standard library
// keeps once used (the signal watcher of os/exec, the poller's).
const leakSlack = 3
