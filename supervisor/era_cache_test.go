package supervisor_test

import (
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/toolcache"
)

// A session-era server that never answers server/discover costs a probe
// timeout on its first start; the era lands in the tool cache, so that its
// next start, in a new runtime, skips the probe. Counted on the server's
// side (it reports each request it ignores), not by time.
func TestManagerCachedEraSkipsTheProbe(t *testing.T) {
	cache := &toolcache.Cache{Dir: filepath.Join(t.TempDir(), "cache")}
	run := func() (probes int64, entry *toolcache.Entry) {
		var seen atomic.Int64
		env := actors.Env{Options: actors.Options{StderrLine: func(_, line string) {
			if strings.Contains(line, "ignored server/discover") {
				seen.Add(1)
			}
		}}}
		srv := testServer(t, "silent", testserver.Options{SilentOnUnknown: true}, "silent")
		srv.Spec.ProbeTimeout = 300 * time.Millisecond
		m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{srv}, Cache: cache, Env: env})
		key := toolcache.Key{Server: "silent", ConfigHash: srv.Hash}
		harness.WaitFor(t, "the tool list cached", func() bool {
			e, ok := cache.Load(key)
			entry = e
			return ok && !e.FetchedAt.IsZero() && status(m, "silent").State == supervisor.StateReady
		})
		echo(t, m, "mcp__silent__echo", "spoken in the session era")
		closeManager(t, m)
		return seen.Load(), entry
	}

	probes, entry := run()
	if probes != 1 {
		t.Errorf("first start: %d probes reached the server, want 1", probes)
	}
	if entry.Era != "session" || entry.ProtocolVersion == "" {
		t.Errorf("the cache entry records era %q, version %q", entry.Era, entry.ProtocolVersion)
	}
	if probes, _ := run(); probes != 0 {
		t.Errorf("second start: %d probes reached the server; the cached era should skip it", probes)
	}
}
