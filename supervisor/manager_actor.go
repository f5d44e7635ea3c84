package supervisor

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/naming"
	"github.com/mcpactor/mcpactor/supervisor/toolcache"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// member is one server as the manager actor tracks it.
type member struct {
	srv    *Server
	client *actors.Client
	state  State
	tools  []messages.Tool
	cached bool            // tools came from the cache, not from this run's server
	era    string          // the era the cache entry recorded ("session", "stateless"), or ""
	trace  context.Context // the trace its first connection joins
	// lastErr is its last failure (setErr), lastErrAt when it came, and
	// errPast says the server has recovered since: the error is kept for
	// the record, not a current problem.
	lastErr   error
	lastErrAt time.Time
	errPast   bool
	// Restart accounting: failures in the policy's window open the breaker.
	failures []time.Time
	restarts int
	backoff  int // restarts since the last ready connection
	timer    *time.Timer
	// The breaker (manager_restart.go): trips counts its openings since
	// the last ready connection, trial marks the connection under way as
	// its trial, and nextTrial is when the next restart or trial is due
	// (zero when none is scheduled).
	trips     int
	trial     bool
	nextTrial time.Time
	// Keepalive.
	pinging   bool
	misses    int
	keepalive *time.Timer // the next ping
	latency   *latencyRing
	health    *callHealth // callers' count of transport failures in a row
	// resolving cancels the !command values being run for the server's
	// start, when it is removed meanwhile.
	resolving context.CancelFunc
	// connecting counts against MaxConnecting until the first outcome.
	connecting bool
	// approval is the server's turn with Approve, until its answer
	// (manager_approval.go).
	approval *approvalRequest
	// loading: its cached tool list is being read (manager_cache.go);
	// the gate waits for it.
	loading bool
	listing bool // a tools/list is in flight
	// listFailures counts the tools/lists in a row that failed on this
	// connection, and listTimer is the retry of the last (retryList).
	listFailures int
	listTimer    *time.Timer
	// relist: the tools changed while a tools/list was in flight, whose
	// answer may predate the change: list again when it is in.
	relist bool
	// The prompts and resources the server lists (manager_catalog.go),
	// and which of those lists are being fetched.
	prompts        []messages.Prompt
	resources      []messages.Resource
	catalogListing map[string]bool
	catalogRelist  map[string]bool // as relist, for prompts and resources
	// catalogNews: its prompts or resources changed, and the event waits
	// for the lists still in flight (catalogSettled).
	catalogNews bool
	// catalogDue: the server became ready and its prompts and resources
	// are to be listed once its tools have been (toolsListed).
	catalogDue bool
	// catalogHeld: its prompts and resources wait in catalogsHeld for
	// the handshakes around it (manager_catalog.go).
	catalogHeld bool
	listed      bool // the live tools have been listed (or listing failed) once
	removing    bool
	seq         uint64 // bumped at each start, so that news of an old client is ignored
	// view is the member as the last snapshot published shows it;
	// dirty says it may be out of date, and the member is in
	// managerActor.dirty (publish).
	view  *serverView
	dirty bool
}

// managerActor owns the members. Only its Receive touches them.
type managerActor struct {
	h       *Manager
	opts    ManagerOptions
	members map[string]*member
	queue   []string // servers waiting for a handshake slot
	active  int      // handshakes in flight
	gate    []chan struct{}
	gated   bool // the gate's time has passed
	closing bool
	self    *actor.PID
	root    *actor.RootContext
	// ctx is the actor's context, the parent of the clients it spawns;
	// used only in Receive, as it is the same one each message comes
	// with.
	ctx actor.Context
	log *slog.Logger
	// approvals calls Approve, and cacheReads reads the tool-list
	// cache, off the actor (manager_worker.go).
	approvals, cacheReads *worker
	approvePanics         atomic.Int64 // Approve calls that panicked
	// trace is Manage's trace (only that: no deadline, no values), which
	// the first connections of its servers join.
	trace context.Context
	// dirty are the members changed since the last publish (changed).
	dirty []*member
	// batching holds publish, the events and the gate while batch runs
	// (manager_snapshot.go); held are the events it holds.
	batching bool
	held     []Event
	// toolListings counts the tools/list requests in flight.
	toolListings int
	// catalogsHeld are ready servers whose prompts and resources wait
	// until no handshake and no tools/list is in flight or queued, or
	// until those stall (manager_catalog.go): startProgress is when one
	// last ended, and catalogTimer looks for a stall (catalogHoldSeq
	// tells the current timer from an older one).
	catalogsHeld   []*member
	startProgress  time.Time
	catalogTimer   *time.Timer
	catalogHoldSeq uint64
}

// Messages of the manager actor.
type (
	awaitGate    struct{ reply chan struct{} }
	awaitStarted struct{ reply chan struct{} }
	gateTime     struct{}
	addServer    struct {
		srv   *Server
		trace context.Context // the caller's trace, which the first connection joins
		reply chan error
	}
	removeServer struct {
		name  string
		reply chan error
	}
	reloadServers struct {
		servers []*Server
		trace   context.Context
		reply   chan error
	}
	closeManager struct {
		ctx   context.Context
		reply chan error
	}
	// resolved and toolsListed carry the member they are about, compared
	// with the current one and never read off the actor: a server
	// removed and added again meanwhile (Add with another configuration,
	// Reload) is another member under the same name, and the news of its
	// old self is not for it.
	resolved struct {
		name   string
		member *member
		cfg    actors.Spec
		err    error
	}
	toolsListed struct {
		name   string
		member *member
		tools  []messages.Tool
		hints  actors.CacheHints
		err    error
	}
	toolsChanged struct{ name string }
	// listRetry lists a member's tools again after a failed list
	// (retryList); seq and member tell it from a retry of an older
	// connection or of a member since replaced.
	listRetry struct {
		name   string
		member *member
		seq    uint64
	}
	restartNow struct {
		name string
		seq  uint64
	}
	breakerRetry struct {
		name string
		seq  uint64
	}
	keepaliveTick struct{ name string }
	// callsFailing: CallFailureThreshold calls in a row failed in the
	// transport (manager_health.go).
	callsFailing struct {
		name   string
		health *callHealth
		err    error
	}
	pingDone struct {
		name string
		seq  uint64
		err  error
	}
	removed       struct{ name string }
	restartServer struct {
		name  string
		reply chan error
	}
)

func newManagerActor(h *Manager, opts ManagerOptions) *managerActor {
	return &managerActor{h: h, opts: opts, members: map[string]*member{}, log: opts.Logger}
}

func (a *managerActor) Receive(ctx actor.Context) {
	defer a.recoverPanic()
	switch m := ctx.Message().(type) {
	case *actor.Started:
		a.self, a.root, a.ctx = ctx.Self(), ctx.ActorSystem().Root, ctx
		root, self := a.root, a.self
		send := func(msg any) { root.Send(self, msg) }
		a.approvals, a.cacheReads = &worker{send: send}, &worker{send: send}
		a.watchNotifications()
		a.batch(func() {
			for _, s := range a.opts.Servers {
				a.add(ctx, a.trace, s)
			}
		})
		a.after(a.opts.Gate, gateTime{})
	case awaitGate:
		a.gate = append(a.gate, m.reply)
		a.checkGate()
	case awaitStarted:
		close(m.reply)
	case gateTime:
		a.gated = true
		a.checkGate()
	case approvalAnswered:
		a.approved(m)
	case cacheLoaded:
		a.cacheLoaded(m)
	case resolved:
		a.resolved(m)
	case actors.ServerReady:
		a.ready(m)
	case actors.ServerDown:
		a.down(m)
	case toolsListed:
		a.toolsListed(m)
	case toolsChanged:
		if mb := a.members[m.name]; mb != nil && mb.state == StateReady {
			a.list(mb)
		}
	case listRetry:
		if mb := a.members[m.name]; mb == m.member && mb.seq == m.seq && !mb.removing && mb.state == StateReady {
			a.list(mb)
		}
	case catalogChanged:
		if mb := a.members[m.name]; mb != nil && mb.state == StateReady {
			a.listCatalog(mb, m.kind)
		}
	case catalogListed:
		a.catalogListed(m)
	case catalogHoldCheck:
		a.catalogHoldCheck(m)
	case restartNow:
		if mb := a.members[m.name]; mb != nil && mb.seq == m.seq && !mb.removing {
			mb.nextTrial = time.Time{}
			a.changed(mb)
			a.setState(mb, StateConnecting, nil)
			a.root.Send(mb.client.PID(), actors.RestartServer{Now: true})
		}
	case breakerRetry:
		if mb := a.members[m.name]; mb != nil && mb.seq == m.seq && mb.state == StateBreakerOpen && !mb.removing {
			a.log.Info("mcp: breaker half-open: trying the server once", "server", m.name, "trials_failed", mb.trips)
			a.tryAgain(mb, true)
		}
	case restartServer:
		m.reply <- a.restart(m.name)
	case keepaliveTick:
		a.ping(m.name)
	case callsFailing:
		a.callsFailing(m)
	case pingDone:
		a.pinged(m)
	case addServer:
		m.reply <- a.add(ctx, m.trace, m.srv)
	case removeServer:
		m.reply <- a.remove(m.name)
	case reloadServers:
		var err error
		a.batch(func() { err = a.reload(ctx, m.trace, m.servers) })
		m.reply <- err
	case removed:
		if mb := a.members[m.name]; mb != nil && mb.removing {
			delete(a.members, m.name)
			// At Close, once: the members go one by one, and each
			// publication would index all that are left (N² for N).
			// Meanwhile the snapshot shows them being removed (no
			// client).
			if !a.closing || len(a.members) == 0 {
				a.publish()
			}
			a.finishClose(ctx)
		}
	case closeManager:
		a.close(ctx, m)
	case *actor.Terminated:
		a.finishClose(ctx)
	case *actor.Stopped:
		for _, mb := range a.members {
			mb.stopTimers()
		}
		if a.catalogTimer != nil {
			a.catalogTimer.Stop()
		}
		a.catalogsHeld = nil
		a.approvals.stop()
		a.cacheReads.stop()
		close(a.h.done)
		// The actor, the only pusher, is done: the delivery goroutine may
		// end. Close does it too, but only when it sees the actor stop; a
		// Close whose ctx ended first, or an actor stopped by a panic,
		// would leave it waiting forever.
		a.h.events.close()
	}
	// After every message, whatever it changed: the catalogs held for
	// the servers starting go once none is (manager_catalog.go).
	if len(a.catalogsHeld) > 0 && !a.closing {
		a.releaseCatalogs(false)
	}
}

// recoverPanic logs a panic with its stack (only here is it known) and
// lets it go on to the guardian, which stops the manager: its children
// stop with it, each killing and reaping its process.
func (a *managerActor) recoverPanic() {
	if r := recover(); r != nil {
		a.log.Error("mcp: manager actor panicked; stopping it", "panic", r, "stack", string(debug.Stack()))
		panic(r)
	}
}

// add starts a server, unless it is disabled or not approved. Approve
// is asked off the actor (approved), the cached tools are read off the
// actor (cacheLoaded); the server is queued for a handshake slot after
// both.
func (a *managerActor) add(ctx actor.Context, trace context.Context, s *Server) error {
	if a.closing {
		return callerr.NewManagerClosed()
	}
	var previous []messages.Tool
	if old := a.members[s.Name]; old != nil {
		if old.srv.Hash == s.Hash && !old.removing {
			return nil // unchanged
		}
		previous = old.tools
		a.remove(s.Name)
	}
	defer a.offerPrevious(s.Name, previous)
	mb := &member{srv: s, latency: &latencyRing{}, health: &callHealth{}, trace: trace, catalogListing: map[string]bool{}, catalogRelist: map[string]bool{}}
	a.members[s.Name] = mb
	a.changed(mb)
	switch {
	case !s.Enabled:
		a.setState(mb, StateDisabled, nil)
		return nil
	case s.NeedsApproval && a.opts.Approve == nil:
		a.setState(mb, StateRefused, errNotApproved)
		return nil
	}
	mb.state = StateConnecting
	if s.NeedsApproval {
		a.askApproval(mb)
	} else {
		a.admit(mb)
	}
	a.publish()
	return nil
}

// approved goes on with the start of a server Approve answered for, or
// refuses it.
func (a *managerActor) approved(m approvalAnswered) {
	mb := a.members[m.name]
	if mb != m.member || mb.removing {
		return
	}
	mb.approval = nil
	if m.err != nil {
		a.setState(mb, StateRefused, m.err)
		a.checkGate()
		return
	}
	a.admit(mb)
	a.publish()
	a.checkGate()
}

// admit readies a server that may start: its cached tools are read first,
// if there is a cache, since they decide the gate and seed its era.
func (a *managerActor) admit(mb *member) {
	if a.opts.Cache != nil {
		a.loadCached(mb)
		return
	}
	a.enqueue(mb)
}

// enqueue queues a server for a handshake slot.
func (a *managerActor) enqueue(mb *member) {
	a.queue = append(a.queue, mb.srv.Name)
	a.pump()
}

// pump starts queued servers while handshake slots are free: each
// resolves its !command values off the actor, and is spawned when that is
// done (resolved).
func (a *managerActor) pump() {
	// Closing: every member is being removed, and none is to start.
	for !a.closing && a.active < a.opts.MaxConnecting && len(a.queue) > 0 {
		name := a.queue[0]
		a.queue = a.queue[1:]
		mb := a.members[name]
		if mb == nil || mb.removing || mb.client != nil || mb.connecting {
			continue // gone, or started already (a name queued twice: removed and added again)
		}
		a.active++
		mb.connecting = true
		mb.seq++
		srv, root, self := mb.srv, a.root, a.self
		if srv.resolvesAtOnce() {
			// Nothing to run or read: no goroutine, and no message, for
			// the copy resolve makes.
			cfg, err := srv.resolve(context.Background())
			a.spawn(mb, cfg, err)
			continue
		}
		// !command values run at connect time, off the actor; each is
		// bounded by its own timeout, and all of them by the member's
		// life: Remove, Close and a reload that drops the server cancel
		// them (their processes are killed).
		ctx, cancel := context.WithCancel(context.Background())
		mb.resolving = cancel
		go func() {
			cfg, err := srv.resolve(ctx)
			cancel()
			root.Send(self, resolved{name: srv.Name, member: mb, cfg: cfg, err: err})
		}()
	}
}

func (a *managerActor) resolved(m resolved) {
	mb := a.members[m.name]
	if mb != m.member || mb.removing {
		// Removed meanwhile (and perhaps replaced): remove freed its
		// handshake slot, and freeing it again here would let one more
		// handshake run than MaxConnecting.
		return
	}
	mb.resolving = nil
	a.spawn(mb, m.cfg, m.err)
}

// spawn starts the client of a member holding a handshake slot, with the
// configuration resolve made of it, or fails the member with resolve's
// error.
func (a *managerActor) spawn(mb *member, cfg actors.Spec, err error) {
	name := mb.srv.Name
	if err != nil {
		a.log.Warn("mcp: server not started", "server", name, "err", oneLine(err.Error()))
		a.slotFreed(mb)
		a.setState(mb, StateFailed, err)
		a.checkGate()
		return
	}
	if mb.era != "" {
		// The era last spoken skips the probe (docs/configuration.md,
		// "Tool names and the tool-list cache").
		a.opts.Env.RememberEra(cfg, mb.era == toolcache.EraStateless)
	}
	mb.client = actors.SpawnSupervised(mb.trace, a.ctx, name, cfg, a.opts.Env, nil)
	a.changed(mb)
	a.publish()
}

// slotFreed ends a member's claim on a handshake slot, if it has one: a
// claim (pump) is freed once, by the first of the handshake's outcomes
// (ready, failed, a start error) or the member's removal.
func (a *managerActor) slotFreed(mb *member) {
	if !mb.connecting {
		return
	}
	mb.connecting = false
	a.active--
	a.progressed()
	a.pump()
}

func (a *managerActor) ready(m actors.ServerReady) {
	mb := a.members[m.Server]
	if mb == nil || mb.removing || mb.client != m.Client {
		return // news of a client that was replaced (or is going)
	}
	a.slotFreed(mb)
	mb.backoff, mb.misses, mb.listFailures = 0, 0, 0
	mb.trips, mb.trial, mb.nextTrial = 0, false, time.Time{}
	mb.health.failures.Store(0)
	mb.recovered()
	a.changed(mb)
	a.setState(mb, StateReady, nil)
	// The tools first: they are what a caller waits for (the startup
	// gate, a call to a server still starting). Prompts and resources
	// follow once the tools are in, and once the other servers' starts
	// are over (catalogsDue), so that a bring-up of many servers spends
	// its CPU on what it waits for.
	mb.catalogDue = true
	a.list(mb)
	a.startKeepalive(mb)
	a.checkGate()
}

// down decides what to do about a connection that failed or ended: the
// restart policy (exponential backoff with jitter; too many failures in
// the window open the breaker).
func (a *managerActor) down(m actors.ServerDown) {
	mb := a.members[m.Server]
	if mb == nil || mb.removing || a.closing || mb.client != m.Client {
		return
	}
	if m.Connecting && cannotHeal(m.Err) {
		// A missing command, one that may not be run, an invalid URL:
		// restarting would fail the same way, each time.
		a.log.Warn("mcp: server cannot start; not restarting it", "server", m.Server, "err", oneLine(m.Err.Error()))
		a.slotFreed(mb)
		mb.stopKeepalive()
		a.setState(mb, StateFailed, m.Err)
		a.checkGate()
		return
	}
	a.failed(mb, m.Err, restartReason(m))
}

// callsFailing marks unhealthy a ready server whose calls keep failing in
// the transport, and restarts it through the restart policy.
func (a *managerActor) callsFailing(m callsFailing) {
	mb := a.members[m.name]
	if mb == nil || mb.health != m.health || mb.removing || a.closing || mb.state != StateReady {
		return
	}
	err := fmt.Errorf("%d calls in a row failed; the last: %w", CallFailureThreshold, m.err)
	a.log.Warn("mcp: server calls keep failing; restarting it", "server", m.name, "err", oneLine(err.Error()))
	a.setState(mb, StateUnhealthy, err)
	a.failed(mb, err, "unhealthy")
}

// requestTimeout bounds the manager's own requests to a server (its
// lists): the server's request timeout.
func (mb *member) requestTimeout() time.Duration {
	if t := mb.srv.Spec.Limits.RequestTimeout; t > 0 {
		return t
	}
	return transport.DefaultRequestTimeout
}

// list fetches a server's tools (live), off the actor.
func (a *managerActor) list(mb *member) {
	if mb.client == nil {
		return
	}
	if mb.listing {
		mb.relist = true
		return
	}
	mb.listing = true
	a.toolListings++
	name := mb.srv.Name
	a.listOff(mb, "tools", func(ctx context.Context, c *actors.Client) (any, error) {
		tools, hints, err := c.ListToolsWithHints(ctx)
		return toolsListed{name: name, member: mb, tools: tools, hints: hints, err: err}, err
	})
}

// listOff runs list on mb's client off the actor, bounded by the server's
// request timeout and in a trace of its own (the refresh span, the
// request its child), then calls the listed hook with kind and sends the
// actor the message list returns.
func (a *managerActor) listOff(mb *member, kind string, list func(context.Context, *actors.Client) (any, error)) {
	c, name, root, self, hook := mb.client, mb.srv.Name, a.root, a.self, a.opts.listedHook
	timeout := mb.requestTimeout()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		ctx, task := c.StartTask(ctx, telemetry.TaskRefresh, "")
		m, err := list(ctx, c)
		task.End(err, false)
		if hook != nil {
			hook(name, kind)
		}
		root.Send(self, m)
	}()
}

func (a *managerActor) toolsListed(m toolsListed) {
	// Every list started is counted out here, that of a member gone
	// meanwhile too.
	a.toolListings--
	a.progressed()
	mb := a.members[m.name]
	if mb != m.member || mb.removing {
		// The list of a member removed meanwhile: applied to a new member
		// of the same name, it would offer the old configuration's tools
		// (and cache them through a client not yet made).
		return
	}
	mb.listing = false
	defer a.checkGate()
	again := mb.relist && mb.state == StateReady
	if again {
		// A change came while this list was on its way: this answer
		// may predate it. Applied meanwhile, it is replaced soon.
		mb.relist = false
		defer a.list(mb)
	}
	if mb.catalogDue && mb.client != nil && mb.state == StateReady {
		mb.catalogDue = false
		a.catalogsDue(mb)
	}
	a.changed(mb) // listed, and the tools unless the list failed
	first := !mb.listed
	mb.listed = true
	if m.err != nil && len(m.tools) == 0 {
		// No longer pending: the gate does not wait for a list that
		// failed, and the server offers what it offered before (nothing,
		// on a first list) until the retry succeeds.
		mb.setErr(fmt.Errorf("tools/list: %w", m.err))
		if !again {
			a.retryList(mb)
		}
		a.publish()
		return
	}
	mb.listFailures = 0
	mb.recovered() // a failed list before this one, say
	tools, warnings := naming.NormalizeTools(m.tools)
	for _, w := range warnings {
		a.log.Warn("mcp: "+w, "server", m.name)
	}
	tools = filterTools(tools, mb.srv)
	// One event per change: a list that finds what the server offered
	// already (a server that says its tools changed as it starts, a
	// restart's list) tells nobody anything. The first list is news even
	// when empty (the tools are no longer pending), and so are live tools
	// that replace the cache's.
	news := first || mb.cached || !reflect.DeepEqual(tools, mb.tools)
	mb.tools, mb.cached = tools, false
	a.storeListed(mb, m.hints)
	a.publish()
	if news {
		a.emit(Event{Kind: EventToolsChanged, Server: m.name, State: mb.state})
	}
}

// Retries of a failed tools/list: from listRetryMin, doubled per failure
// in a row, up to listRetryMax.
const (
	listRetryMin = 500 * time.Millisecond
	listRetryMax = 30 * time.Second
)

// retryList lists a ready server's tools again, after a backoff, when its
// list failed. Until a list succeeds the server offers no tools and every
// call to one of them fails as unknown, so one failed list (a server
// still warming up, a stream that broke) must not leave it so for the
// life of the connection. A new connection lists afresh (ready), and a
// restart or a removal makes the pending retry stale (listRetry).
func (a *managerActor) retryList(mb *member) {
	if mb.state != StateReady || mb.client == nil || a.closing {
		return
	}
	delay := doubled(listRetryMin, listRetryMax, mb.listFailures)
	mb.listFailures++
	a.log.Warn("mcp: could not list tools; retrying", "server", mb.srv.Name, "in", delay, "failures", mb.listFailures, "err", oneLine(errText(mb.lastErr)))
	if mb.listTimer != nil {
		mb.listTimer.Stop()
	}
	mb.listTimer = a.after(delay, listRetry{name: mb.srv.Name, member: mb, seq: mb.seq})
}

// filterTools applies a server's enabled/disabled tool lists.
func filterTools(tools []messages.Tool, s *Server) []messages.Tool {
	enabled, disabled := s.EnabledTools, s.DisabledTools
	if len(enabled) == 0 && len(disabled) == 0 {
		return tools
	}
	out := tools[:0:0]
	for _, t := range tools {
		if len(enabled) > 0 && !contains(enabled, t.Name) {
			continue
		}
		if contains(disabled, t.Name) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// cacheKey is where a server's tool list is cached. The identity is
// hashed: a list of private scope is kept per identity, and the identity
// itself is never written.
func (a *managerActor) cacheKey(s *Server) toolcache.Key {
	k := toolcache.Key{Server: s.Name, ConfigHash: s.Hash, ProjectDir: s.Source.Project}
	if s.Spec.Identity != "" {
		k.Identity = toolcache.HashIdentity(s.Spec.Identity)
	}
	return k
}

// setState records a member's state and tells the subscribers.
func (a *managerActor) setState(mb *member, st State, err error) {
	changed := mb.state != st
	mb.state = st
	if err != nil {
		mb.setErr(err)
	}
	if changed || err != nil {
		a.changed(mb)
	}
	if changed {
		a.publish()
		a.emit(Event{Kind: EventStateChanged, Server: mb.srv.Name, State: st, Err: err})
	}
}

// checkGate releases Manage once every server is settled, or once the
// gate has passed and every server still starting has cached tools to
// offer meanwhile.
func (a *managerActor) checkGate() {
	if len(a.gate) == 0 || a.batching {
		return
	}
	for _, mb := range a.members {
		if mb.removing {
			continue
		}
		switch {
		case mb.loading:
			// What the gate offers of it is being read: wait for it,
			// whatever the policy, as when the read ran on the actor.
			return
		case mb.state == StateReady && !mb.listed, mb.state == StateConnecting:
			// Starting, or up with its tools on their way: they are what
			// the caller wants, unless the gate has passed and the cache
			// offers them meanwhile (or the policy is not to wait for
			// them past the gate).
			if !a.gated || (!mb.cached && a.opts.Startup == StartupWaitUncached) {
				return
			}
		}
	}
	for _, g := range a.gate {
		close(g)
	}
	a.gate = nil
}

// after sends msg to the actor after d.
func (a *managerActor) after(d time.Duration, msg any) *time.Timer {
	root, self := a.root, a.self
	return time.AfterFunc(d, func() { root.Send(self, msg) })
}

// setErr records a failure of the member, now; the caller marks it
// changed.
func (mb *member) setErr(err error) {
	if sameErr(err, mb.lastErr) && !mb.errPast {
		return // the same failure, told twice (failed, then setState)
	}
	mb.lastErr, mb.lastErrAt, mb.errPast = err, time.Now(), false
}

// recovered marks the last error past: the server is ready (or its tools
// listed) since. The error is kept, with its time, for the record
// (ServerStatus.LastErrorPast); the caller marks the member changed.
func (mb *member) recovered() {
	if mb.lastErr != nil {
		mb.errPast = true
	}
}

func (mb *member) stopTimers() {
	if mb.timer != nil {
		mb.timer.Stop()
	}
	if mb.listTimer != nil {
		mb.listTimer.Stop()
	}
	mb.stopKeepalive()
}
