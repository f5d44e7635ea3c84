package supervisor

import (
	"context"
	"maps"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/supervisor/config"
)

// Server is one server as the manager runs it: how the client reaches it
// (Spec), how the manager supervises it, where its configuration came
// from, and the caller's own value of that configuration (Config), which
// the manager hands back (to Approve) without reading it.
type Server struct {
	// Name is the server's name: 1 to 100 letters, digits, '-', '_', '.'.
	Name string
	// Spec is how to reach the server. The values an Entry leaves to
	// connect time are still as written ("!..."): the manager resolves
	// them (Entry.Resolve) when it starts the server.
	Spec actors.Spec

	// Keepalive is the interval between pings of a ready server; 0 pings
	// never.
	Keepalive time.Duration
	// Restart is the restart policy; its zero fields take the defaults.
	Restart config.RestartPolicy
	// EnabledTools, if not empty, are the only tools of the server
	// offered; DisabledTools are never offered (raw tool names).
	EnabledTools, DisabledTools []string

	// Enabled is false for a server the manager keeps but never starts.
	Enabled bool
	// NeedsApproval makes the manager ask Approve before starting it.
	NeedsApproval bool
	// Source says where the configuration came from.
	Source config.Source
	// Hash identifies the configuration: a changed Hash is a changed
	// server, which Reload restarts; it keys the cached tool list.
	Hash string

	// Entry is the configuration file's entry the server was read from,
	// nil for a server given in code: its Commands and Auth are resolved
	// when the server starts.
	Entry *config.Entry
	// Config is the caller's own value of the configuration (the root
	// package's ServerConfig), carried for Approve and never read here:
	// the configuration is converted one way, down to Spec.
	Config any
}

// NewServer makes a Server of a configuration given in code: s with the
// configuration checked, Enabled set, its Source CodeSource and its Hash
// computed. The Hash covers the fields a file could have written,
// supervision included, so that Reload restarts a server whose keepalive
// changed; a Dial function is not hashed (two such servers of one name
// hash alike).
func NewServer(s Server) (*Server, error) {
	if err := s.Spec.Validate(s.Name); err != nil { // the name too
		return nil, err
	}
	hash, err := config.Hash(written(&s))
	if err != nil {
		return nil, err
	}
	s.Hash, s.Enabled, s.Source = hash, true, config.CodeSource()
	return &s, nil
}

// written is s as a file's entry would write it, for its hash: the
// fields a file can set, under the file's names, left out when zero.
func written(s *Server) map[string]any {
	doc := map[string]any{}
	put := func(k string, v any, zero bool) {
		if !zero {
			doc[k] = v
		}
	}
	p := &s.Spec
	std, web, lim := &p.Stdio, &p.HTTP, &p.Limits
	put("type", p.Type, p.Type == "")
	put("command", std.Command, std.Command == "")
	put("args", std.Args, len(std.Args) == 0)
	put("env", std.Env, len(std.Env) == 0)
	put("cwd", std.Dir, std.Dir == "")
	put("url", web.URL, web.URL == "")
	put("headers", web.Headers, len(web.Headers) == 0)
	put("connectTimeout", p.ConnectTimeout.Milliseconds(), p.ConnectTimeout == 0)
	put("requestTimeout", lim.RequestTimeout.Milliseconds(), lim.RequestTimeout == 0)
	put("maxInFlight", lim.MaxInFlight, lim.MaxInFlight == 0)
	put("queueTimeout", lim.QueueTimeout.Milliseconds(), lim.QueueTimeout == 0)
	put("protocolVersion", p.ProtocolVersion, p.ProtocolVersion == "")
	put("inheritEnv", string(std.InheritEnv), std.InheritEnv == "")
	put("keepalive", s.Keepalive.Milliseconds(), s.Keepalive == 0)
	put("restart", map[string]any{"maxRestarts": s.Restart.MaxRestarts, "window": s.Restart.Window.Milliseconds(),
		"backoffMin": s.Restart.BackoffMin.Milliseconds(), "backoffMax": s.Restart.BackoffMax.Milliseconds()},
		s.Restart == config.RestartPolicy{})
	put("enabledTools", s.EnabledTools, len(s.EnabledTools) == 0)
	put("disabledTools", s.DisabledTools, len(s.DisabledTools) == 0)
	// The identity is hashed with the rest (the hash is all that is
	// written anywhere), so that another identity is another server.
	put("auth", map[string]string{"credentialId": p.Identity}, p.Identity == "")
	return doc
}

// resolvesAtOnce reports whether resolve runs nothing and reads nothing,
// so that the manager calls it on its actor.
func (s *Server) resolvesAtOnce() bool { return s.Entry == nil || s.Entry.ResolvesAtOnce() }

// resolve returns the Spec to connect with: Spec with the values its
// Entry computes at connect time (Entry.Resolve) in place of the
// "!..." ones, and the Entry's authorizer unless Spec has one. Spec
// itself is not changed.
func (s *Server) resolve(ctx context.Context) (actors.Spec, error) {
	spec := s.Spec
	if s.Entry == nil {
		return spec, nil
	}
	r, err := s.Entry.Resolve(ctx)
	if err != nil {
		return actors.Spec{}, err
	}
	if len(r.Env) > 0 {
		spec.Stdio.Env = maps.Clone(spec.Stdio.Env)
		if spec.Stdio.Env == nil {
			spec.Stdio.Env = map[string]string{}
		}
		maps.Copy(spec.Stdio.Env, r.Env)
	}
	if len(r.Headers) > 0 {
		spec.HTTP.Headers = maps.Clone(spec.HTTP.Headers)
		if spec.HTTP.Headers == nil {
			spec.HTTP.Headers = map[string]string{}
		}
		maps.Copy(spec.HTTP.Headers, r.Headers)
	}
	if spec.HTTP.Auth == nil && r.Auth != nil {
		spec.HTTP.Auth = r.Auth
	}
	return spec, nil
}
