package config

import (
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/transport"
)

// The supervision fields of a ServerConfig given in code are part of the
// server's hash, as a file's are: Reload restarts a server whose keepalive,
// restart policy, tool filters, environment policy or identity changed.
func TestNewServerHashesSupervision(t *testing.T) {
	base := Server{Name: "s", Spec: actors.Spec{Stdio: transport.StdioConfig{Command: "srv"}}}
	h := func(cfg Server) string {
		t.Helper()
		s, err := NewServer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s.Hash
	}
	seen := map[string]string{h(base): "base"}
	for what, change := range map[string]func(*Server){
		"keepalive":     func(c *Server) { c.Keepalive = time.Second },
		"restart":       func(c *Server) { c.Restart.MaxRestarts = 2 },
		"enabledTools":  func(c *Server) { c.EnabledTools = []string{"a"} },
		"disabledTools": func(c *Server) { c.DisabledTools = []string{"a"} },
		"inheritEnv":    func(c *Server) { c.Spec.Stdio.InheritEnv = transport.EnvInheritNone },
		"identity":      func(c *Server) { c.Spec.Identity = "alice" },
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
