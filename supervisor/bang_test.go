package supervisor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
)

func writeTestFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// In another tool's file a value starting with '!' is a plain string: a
// Cursor password "!s3cr3t-pass" reaches the server as written, and a
// planted "!touch <file>" runs nothing, even for servers a user approves
// and that start.
func TestThirdPartyBangIsPlain(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	path, args, env := testserver.Command(testserver.Options{})
	vars := map[string]string{"PASSWORD": "!s3cr3t-pass", "PLANTED": "!touch " + marker}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	entry := map[string]any{"command": path, "args": args, "env": vars,
		"headers": map[string]string{"Authorization": "!touch " + marker}}
	writeTestFile(t, filepath.Join(home, ".cursor", "mcp.json"), map[string]any{"mcpServers": map[string]any{"cursor-user": entry}})
	writeTestFile(t, filepath.Join(project, ".cursor", "mcp.json"), map[string]any{"mcpServers": map[string]any{"cursor-project": entry}})
	d, err := config.Discover(config.DiscoverOptions{Home: home, ProjectDir: project, Lookup: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cursor-user", "cursor-project"} {
		s := discovered(d, name)
		if s == nil {
			t.Fatalf("no %s among %d servers", name, len(d.Servers))
		}
		if len(s.Commands) != 0 {
			t.Errorf("%s: commands %v from a Cursor file", name, s.Commands)
		}
		r, err := s.Resolve(context.Background())
		if err != nil || r.Env != nil || r.Headers != nil || s.Env["PASSWORD"] != "!s3cr3t-pass" {
			t.Errorf("%s: PASSWORD %q, resolved %+v, %v", name, s.Env["PASSWORD"], r, err)
		}
	}
	m := manage(t, supervisor.ManagerOptions{Servers: entryServers(d.Servers...), Approve: func(*supervisor.Server) bool { return true }})
	for _, name := range []string{"cursor-user", "cursor-project"} {
		if st := status(m, name); st.State != supervisor.StateReady {
			t.Errorf("%s: %+v", name, st)
		}
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("a '!' value of a Cursor file ran (%v)", err)
	}
}

// A '!' value of our own project file is a command, and it runs only once
// Approve says yes: without it the server is refused and nothing runs.
func TestNativeProjectCommandNeedsApproval(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	path, args, _ := testserver.Command(testserver.Options{})
	writeTestFile(t, filepath.Join(project, ".mcpactor", "mcp.json"), map[string]any{"mcpServers": map[string]any{
		"proj": map[string]any{"command": path, "args": args, "env": map[string]string{"TOKEN": "!touch " + marker}}}})
	d, err := config.Discover(config.DiscoverOptions{Home: home, ProjectDir: project})
	if err != nil {
		t.Fatal(err)
	}
	s := discovered(d, "proj")
	if s == nil || len(s.Commands) != 1 || !s.NeedsApproval {
		t.Fatalf("proj = %+v", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	sys := harness.ActorSystem(t)
	m, _ := supervisor.Manage(ctx, sys.Root, supervisor.ManagerOptions{Servers: entryServers(d.Servers...)})
	t.Cleanup(func() { closeManager(t, m) })
	harness.WaitFor(t, "proj refused", func() bool { return status(m, "proj").State == supervisor.StateRefused })
	time.Sleep(200 * time.Millisecond)
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the command of a server not approved ran (%v)", err)
	}
}

// discovered is the server of that name Discover found, or nil.
func discovered(d *config.Discovery, name string) *config.Entry {
	for _, s := range d.Servers {
		if s.Name == name {
			return s
		}
	}
	return nil
}
