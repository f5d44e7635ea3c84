package supervisor_test

import (
	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
	"github.com/mcpactor/mcpactor/transport"
)

// entryServers are the servers of configuration file entries, for tests
// that read files: the fields those tests write, in the engine's shape.
// (Programs convert an entry through the root package's ServerConfig.)
func entryServers(entries ...*config.Entry) []*supervisor.Server {
	out := make([]*supervisor.Server, len(entries))
	for i, e := range entries {
		out[i] = &supervisor.Server{Name: e.Name,
			Spec: actors.Spec{Type: e.Type, Identity: e.Identity,
				Stdio: transport.StdioConfig{Command: e.Command, Args: e.Args, Env: e.Env, Dir: e.Cwd},
				HTTP:  transport.HTTPConfig{URL: e.URL, Headers: e.Headers}},
			Keepalive: e.Keepalive, Restart: e.Restart, EnabledTools: e.EnabledTools, DisabledTools: e.DisabledTools,
			Enabled: e.Enabled, NeedsApproval: e.NeedsApproval, Source: e.Source, Hash: e.Hash, Entry: e}
	}
	return out
}
