package supervisor

import "github.com/mcpactor/mcpactor/supervisor/toolcache"

// WithCacheStore returns opts with the manager's cache writes going to
// store instead of Cache.Store: a test's disk that is slow or fails.
func WithCacheStore(opts ManagerOptions, store func(toolcache.Key, *toolcache.Entry) error) ManagerOptions {
	opts.storeCache = store
	return opts
}
