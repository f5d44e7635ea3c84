package supervisor

import (
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/messages"
)

// snapshot is what the manager actor publishes for callers: read-only once
// published, replaced whole at each change, so callers read it without
// locks and the actor is never on a call's path.
type snapshot struct {
	tools   []Tool
	byName  map[string]toolRef
	clients map[string]*actors.Client
	status  map[string]Status
	latency map[string]*latencyRing
	// replaced is closed when a newer snapshot is published, for calls
	// waiting for a server's client to exist.
	replaced chan struct{}
}

func newSnapshot() *snapshot {
	return &snapshot{byName: map[string]toolRef{}, clients: map[string]*actors.Client{},
		status: map[string]Status{}, latency: map[string]*latencyRing{}, replaced: make(chan struct{})}
}

// toolRef is where an exposed tool name leads.
type toolRef struct {
	server  string
	tool    string // the server's own name for it
	client  *actors.Client
	latency *latencyRing
	// connectTimeout bounds a call's wait for a client that does not
	// exist yet (a cached tool of a server waiting for a handshake slot).
	connectTimeout time.Duration
}

// Tool is a tool as the manager exposes it.
type Tool struct {
	// Name is the exposed name, mcp__<server>__<tool> (docs/configuration.md,
	// "Tool names").
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
	Source          Source
	ProtocolVersion string // of the current connection, "" before one
	Generation      uint64 // the current connection's number
	LastError       error  // the last failure (its exit status and stderr, for a process)
	Restarts        int
	InFlight        int
	Tools           int
	Cached          bool          // the tools are the cache's
	P50, P99        time.Duration // of calls through the manager
}

// publish rebuilds the snapshot from the members.
func (a *managerActor) publish() {
	s := newSnapshot()
	var pairs []ToolPair
	for name, mb := range a.members {
		s.status[name] = Status{Name: name, State: mb.state, Source: mb.srv.Source, LastError: mb.lastErr,
			Restarts: mb.restarts, Tools: len(mb.tools), Cached: mb.cached}
		s.latency[name] = mb.latency
		if mb.client != nil && !mb.removing {
			s.clients[name] = mb.client
		}
		for _, t := range mb.tools {
			pairs = append(pairs, ToolPair{Server: name, Tool: t.Name})
		}
	}
	index := NewToolIndex(pairs)
	for name, mb := range a.members {
		for _, t := range mb.tools {
			exposed, ok := index.Exposed(name, t.Name)
			if !ok {
				continue
			}
			s.tools = append(s.tools, Tool{Name: exposed, Server: name, Tool: t, Cached: mb.cached})
			s.byName[exposed] = toolRef{server: name, tool: t.Name, client: s.clients[name], latency: mb.latency,
				connectTimeout: mb.srv.Config.ConnectTimeout}
		}
	}
	slices.SortFunc(s.tools, func(x, y Tool) int { return compare(x.Name, y.Name) })
	close(a.h.snap.Swap(s).replaced)
}

// EventKind says what an Event reports.
type EventKind string

// The kinds of events.
const (
	EventToolsChanged EventKind = "tools changed" // a server's tools changed (listed, refreshed, gone)
	EventStateChanged EventKind = "state changed" // a server changed state
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
	log     *slog.Logger
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
			q.f(e)
		}
	}()
	return q
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
// the callers (atomics: no lock on the call path), read for Status.
type latencyRing struct {
	next atomic.Uint64
	d    [512]atomic.Int64
}

func (l *latencyRing) record(d time.Duration) {
	if l == nil {
		return
	}
	i := l.next.Add(1) - 1
	l.d[i%uint64(len(l.d))].Store(int64(d))
}

// percentiles returns the median and the 99th percentile of the kept
// durations (0, 0 with none).
func (l *latencyRing) percentiles() (p50, p99 time.Duration) {
	n := min(l.next.Load(), uint64(len(l.d)))
	if n == 0 {
		return 0, 0
	}
	v := make([]int64, n)
	for i := range v {
		v[i] = l.d[i].Load()
	}
	slices.Sort(v)
	return time.Duration(v[(len(v)-1)/2]), time.Duration(v[(len(v)-1)*99/100])
}
