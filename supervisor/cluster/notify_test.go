package cluster

import (
	"testing"

	"github.com/mcpactor/mcpactor"
)

// TestNotifiedServerOfADroppedActivation: a notification that arrives
// after its activation was dropped still names the configured server
// (the longest configured name the manager's name begins with), never
// the manager's name; a live activation's names its identity.
func TestNotifiedServerOfADroppedActivation(t *testing.T) {
	m := &Member{cfg: Config{Servers: map[string]mcpactor.ServerConfig{"alpha": {}, "a.b": {}}}, names: map[string]*activation{}}
	m.names["alpha.2bd806c9.6"] = &activation{id: Identity{Server: "alpha", Tenant: "alice"}}
	for client, want := range map[string]string{
		"alpha.2bd806c9.6":        "alpha@alice",
		"alpha.2bd806c9.6.probed": "alpha@alice",
		"alpha.3":                 "alpha",
		"alpha.2bd806c9.9.probed": "alpha",
		"a.b.12":                  "a.b",
	} {
		if got := m.notifiedServer(client); got != want {
			t.Errorf("notifiedServer(%q) = %q, want %q", client, got, want)
		}
	}
}
