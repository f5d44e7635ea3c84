package supervisor

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/config"
	"github.com/mcpactor/mcpactor/supervisor/naming"
)

// snapshot is what the manager actor publishes for callers: read-only once
// published, replaced whole at each change, so callers read it without
// locks and the actor is never on a call's path.
type snapshot struct {
	// exposed is the tools under their exposed names, built from members
	// the first time a caller asks: a bring-up publishes a snapshot per
	// server listed, and naming every tool of every server for each would
	// cost N² (docs/benchmarks.md, "8. Bring-up of 100 stdio servers").
	exposed *exposedTools
	// catalog is the prompts and resources, built as exposed is.
	catalog *exposedCatalog
	clients map[string]*actors.Client
	health  map[string]*callHealth
	status  map[string]Status
	latency map[string]*latencyRing
	// replaced is closed when a newer snapshot is published, for calls
	// waiting for a server's client to exist.
	replaced chan struct{}
}

func newSnapshot() *snapshot {
	return &snapshot{exposed: &exposedTools{}, catalog: &exposedCatalog{}, clients: map[string]*actors.Client{}, health: map[string]*callHealth{},
		status: map[string]Status{}, latency: map[string]*latencyRing{}, replaced: make(chan struct{})}
}

// exposedTools names the tools of a snapshot's members once, when first
// read; what it is built from never changes after publishing.
type exposedTools struct {
	members []memberTools
	once    sync.Once
	tools   []Tool
	byName  map[string]toolRef
}

// memberTools is what naming needs of one member.
type memberTools struct {
	server         string
	tools          []messages.Tool
	cached         bool
	client         *actors.Client
	latency        *latencyRing
	health         *callHealth
	connectTimeout time.Duration
}

// get returns the tools, sorted by exposed name, and the index by name.
func (e *exposedTools) get() ([]Tool, map[string]toolRef) {
	e.once.Do(e.build)
	return e.tools, e.byName
}

func (e *exposedTools) build() {
	var pairs []naming.ToolPair
	for _, m := range e.members {
		for _, t := range m.tools {
			pairs = append(pairs, naming.ToolPair{Server: m.server, Tool: t.Name})
		}
	}
	index := naming.NewToolIndex(pairs)
	e.tools, e.byName = make([]Tool, 0, len(pairs)), make(map[string]toolRef, len(pairs))
	for _, m := range e.members {
		for _, t := range m.tools {
			exposed, ok := index.Exposed(m.server, t.Name)
			if !ok {
				continue
			}
			e.tools = append(e.tools, Tool{Name: exposed, Server: m.server, Tool: t, Cached: m.cached})
			e.byName[exposed] = toolRef{server: m.server, tool: t.Name, client: m.client, latency: m.latency,
				health: m.health, connectTimeout: m.connectTimeout}
		}
	}
	slices.SortFunc(e.tools, func(x, y Tool) int { return compare(x.Name, y.Name) })
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

// Status is the state of one managed server.
type Status struct {
	Name            string
	State           State
	Source          config.Source
	ProtocolVersion string // of the current connection, "" before one
	Generation      uint64 // the current connection's number
	LastError       error  // the last failure (its exit status and stderr, for a process)
	Restarts        int
	InFlight        int
	// Tools is how many tools the server offers. A server still
	// starting without a cached list offers none yet (ToolsPending): its
	// tools arrive with an EventToolsChanged.
	Tools        int
	ToolsPending bool
	Cached       bool          // the tools are the cache's
	P50, P99     time.Duration // of calls through the manager
}

// publish replaces the snapshot with one made from the members. The
// exposed tools are made anew only when they may have changed
// (toolsStale); otherwise the previous snapshot's, read-only, are shared.
func (a *managerActor) publish() {
	s := newSnapshot()
	for name, mb := range a.members {
		s.status[name] = Status{Name: name, State: mb.state, Source: mb.srv.Source, LastError: mb.lastErr,
			Restarts: mb.restarts, Tools: len(mb.tools), Cached: mb.cached,
			ToolsPending: !mb.listed && !mb.cached && (mb.state == StateConnecting || mb.state == StateReady)}
		s.latency[name] = mb.latency
		s.health[name] = mb.health
		if mb.client != nil && !mb.removing {
			s.clients[name] = mb.client
		}
	}
	if prev := a.h.snap.Load(); prev != nil && !a.toolsStale {
		s.exposed = prev.exposed
	} else {
		for name, mb := range a.members {
			if len(mb.tools) > 0 {
				s.exposed.members = append(s.exposed.members, memberTools{server: name, tools: mb.tools, cached: mb.cached,
					client: s.clients[name], latency: mb.latency, health: mb.health, connectTimeout: mb.srv.Spec.ConnectTimeout})
			}
		}
		a.toolsStale = false
	}
	if prev := a.h.snap.Load(); prev != nil && !a.catalogStale {
		s.catalog = prev.catalog
	} else {
		for name, mb := range a.members {
			if len(mb.prompts) > 0 || len(mb.resources) > 0 {
				s.catalog.members = append(s.catalog.members, memberCatalog{server: name, prompts: mb.prompts, resources: mb.resources})
			}
		}
		a.catalogStale = false
	}
	close(a.h.snap.Swap(s).replaced)
}

// EventKind says what an Event reports.
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

// latencyRing keeps the durations of a server's last calls, written by
// the callers (atomics: no lock on the call path), read for Status. Its
// slots are made at the first call: a server nobody calls costs nothing.
type latencyRing struct {
	next  atomic.Uint64
	slots atomic.Pointer[[latencySlots]atomic.Int64]
}

const latencySlots = 512

func (l *latencyRing) record(d time.Duration) {
	if l == nil {
		return
	}
	slots := l.slots.Load()
	if slots == nil {
		l.slots.CompareAndSwap(nil, new([latencySlots]atomic.Int64))
		slots = l.slots.Load()
	}
	i := l.next.Add(1) - 1
	slots[i%latencySlots].Store(int64(d))
}

// percentiles returns the median and the 99th percentile of the kept
// durations (0, 0 with none).
func (l *latencyRing) percentiles() (p50, p99 time.Duration) {
	slots := l.slots.Load()
	n := min(l.next.Load(), latencySlots)
	if n == 0 || slots == nil {
		return 0, 0
	}
	v := make([]int64, n)
	for i := range v {
		v[i] = slots[i].Load()
	}
	slices.Sort(v)
	return time.Duration(v[(len(v)-1)/2]), time.Duration(v[(len(v)-1)*99/100])
}
