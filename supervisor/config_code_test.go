package supervisor

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
)

// The supervision fields of a ServerConfig given in code are part of the
// server's hash, as a file's are: Reload restarts a server whose keepalive,
// restart policy, tool filters, environment policy or identity changed.
func TestNewServerHashesSupervision(t *testing.T) {
	base := actors.ServerConfig{Command: "srv"}
	h := func(cfg actors.ServerConfig) string {
		t.Helper()
		s, err := NewServer("s", cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s.Hash
	}
	seen := map[string]string{h(base): "base"}
	for what, change := range map[string]func(*actors.ServerConfig){
		"keepalive":     func(c *actors.ServerConfig) { c.Keepalive = time.Second },
		"restart":       func(c *actors.ServerConfig) { c.Restart.MaxRestarts = 2 },
		"enabledTools":  func(c *actors.ServerConfig) { c.EnabledTools = []string{"a"} },
		"disabledTools": func(c *actors.ServerConfig) { c.DisabledTools = []string{"a"} },
		"inheritEnv":    func(c *actors.ServerConfig) { c.InheritEnv = actors.EnvInheritNone },
		"identity":      func(c *actors.ServerConfig) { c.Identity = "alice" },
	} {
		cfg := base
		change(&cfg)
		got := h(cfg)
		if other, dup := seen[got]; dup {
			t.Errorf("changing %s leaves the hash of %s", what, other)
		}
		seen[got] = what
	}
}

// A zero field of a restart policy takes its default; a negative
// MaxRestarts allows none; a minimum above the default maximum raises it.
func TestEffectiveRestart(t *testing.T) {
	if got := effectiveRestart(RestartPolicy{}); got != DefaultRestartPolicy() {
		t.Errorf("zero policy = %+v, want the default", got)
	}
	got := effectiveRestart(RestartPolicy{MaxRestarts: -1, BackoffMin: time.Minute})
	want := RestartPolicy{MaxRestarts: 0, Window: DefaultRestartWindow, BackoffMin: time.Minute, BackoffMax: time.Minute}
	if got != want {
		t.Errorf("policy = %+v, want %+v", got, want)
	}
}

// The private-scope cache key carries the identity's hash, never the
// identity itself; no identity, no identity hash.
func TestCacheKeyIdentity(t *testing.T) {
	a := &managerActor{}
	s, err := NewServer("s", actors.ServerConfig{Command: "srv", Identity: "alice@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	k := a.cacheKey(s)
	if k.Identity != cacheDigest([]byte("alice@example.com")) || strings.Contains(k.Identity, "alice") {
		t.Errorf("identity in the key = %q", k.Identity)
	}
	if err := k.check(); err != nil {
		t.Error(err)
	}
	s.Config.Identity = ""
	if k := a.cacheKey(s); k.Identity != "" {
		t.Errorf("no identity, key identity %q", k.Identity)
	}
}
