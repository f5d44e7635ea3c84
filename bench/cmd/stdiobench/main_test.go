package main

import (
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// TestClientsEcho is the smoke test: every client, against every server
// and with every load, makes a few concurrent calls and gets each answer
// it expects, without errors. Against the go-sdk server, mcpactor speaks
// the 2026-07-28 revision (the other clients' versions are logged: they
// are the libraries' choice, and the references speak the session era).
func TestClientsEcho(t *testing.T) {
	cfg := &config{CallFlags: measure.CallFlags{Duration: 100 * time.Millisecond}}
	for _, kind := range measure.StdioServers {
		for _, load := range []measure.Load{measure.EchoUnique, measure.EchoFixed, measure.Big(64 << 10)} {
			t.Run(kind+"/"+load.Name, func(t *testing.T) {
				srv := measure.StdioServerOf(kind, "")
				measure.CheckClients(t, measure.StdioClients, func(t *testing.T, name string) measure.Sample {
					s := measureOne(cfg, srv, load, name, 4, false)
					t.Logf("protocol %s", s.Protocol)
					if kind == measure.ServerGoSDK && name == measure.OursName && s.Protocol != "2026-07-28" {
						t.Errorf("protocol %q against the go-sdk stdio server, want 2026-07-28", s.Protocol)
					}
					return s
				})
			})
		}
	}
}
