package actors

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/mcpactor/mcpactor/messages"
)

// A connection's cacheable results, kept while the server says they are
// fresh (ttlMs) and dropped at once when it says they changed: the lists
// by the list_changed notification of their kind, resources/read results
// (opt-in, Spec.CacheReads) by resources/updated of their URI and by
// resources/list_changed
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
//
// The cache belongs to one session: a new connection starts empty, and a
// client is one server reached as one identity, so a result of either
// scope ("public" or "private") is only ever served to the authorization
// context that fetched it. A result without ttlMs, or with 0, is not
// kept: servers before 2026-07-28 send none, and their lists are read
// every time, as before.
type resultCache struct {
	mu    sync.Mutex
	lists map[string]cachedResult // by list method
	reads map[string]cachedResult // by URI
	// changes counts the change notifications: a result fetched across
	// one is not kept, it may predate the change.
	changes uint64
}

type cachedResult struct {
	v       any
	expires time.Time // monotonic
}

// freshFor is how long hints let a result be kept; 0: not at all.
func freshFor(h CacheHints) time.Duration {
	if h.TTLMs == nil || *h.TTLMs <= 0 {
		return 0
	}
	return time.Duration(*h.TTLMs) * time.Millisecond
}

func (r *resultCache) get(m map[string]cachedResult, key string) (any, bool) {
	e, ok := m[key]
	if !ok || !time.Now().Before(e.expires) {
		return nil, false
	}
	return e.v, true
}

func (r *resultCache) list(method string) (any, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.get(r.lists, method)
}

func (r *resultCache) read(uri string) (any, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.get(r.reads, uri)
}

// epoch is the count of change notifications so far.
func (r *resultCache) epoch() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changes
}

func (r *resultCache) putList(method string, v any, d time.Duration, epoch uint64) {
	r.put(&r.lists, method, v, d, epoch)
}

// maxCachedReads bounds the resources/read results a connection keeps:
// past it the oldest to expire goes.
const maxCachedReads = 256

func (r *resultCache) putRead(uri string, v any, d time.Duration, epoch uint64) {
	r.put(&r.reads, uri, v, d, epoch)
}

// put keeps v under key in *m for d, unless a change notification came
// since epoch; a full map makes room by dropping its entry that expires
// first. (The lists are at most four: the bound is for the reads.)
func (r *resultCache) put(m *map[string]cachedResult, key string, v any, d time.Duration, epoch uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if epoch != r.changes {
		return
	}
	if *m == nil {
		*m = map[string]cachedResult{}
	}
	if _, ok := (*m)[key]; !ok && len(*m) >= maxCachedReads {
		oldest := ""
		for k, e := range *m {
			if oldest == "" || e.expires.Before((*m)[oldest].expires) {
				oldest = k
			}
		}
		delete(*m, oldest)
	}
	(*m)[key] = cachedResult{v: v, expires: time.Now().Add(d)}
}

// changed drops what a server's notification says is out of date.
func (r *resultCache) changed(method string, uri string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes++
	switch method {
	case messages.NotificationToolsListChanged:
		delete(r.lists, messages.MethodToolsList)
	case messages.NotificationPromptsListChanged:
		delete(r.lists, messages.MethodPromptsList)
	case messages.NotificationResourcesListChanged:
		delete(r.lists, messages.MethodResourcesList)
		delete(r.lists, messages.MethodResourcesTemplatesList)
		r.reads = nil
	case messages.NotificationResourcesUpdated:
		delete(r.reads, uri)
	}
}

// cachedList is a list of the client's current session while fresh, or
// read anew (all its pages, gathering their hints) and kept as long as
// the hints allow. The caller gets a copy: what it does with the slice
// does not reach the cache.
func cachedList[T any](ctx context.Context, c *Client, method string, fetch func(context.Context, *CacheHints) iter.Seq2[T, error]) ([]T, error) {
	s := c.gen.Load().established()
	if s != nil {
		if v, ok := s.cache.list(method); ok {
			return slices.Clone(v.([]T)), nil
		}
	}
	var hints CacheHints
	var epoch uint64
	if s != nil {
		epoch = s.cache.epoch()
	}
	items, err := collect(fetch(ctx, &hints))
	if d := freshFor(hints); err == nil && d > 0 && s != nil && s == c.gen.Load().established() {
		s.cache.putList(method, slices.Clone(items), d, epoch)
	}
	return items, err
}

// noteChange is how a server's change notification reaches the cache of
// the session it arrived on.
func (c *Client) noteChange(method string, params []byte) {
	s := c.gen.Load().established()
	if s == nil {
		return
	}
	uri := ""
	if method == messages.NotificationResourcesUpdated {
		uri = updatedURI(params)
	}
	s.cache.changed(method, uri)
}

// updatedURI is the uri of a notifications/resources/updated.
func updatedURI(params []byte) string {
	var p messages.ResourceUpdatedParams
	_ = json.Unmarshal(params, &p) // an unreadable one drops nothing
	return p.URI
}
