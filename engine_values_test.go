package mcpactor

import (
	"testing"

	"github.com/mcpactor/mcpactor/supervisor"
)

// The root declares the manager's enumerations with their values, for
// go doc; the engine has its own. A value that drifts would turn one into
// another silently at the conversion, so each pair is compared here.
func TestEnumerationsMatchTheEngine(t *testing.T) {
	kinds := map[EventKind]supervisor.EventKind{
		EventToolsChanged:   supervisor.EventToolsChanged,
		EventStateChanged:   supervisor.EventStateChanged,
		EventCatalogChanged: supervisor.EventCatalogChanged,
	}
	for root, engine := range kinds {
		if string(root) != string(engine) {
			t.Errorf("EventKind %q is %q in the engine", root, engine)
		}
	}
	policies := map[StartupPolicy]supervisor.StartupPolicy{
		StartupWaitUncached: supervisor.StartupWaitUncached,
		StartupGate:         supervisor.StartupGate,
		StartupImmediate:    supervisor.StartupImmediate,
	}
	for root, engine := range policies {
		if int(root) != int(engine) {
			t.Errorf("StartupPolicy %d is %d in the engine", root, engine)
		}
	}
}
