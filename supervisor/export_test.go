package supervisor

import (
	"context"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/supervisor/toolcache"
)

// The tests check that every change to a member reaches the snapshot
// (publish).
func init() { verifyViews = true }

// WithCacheStore returns opts with the manager's cache writes going to
// store instead of Cache.Store: a test's disk that is slow or fails.
func WithCacheStore(opts ManagerOptions, store func(toolcache.Key, *toolcache.Entry) error) ManagerOptions {
	opts.storeCache = store
	return opts
}

// WithListedHook returns opts with hook called off the actor after each
// list the manager fetches (kind "tools", "prompts" or "resources"), before
// the actor hears of it: a test holds a list in flight there.
func WithListedHook(opts ManagerOptions, hook func(server, kind string)) ManagerOptions {
	opts.listedHook = hook
	return opts
}

// TransportFailure is transportFailure, for its unit tests.
func TransportFailure(err error) bool { return transportFailure(err) }

// EventsDone is closed when the goroutine delivering OnEvent's events
// has ended.
func EventsDone(m *Manager) <-chan struct{} { return m.events.done }

// WithCatalogStall returns opts with the catalogs held during a bring-up
// released after d without progress instead of defaultCatalogStall.
func WithCatalogStall(opts ManagerOptions, d time.Duration) ManagerOptions {
	opts.catalogStall = d
	return opts
}

// Resolve is s.resolve, for its unit tests.
func Resolve(ctx context.Context, s *Server) (actors.Spec, error) { return s.resolve(ctx) }
