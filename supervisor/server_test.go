package supervisor_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
	"github.com/mcpactor/mcpactor/transport"
)

// A server given in code is taken literally (no ${VAR}, no !command),
// checked, and hashed as the entry a file would write for it.
func TestNewServer(t *testing.T) {
	in := supervisor.Server{Name: "api-1", Config: "the caller's", Spec: actors.Spec{
		Stdio:  transport.StdioConfig{Command: "srv", Env: map[string]string{"K": "!literal ${X}"}},
		Limits: transport.Limits{RequestTimeout: time.Second}}}
	s, err := supervisor.NewServer(in)
	if err != nil {
		t.Fatal(err)
	}
	if s.Source != config.CodeSource() || !s.Enabled || s.Entry != nil || s.Config != "the caller's" || s.Spec.Stdio.Env["K"] != "!literal ${X}" {
		t.Errorf("server = %+v", s)
	}
	sum := sha256.Sum256([]byte(`{"command":"srv","env":{"K":"!literal ${X}"},"requestTimeout":1000}`))
	if want := hex.EncodeToString(sum[:]); s.Hash != want {
		t.Errorf("hash = %s, want %s", s.Hash, want)
	}
	in.Name = "bad name"
	if _, err := supervisor.NewServer(in); err == nil {
		t.Error("bad name accepted")
	}
	var ce *messages.ConfigError
	if _, err := supervisor.NewServer(supervisor.Server{Name: "x", Spec: actors.Spec{Type: "sse"}}); !errors.As(err, &ce) || err.Error() != `Server "x": sse server requires "url" field` {
		t.Errorf("err = %v", err)
	}
}

// The supervision fields of a server given in code are part of its hash,
// as a file's are: Reload restarts a server whose keepalive, restart
// policy, tool filters, environment policy or identity changed.
func TestNewServerHashesSupervision(t *testing.T) {
	base := supervisor.Server{Name: "s", Spec: actors.Spec{Stdio: transport.StdioConfig{Command: "srv"}}}
	h := func(in supervisor.Server) string {
		t.Helper()
		s, err := supervisor.NewServer(in)
		if err != nil {
			t.Fatal(err)
		}
		return s.Hash
	}
	seen := map[string]string{h(base): "base"}
	for what, change := range map[string]func(*supervisor.Server){
		"keepalive":     func(c *supervisor.Server) { c.Keepalive = time.Second },
		"restart":       func(c *supervisor.Server) { c.Restart.MaxRestarts = 2 },
		"enabledTools":  func(c *supervisor.Server) { c.EnabledTools = []string{"a"} },
		"disabledTools": func(c *supervisor.Server) { c.DisabledTools = []string{"a"} },
		"inheritEnv":    func(c *supervisor.Server) { c.Spec.Stdio.InheritEnv = transport.EnvInheritNone },
		"identity":      func(c *supervisor.Server) { c.Spec.Identity = "alice" },
	} {
		in := base
		change(&in)
		got := h(in)
		if other, dup := seen[got]; dup {
			t.Errorf("changing %s leaves the hash of %s", what, other)
		}
		seen[got] = what
	}
}

type keptAuthorizer struct{}

func (keptAuthorizer) RoundTripper(_ string, base http.RoundTripper) http.RoundTripper { return base }

// The values an entry computes at connect time take the place of its
// "!..." values in the Spec the server connects with; the rest of the
// Spec, and an authorizer it has, stay; the server's own Spec is not
// changed.
func TestResolveFillsTheSpec(t *testing.T) {
	e := &config.Entry{Name: "s", Command: "srv", Env: map[string]string{"A": "a", "T": "!printf tok"},
		Headers:  map[string]string{"X-Key": "!printf key"},
		Commands: []config.Command{{Field: "env", Key: "T", Line: "printf tok"}, {Field: "headers", Key: "X-Key", Line: "printf key"}}}
	s := entryServers(e)[0]
	s.Spec.HTTP.Auth = keptAuthorizer{}
	spec, err := supervisor.Resolve(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Stdio.Env["A"] != "a" || spec.Stdio.Env["T"] != "tok" || spec.HTTP.Headers["X-Key"] != "key" || spec.Stdio.Command != "srv" {
		t.Errorf("resolved env %q, headers %q", spec.Stdio.Env, spec.HTTP.Headers)
	}
	if _, kept := spec.HTTP.Auth.(keptAuthorizer); !kept {
		t.Errorf("the Spec's authorizer was replaced by %T", spec.HTTP.Auth)
	}
	if s.Spec.Stdio.Env["T"] != "!printf tok" || s.Spec.HTTP.Headers["X-Key"] != "!printf key" {
		t.Errorf("resolve changed the server's Spec: %q %q", s.Spec.Stdio.Env, s.Spec.HTTP.Headers)
	}

	// A server given in code resolves to its Spec as is.
	code, err := supervisor.NewServer(supervisor.Server{Name: "c", Spec: actors.Spec{Stdio: transport.StdioConfig{Command: "srv", Env: map[string]string{"A": "!not a command"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if spec, err := supervisor.Resolve(context.Background(), code); err != nil || spec.Stdio.Env["A"] != "!not a command" || spec.HTTP.Auth != nil {
		t.Errorf("spec = %+v, err = %v", spec, err)
	}
}
