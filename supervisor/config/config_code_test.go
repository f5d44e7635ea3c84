package config

import (
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
