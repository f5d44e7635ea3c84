//go:build unix

package mcpactor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
)

// A cloned project whose .mcp.json is a symbolic link to /dev/zero, and
// whose .cursor/mcp.json is a FIFO, is discovered at once: each file is a
// warning on the manager, and the project's other file still loads (its
// server, a project's, waits for approval, which nobody gives here).
func TestManageWarnsOfConfigFilesThatAreNotRegular(t *testing.T) {
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, dir := range []string{home, filepath.Join(project, ".cursor"), filepath.Join(project, ".vscode")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	zero, fifo := filepath.Join(project, ".mcp.json"), filepath.Join(project, ".cursor", "mcp.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ok := `{"servers": {"fine": {"command": "fine-server"}}}`
	if err := os.WriteFile(filepath.Join(project, ".vscode", "mcp.json"), []byte(ok), 0o600); err != nil {
		t.Fatal(err)
	}
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	defer rt.Stop(ctx)
	start := time.Now()
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true,
		Discover: &mcpactor.DiscoverOptions{Home: home, ProjectDir: project, Lookup: func(string) (string, bool) { return "", false }}})
	if err != nil {
		t.Fatalf("Manage: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Manage took %v", d)
	}
	warnings := strings.Join(m.Warnings(), "\n")
	for _, want := range []string{zero + ": cannot read: a symbolic link to a file outside the project directory", fifo + ": cannot read: not a regular file (a named pipe)"} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings %q lack %q", warnings, want)
		}
	}
	if st := m.Status(); len(st) != 1 || st[0].Name != "fine" || st[0].State != mcpactor.StateRefused {
		t.Errorf("status %+v, want only fine, not approved", st)
	}
}
