package config

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoEngine keeps this package a file format: it returns plain
// entries, and the root package makes a connection's configuration of
// them. It links neither the client engine (actors) nor the transports,
// nor the manager that runs what it reads; transport/oauth, the OAuth
// client an "auth" object configures, stands apart from the transports.
func TestImportsNoEngine(t *testing.T) {
	const module = "github.com/mcpactor/mcpactor/"
	// go test puts its own GOROOT/bin first in PATH.
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", module+"supervisor/config").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		rel, ours := strings.CutPrefix(p, module)
		if !ours {
			continue
		}
		if rel == "actors" || strings.HasPrefix(rel, "actors/") || rel == "transport" || rel == "supervisor" {
			t.Errorf("supervisor/config links %s", p)
		}
	}
}
