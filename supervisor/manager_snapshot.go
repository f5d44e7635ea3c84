package supervisor

import (
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/naming"
)

// snapshot is what the manager actor publishes for callers: read-only once
// published, replaced whole at each change, so callers read it without
// locks and the actor is never on a call's path.
type snapshot struct {
	// views is every member as callers see it, and index says where
	// each server's view is (server). A view is made anew only for a
	// member that changed, and the others' are shared with the previous
	// snapshot, as is the index while no member comes or goes: a bring-up
	// of N servers publishes a few snapshots per server, and making every
	// member's status, client and tools (or a map of them) again for each
	// cost N² (docs/benchmarks.md, "8. Bring-up of 100 stdio servers").
	views viewList
	index map[string]int
	// serverNames is the index by sanitised name (manager_lookup.go),
	// shared as index is.
	serverNames *serverPositions
	// exposed is the tools under their exposed names, built from views
	// the first time a caller asks, and shared with the next snapshot
	// while no server's tools changed: naming every tool of every server
	// for each snapshot would cost N² too.
	exposed *exposedTools
	// catalog is the prompts and resources, built as exposed is.
	catalog *exposedCatalog
	// replaced is closed when a newer snapshot is published, for calls
	// waiting for a server's client to exist.
	replaced chan struct{}
}

func newSnapshot() *snapshot {
	return &snapshot{index: map[string]int{}, serverNames: &serverPositions{}, exposed: &exposedTools{}, catalog: &exposedCatalog{},
		replaced: make(chan struct{})}
}

// server is the view of a server; nil for a name the manager does not
// have.
func (s *snapshot) server(name string) *serverView {
	if i, ok := s.index[name]; ok {
		return s.views.at(i)
	}
	return nil
}

// serverView is one managed server as the manager last published it:
// made by the actor from its member (viewOf), and read-only once
// published, so that reading it takes no lock and never waits for the
// actor. Its ServerStatus (status) reads what changes with every call
// (calls in flight, the connection's version and number, latencies) live
// from the server's client and latency ring.
type serverView struct {
	state        State
	lastErr      error
	lastErrAt    time.Time
	errPast      bool
	nextTrial    time.Time
	restarts     int
	cached       bool // the tools are the cache's
	toolsPending bool
	// client is nil before the member has one, and once it is being
	// removed.
	client  *actors.Client
	latency *latencyRing
	health  *callHealth
	srv     *Server
	tools   []messages.Tool
	// toolNames and promptNames index tools and prompts by sanitised
	// name, for calls (manager_lookup.go).
	toolNames   *itemNames
	prompts     []messages.Prompt
	promptNames *itemNames
	resources   []messages.Resource
}

// name is the server's name; "" in the zero view.
func (v *serverView) name() string {
	if v.srv == nil {
		return ""
	}
	return v.srv.Name
}

// status is the server's ServerStatus now: the view's, with what changes
// with every call read live.
func (v *serverView) status() ServerStatus {
	st := ServerStatus{Name: v.name(), State: v.state, LastError: v.lastErr, LastErrorAt: v.lastErrAt,
		LastErrorPast: v.errPast, NextTrial: v.nextTrial, Restarts: v.restarts, Tools: len(v.tools),
		ToolsPending: v.toolsPending, Cached: v.cached}
	if v.srv != nil {
		st.Source = v.srv.Source
	}
	if v.client != nil {
		st.InFlight, st.ProtocolVersion, st.Generation = v.client.InFlight(), v.client.ProtocolVersion(), v.client.Generation().Number
	}
	if v.latency != nil {
		st.P50, st.P99 = v.latency.percentiles()
	}
	return st
}

// healthOf is the server's count of failed calls; nil for a server that
// is not there (observe then counts nothing).
func (v *serverView) healthOf() *callHealth {
	if v == nil {
		return nil
	}
	return v.health
}

// viewOf is mb as callers are to see it; old is its previous view, if
// any, whose indexes of names it shares while the lists are the same.
func viewOf(mb *member, old *serverView) *serverView {
	tools, prompts := &itemNames{}, &itemNames{}
	if old != nil && sameSlice(old.tools, mb.tools) {
		tools = old.toolNames
	}
	if old != nil && sameSlice(old.prompts, mb.prompts) {
		prompts = old.promptNames
	}
	return &serverView{state: mb.state, lastErr: mb.lastErr, lastErrAt: mb.lastErrAt, errPast: mb.errPast, nextTrial: mb.nextTrial, restarts: mb.restarts, cached: mb.cached,
		toolsPending: mb.toolsPending(), client: mb.liveClient(), latency: mb.latency, health: mb.health,
		srv: mb.srv, tools: mb.tools, toolNames: tools, prompts: mb.prompts, promptNames: prompts, resources: mb.resources}
}

// liveClient is the client calls may go to: none once the member is
// being removed.
func (mb *member) liveClient() *actors.Client {
	if mb.removing {
		return nil
	}
	return mb.client
}

// toolsPending: the member is starting, or up, and has no tools yet to
// offer, live or cached.
func (mb *member) toolsPending() bool {
	return !mb.listed && !mb.cached && (mb.state == StateConnecting || mb.state == StateReady)
}

// current reports whether v, the member's last published view, still
// shows it: publish skips a member marked changed that is as it was, and
// the tests' check (checkViews) finds a change that was not marked.
// (latency and health are the member's for its life.)
func (v *serverView) current(mb *member) bool {
	return v.state == mb.state && v.restarts == mb.restarts && v.cached == mb.cached &&
		v.toolsPending == mb.toolsPending() && v.srv == mb.srv &&
		v.client == mb.liveClient() &&
		sameSlice(v.tools, mb.tools) && sameSlice(v.prompts, mb.prompts) && sameSlice(v.resources, mb.resources) &&
		sameErr(v.lastErr, mb.lastErr) && v.lastErrAt.Equal(mb.lastErrAt) && v.errPast == mb.errPast &&
		v.nextTrial.Equal(mb.nextTrial)
}

// sameTools reports whether v and w offer the same tools the same way.
func (v *serverView) sameTools(w *serverView) bool {
	return sameSlice(v.tools, w.tools) && v.cached == w.cached && v.client == w.client && v.srv == w.srv
}

func (v *serverView) sameCatalog(w *serverView) bool {
	return sameSlice(v.prompts, w.prompts) && sameSlice(v.resources, w.resources)
}

// sameSlice reports whether a and b are the same slice (not equal
// contents): a member's lists are replaced, never changed in place.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// sameErr reports whether a and b are the same error value. Errors of a
// type that cannot be compared count as different (a new view, which is
// merely a little more work).
func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	t := reflect.TypeOf(a)
	return t == reflect.TypeOf(b) && t.Comparable() && a == b
}

// exposedTools names the tools of a snapshot's servers once, when first
// read; what it is built from never changes after publishing.
type exposedTools struct {
	views  viewList
	once   sync.Once
	tools  []Tool
	byName map[string]toolRef
}

// get returns the tools, sorted by exposed name, and the index by name.
func (e *exposedTools) get() ([]Tool, map[string]toolRef) {
	e.once.Do(e.build)
	return e.tools, e.byName
}

func (e *exposedTools) build() {
	index, n := exposedNames(e.views, func(v *serverView) []messages.Tool { return v.tools }, func(t messages.Tool) string { return t.Name })
	e.tools, e.byName = make([]Tool, 0, n), make(map[string]toolRef, n)
	for v := range e.views.all() {
		name := v.srv.Name
		for _, t := range v.tools {
			exposed, ok := index.Exposed(name, t.Name)
			if !ok {
				continue
			}
			e.tools = append(e.tools, Tool{Name: exposed, Server: name, Tool: t, Cached: v.cached})
			e.byName[exposed] = v.ref(t.Name)
		}
	}
	slices.SortFunc(e.tools, func(x, y Tool) int { return compare(x.Name, y.Name) })
}

// exposedNames works out the exposed names (mcp__<server>__<name>) of
// what views offer, items(v) being a view's tools or its prompts, and
// returns them with how many there are.
func exposedNames[T any](views viewList, items func(*serverView) []T, name func(T) string) (*naming.ToolIndex, int) {
	var pairs []naming.ToolPair
	for v := range views.all() {
		for _, it := range items(v) {
			pairs = append(pairs, naming.ToolPair{Server: v.srv.Name, Tool: name(it)})
		}
	}
	return naming.NewToolIndex(pairs), len(pairs)
}

// toolRef is where an exposed tool name leads.
type toolRef struct {
	server  string
	tool    string // the server's own name for it
	client  *actors.Client
	latency *latencyRing
	health  *callHealth
	// connectTimeout bounds a call's wait for a client that does not
	// exist yet (a cached tool of a server waiting for a handshake slot).
	connectTimeout time.Duration
}

// Tool is a tool as the manager exposes it.
type Tool struct {
	// Name is the exposed name, mcp__<server>__<tool> (docs/configuration.md,
	// "Tool names and the tool-list cache").
	Name   string
	Server string
	// Tool is the server's definition, with its own name.
	Tool messages.Tool
	// Cached marks a tool offered from the tool-list cache while its
	// server is still starting; a call to it waits for the server.
	Cached bool
}

// changed marks a member whose view may have changed, for the next
// publish. Every change to what viewOf reads of a member marks it:
// publish looks at the marked members only, since looking at every member
// at each publish made a bring-up of N servers cost N² (and the tests
// check that no change goes unmarked: verifyViews).
func (a *managerActor) changed(mb *member) {
	if !mb.dirty {
		mb.dirty = true
		a.dirty = append(a.dirty, mb)
	}
}

// publish replaces the snapshot with one that shows the members as they
// are. Only the members marked changed get a new view; the exposed tools
// and the catalog are made anew (on their first read) only when a
// server's tools, or its prompts or resources, changed; otherwise the
// previous snapshot's, read-only, are shared.
func (a *managerActor) publish() {
	if a.batching {
		return // batch publishes once, at its end
	}
	if verifyViews {
		a.checkViews()
	}
	prev := a.h.snap.Load()
	edit := viewEdit{l: prev.views} // prev.views with the changed members' views
	// Members that came or went: every view is placed anew, by a new
	// index.
	reindex := len(prev.index) != len(a.members)
	toolsStale, catalogStale := false, false
	for _, mb := range a.dirty {
		mb.dirty = false
		old := mb.view
		name := mb.srv.Name
		if a.members[name] != mb || (old != nil && old.current(mb)) {
			continue // gone (reindexed below), or as it was
		}
		v := viewOf(mb, old)
		mb.view = v
		if old == nil {
			toolsStale = toolsStale || len(v.tools) > 0
			catalogStale = catalogStale || len(v.prompts) > 0 || len(v.resources) > 0
		} else {
			toolsStale = toolsStale || !old.sameTools(v)
			catalogStale = catalogStale || !old.sameCatalog(v)
		}
		i, ok := prev.index[name]
		if !ok {
			reindex = true // a new name
			continue
		}
		if prior := prev.views.at(i); prior != old {
			// Another member of the same name (removed, then added
			// again) had the place.
			toolsStale = toolsStale || len(prior.tools) > 0
			catalogStale = catalogStale || len(prior.prompts) > 0 || len(prior.resources) > 0
		}
		edit.set(i, v)
	}
	clear(a.dirty) // no removed member kept alive by the array
	a.dirty = a.dirty[:0]
	index, views := prev.index, edit.l
	if reindex {
		for name, i := range prev.index {
			if v := prev.views.at(i); a.members[name] == nil {
				toolsStale = toolsStale || len(v.tools) > 0
				catalogStale = catalogStale || len(v.prompts) > 0 || len(v.resources) > 0
			}
		}
		index, views = make(map[string]int, len(a.members)), viewList{}
		for name, mb := range a.members {
			index[name] = views.len()
			views.add(mb.view) // made when it was added (changed)
		}
	} else if !edit.changed() {
		return // nothing callers see has changed
	}
	s := &snapshot{views: views, index: index, serverNames: prev.serverNames, exposed: prev.exposed, catalog: prev.catalog, replaced: make(chan struct{})}
	if reindex {
		s.serverNames = &serverPositions{}
	}
	if toolsStale {
		s.exposed = &exposedTools{views: views}
	}
	if catalogStale {
		s.catalog = &exposedCatalog{views: views}
	}
	a.h.snap.Store(s)
	close(prev.replaced)
}

// batch runs f, which changes many members at once (the servers Manage
// starts with, a reload), and publishes once when it is done: a publish
// for each member placed every member anew in a fresh index as each came,
// which made a bring-up of N servers allocate N² (docs/benchmarks.md,
// "10. One runtime at scale"). The events f raises are held until that
// publish, and so is the gate, so that whoever an event or the gate
// wakes reads a snapshot that shows what woke them.
func (a *managerActor) batch(f func()) {
	a.batching = true
	f()
	a.batching = false
	a.publish()
	held := a.held
	a.held = nil
	for _, e := range held {
		a.h.events.push(e)
	}
	a.checkGate()
}

// emit tells the subscribers of e, after the snapshot that shows it is
// published (batch).
func (a *managerActor) emit(e Event) {
	if a.batching {
		a.held = append(a.held, e)
		return
	}
	a.h.events.push(e)
}

// verifyViews is set by the tests (export_test.go): publish then checks
// that every member not marked changed is shown as it is.
var verifyViews bool

// checkViews panics if a member changed without being marked (changed):
// the snapshots would go on showing it as it was.
func (a *managerActor) checkViews() {
	for name, mb := range a.members {
		if !mb.dirty && (mb.view == nil || !mb.view.current(mb)) {
			panic(fmt.Sprintf("supervisor: member %q changed without changed(): the snapshot would not show it", name))
		}
	}
}

// EventKind says what an Event reports. The root package re-exports it
// as mcpactor.EventKind.
type EventKind string

// The kinds of events.
const (
	EventToolsChanged EventKind = "tools changed" // a server's tools changed (listed, refreshed, gone)
	EventStateChanged EventKind = "state changed" // a server changed state
	// EventCatalogChanged: a server's prompts or resources changed
	// (listed, refreshed).
	EventCatalogChanged EventKind = "catalog changed"
)

// Event is a change in the managed servers.
type Event struct {
	Kind   EventKind
	Server string
	State  State
	Err    error
}

// eventQueue delivers events to OnEvent in order, on a goroutine of its
// own; when the subscriber falls behind, the oldest waiting events go.
type eventQueue struct {
	ch      chan Event
	f       func(Event)
	dropped atomic.Int64
	// panics counts the OnEvent calls that panicked: each is logged and
	// contained, and delivery goes on with the next event.
	panics atomic.Int64
	log    *slog.Logger
	// closeOnce guards close.
	closeOnce sync.Once
	done      chan struct{}
}

func newEventQueue(f func(Event), log *slog.Logger) *eventQueue {
	q := &eventQueue{f: f, log: log, done: make(chan struct{})}
	if f == nil {
		close(q.done)
		return q
	}
	q.ch = make(chan Event, 256)
	go func() {
		defer close(q.done)
		for e := range q.ch {
			q.deliver(e)
		}
	}()
	return q
}

// deliver calls OnEvent with one event. A panic in user code must not
// take the process down with it: it is logged (one line, with the
// event's server and kind), counted, and the queue goes on.
func (q *eventQueue) deliver(e Event) {
	defer func() {
		if r := recover(); r != nil {
			n := q.panics.Add(1)
			q.log.Error("mcp: OnEvent panicked; the event is dropped", "server", e.Server, "event", string(e.Kind),
				"panic", oneLine(fmt.Sprint(r)), "panics_total", n)
		}
	}()
	q.f(e)
}

// push never blocks; only the manager actor pushes.
func (q *eventQueue) push(e Event) {
	if q.ch == nil {
		return
	}
	for {
		select {
		case q.ch <- e:
			return
		default:
		}
		select {
		case <-q.ch:
			if n := q.dropped.Add(1); n <= 10 || n%1000 == 0 {
				q.log.Warn("mcp: manager event dropped: subscriber too slow", "dropped_total", n)
			}
		default:
		}
	}
}

// close ends the delivery goroutine once the manager actor, the only
// pusher, has stopped; concurrent Closes may all call it.
func (q *eventQueue) close() {
	q.closeOnce.Do(func() {
		if q.ch != nil {
			close(q.ch)
		}
	})
}
