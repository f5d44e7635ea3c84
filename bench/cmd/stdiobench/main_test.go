package main

import (
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// TestClientsEcho is the smoke test: every client, against every server,
// makes a few concurrent echo calls with unique messages and gets each one
// back, without errors. Against the go-sdk server, mcpactor and the wire
// client speak the 2026-07-28 revision (the go-sdk and mcp-go clients'
// versions are logged: they are the libraries' choice).
func TestClientsEcho(t *testing.T) {
	cfg := &config{CallFlags: measure.CallFlags{Duration: 100 * time.Millisecond}}
	for _, kind := range serverOrder {
		t.Run(kind, func(t *testing.T) {
			srv := stdioServer(kind, "")
			measure.CheckClients(t, func(t *testing.T, name string) measure.Sample {
				s := measureOne(cfg, srv, name, 4, false)
				t.Logf("protocol %s", s.Protocol)
				if kind == serverGoSDK && (name == measure.OursName || name == measure.ReferenceName) && s.Protocol != versionModern {
					t.Errorf("protocol %q against the go-sdk stdio server, want %s", s.Protocol, versionModern)
				}
				return s
			})
		})
	}
}
