package supervisor

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/toolcache"
)

// The manager's tool-list cache I/O, kept off its actor: the actor only
// changes state, and a file read, or a write with its fsync and rename,
// in its mailbox would make every other server wait for the disk (100
// servers coming up were 100 fsyncs in a row there).
//
// A server's cached list is read by the cache-read worker
// (manager_worker.go), which reports back by message (cacheLoaded); the
// server is queued for a handshake slot only then, in the order the
// servers were added, and the gate waits for the read (checkGate), so a
// cached list is offered at the gate as it was when the read ran on the
// actor. The lists the servers send are written by one writer goroutine
// of the Manager (cacheWriter), flushed by Close.

// cacheLoaded is a server's cache entry, read off the actor.
type cacheLoaded struct {
	name string
	// member is the member the read was for, compared with the current
	// one (a server removed and added again meanwhile is another member)
	// and never read off the actor.
	member *member
	entry  *toolcache.Entry // nil: no entry
}

// loadCached reads mb's cached tool list off the actor; cacheLoaded goes
// on with its start.
func (a *managerActor) loadCached(mb *member) {
	mb.loading = true
	cache, key := a.opts.Cache, a.cacheKey(mb.srv)
	a.cacheReads.do(func() any {
		e, _ := cache.Load(key)
		return cacheLoaded{name: key.Server, member: mb, entry: e}
	})
}

// cacheLoaded offers the cached tools of a member, if it had some, until
// its server lists its own, and queues it for a handshake slot.
func (a *managerActor) cacheLoaded(m cacheLoaded) {
	mb := a.members[m.name]
	if mb != m.member || mb.removing {
		return
	}
	mb.loading = false
	if e := m.entry; e != nil {
		mb.tools, mb.cached, mb.era = e.Tools, true, e.Era
		a.changed(mb)
	}
	a.enqueue(mb)
	a.publish()
	a.checkGate()
}

// storeListed hands a member's live tool list to the cache writer.
func (a *managerActor) storeListed(mb *member, hints actors.CacheHints) {
	if a.opts.Cache == nil {
		return
	}
	c := mb.client
	e := &toolcache.Entry{Tools: mb.tools, FetchedAt: time.Now(), ProtocolVersion: c.ProtocolVersion(), Transport: mb.srv.Spec.TransportType(),
		TTLMs: hints.TTLMs, CacheScope: hints.Scope}
	if c.ProtocolVersion() == messages.Version20260728 {
		e.Era = toolcache.EraStateless
	} else {
		e.Era = toolcache.EraSession
	}
	a.h.cacheWrites.push(a.cacheKey(mb.srv), e)
}

// maxPendingWrites bounds the lists waiting for the disk: one per server
// (a newer list of a server replaces its older one), so only a manager of
// more servers than this, on a disk that does not keep up, drops any.
const maxPendingWrites = 1024

// cacheWriter writes the tool lists the manager fetched, in order, on a
// goroutine that runs while there is something to write (none when idle,
// so nothing outlives a manager that stopped without Close). A write's
// failure is logged and costs nothing else: the cache is an optimisation.
type cacheWriter struct {
	store func(toolcache.Key, *toolcache.Entry) error
	log   *slog.Logger

	mu      sync.Mutex
	pending map[string]cacheWrite // the newest list of each server
	order   []string              // the servers of pending, oldest first
	// idle is closed when the writing goroutine has nothing left and
	// ends; nil when none runs.
	idle    chan struct{}
	dropped atomic.Int64
}

type cacheWrite struct {
	key   toolcache.Key
	entry *toolcache.Entry
}

// newCacheWriter writes to c; nil when there is no cache.
func newCacheWriter(c *toolcache.Cache, store func(toolcache.Key, *toolcache.Entry) error, log *slog.Logger) *cacheWriter {
	if c == nil {
		return nil
	}
	if store == nil {
		store = c.Store
	}
	return &cacheWriter{store: store, log: log, pending: map[string]cacheWrite{}}
}

// push queues a list; it never waits for the disk.
func (w *cacheWriter) push(key toolcache.Key, e *toolcache.Entry) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, queued := w.pending[key.Server]; !queued {
		if len(w.order) >= maxPendingWrites {
			if n := w.dropped.Add(1); n <= 10 || n%1000 == 0 {
				w.log.Warn("mcp: tool cache write dropped: the disk is not keeping up", "server", key.Server, "dropped_total", n)
			}
			return
		}
		w.order = append(w.order, key.Server)
	}
	w.pending[key.Server] = cacheWrite{key: key, entry: e}
	if w.idle == nil {
		w.idle = make(chan struct{})
		go w.run(w.idle)
	}
}

func (w *cacheWriter) run(idle chan struct{}) {
	defer close(idle)
	for {
		w.mu.Lock()
		if len(w.order) == 0 {
			w.idle = nil
			w.mu.Unlock()
			return
		}
		server := w.order[0]
		w.order = w.order[1:]
		job := w.pending[server]
		delete(w.pending, server)
		w.mu.Unlock()
		if err := w.store(job.key, job.entry); err != nil {
			w.log.Warn("mcp: could not write the tool cache", "server", server, "err", err)
		}
	}
}

// flush waits until what was pushed is written (or has failed), bounded
// by ctx. Close calls it once the actor, the only pusher, has stopped.
func (w *cacheWriter) flush(ctx context.Context) error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	idle := w.idle
	w.mu.Unlock()
	if idle == nil {
		return nil
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
