package supervisor_test

import (
	"path/filepath"
	"testing"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/toolcache"
	"github.com/mcpactor/mcpactor/transport"
)

// A server of the 2026-07-28 era (the go-sdk's conformance server, over
// stdio) is managed like any other; its cache entry records the stateless
// era and the list's caching hints, which that era's results carry
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
func TestManagerStatelessServerCacheEntry(t *testing.T) {
	s, err := supervisor.NewServer(supervisor.Server{Name: "modern", Spec: actors.Spec{Stdio: transport.StdioConfig{Command: peers.GoSDKServer(t)}}})
	if err != nil {
		t.Fatal(err)
	}
	cache := &toolcache.Cache{Dir: filepath.Join(t.TempDir(), "cache")}
	m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{s}, Cache: cache})
	if st := status(m, "modern"); st.State != supervisor.StateReady || st.ProtocolVersion != messages.Version20260728 {
		t.Fatalf("status %+v: want ready in 2026-07-28", st)
	}
	var entry *toolcache.Entry
	harness.WaitFor(t, "the tool list cached", func() bool {
		e, ok := cache.Load(toolcache.Key{Server: "modern", ConfigHash: s.Hash})
		entry = e
		return ok
	})
	if entry.Era != "stateless" || entry.ProtocolVersion != messages.Version20260728 {
		t.Errorf("entry era %q, version %q", entry.Era, entry.ProtocolVersion)
	}
	if entry.TTLMs == nil || (entry.CacheScope != "public" && entry.CacheScope != "private") {
		t.Errorf("entry hints: ttlMs %v, scope %q; the server sends both", entry.TTLMs, entry.CacheScope)
	}
	if len(entry.Tools) == 0 {
		t.Error("no tools cached")
	}
	res, err := m.CallTool(harness.Context(t), "mcp__modern__test_simple_text", nil)
	if err != nil || res.IsError {
		t.Errorf("call: %+v, %v", res, err)
	}
}
