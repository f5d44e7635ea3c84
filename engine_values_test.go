package mcpactor

import (
	"testing"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/transport"
)

// The root declares its constants with their values, for go doc; the
// engine uses its own.
func TestConstantsMatchTheEngine(t *testing.T) {
	if MaxPages != actors.MaxPages {
		t.Errorf("MaxPages is %d, %d in the engine", MaxPages, actors.MaxPages)
	}
	if DefaultCloseTimeout != actors.DefaultCloseTimeout {
		t.Errorf("DefaultCloseTimeout is %v, %v in the engine", DefaultCloseTimeout, actors.DefaultCloseTimeout)
	}
	if CallFailureThreshold != supervisor.CallFailureThreshold {
		t.Errorf("CallFailureThreshold is %d, %d in the engine", CallFailureThreshold, supervisor.CallFailureThreshold)
	}
}

// The root declares the environment policies with their values, for go
// doc; the engine has its own. A value that drifts would turn one into
// another silently at the conversion, so each pair is compared here.
func TestEnumerationsMatchTheEngine(t *testing.T) {
	envs := map[EnvInheritance]transport.EnvInheritance{
		EnvInheritAll: transport.EnvInheritAll, EnvInheritSafe: transport.EnvInheritSafe, EnvInheritNone: transport.EnvInheritNone,
	}
	for root, engine := range envs {
		if string(root) != string(engine) {
			t.Errorf("EnvInheritance %q is %q in the engine", root, engine)
		}
	}
}
