//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// discoverWithin runs Discover, failing the test if it does not return
// within a generous bound: a file that is read forever is the bug.
func discoverWithin(t *testing.T, opts DiscoverOptions) *Discovery {
	t.Helper()
	done := make(chan *Discovery, 1)
	go func() {
		d, err := Discover(opts)
		if err != nil {
			t.Error(err)
		}
		done <- d
	}()
	select {
	case d := <-done:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("Discover did not return in 10 s: a configuration file is read without bound")
		return nil
	}
}

// warningFor returns the warning about file, or "".
func warningFor(d *Discovery, file string) string {
	for _, w := range d.Warnings {
		if strings.HasPrefix(w, file+": ") {
			return w
		}
	}
	return ""
}

// clonedProject is a project directory with a valid .cursor/mcp.json
// beside whatever .mcp.json the test makes, and an empty home.
func clonedProject(t *testing.T) (home, project string) {
	t.Helper()
	root := t.TempDir()
	home, project = filepath.Join(root, "home"), filepath.Join(root, "project")
	if err := os.MkdirAll(filepath.Join(project, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	ok := `{"mcpServers": {"fine": {"command": "fine-server"}}}`
	if err := os.WriteFile(filepath.Join(project, ".cursor", "mcp.json"), []byte(ok), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, project
}

// TestDiscoveryRefusesFilesThatAreNotRegular: a cloned repository whose
// .mcp.json is a symbolic link to /dev/zero, or a FIFO, or a file over
// MaxFileSize, is a warning naming the file and why, at once, and the
// rest of discovery still loads. Before, /dev/zero was read forever with
// memory growing without bound, and a FIFO blocked Discover until a
// writer came.
func TestDiscoveryRefusesFilesThatAreNotRegular(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, path string)
		want string
	}{
		{"symlink to /dev/zero", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}, "outside the project directory"},
		{"fifo", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("no FIFO here: %v", err)
			}
		}, "not a regular file (a named pipe)"},
		{"huge file", func(t *testing.T, path string) {
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			// Sparse: MaxFileSize+1 bytes that take no disk.
			if err := f.Truncate(MaxFileSize + 1); err != nil {
				t.Fatal(err)
			}
		}, "larger than the 4 MiB limit"},
		{"symlink to a directory in the project", func(t *testing.T, path string) {
			if err := os.Symlink(".cursor", path); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file (a directory)"},
		{"symlink out of the project", func(t *testing.T, path string) {
			outside := filepath.Join(t.TempDir(), "secret.json")
			if err := os.WriteFile(outside, []byte(`{"mcpServers": {"x": {"command": "x"}}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, path); err != nil {
				t.Fatal(err)
			}
		}, "outside the project directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, project := clonedProject(t)
			path := filepath.Join(project, ".mcp.json")
			c.make(t, path)
			d := discoverWithin(t, DiscoverOptions{Home: home, ProjectDir: project, Lookup: lookupFrom(nil)})
			w := warningFor(d, path)
			if !strings.Contains(w, c.want) {
				t.Errorf("warning for %s = %q, want it to say %q (all: %q)", path, w, c.want, d.Warnings)
			}
			if d.server("fine") == nil {
				t.Errorf("the other file's server is missing: %v", d.Servers)
			}
			if d.server("x") != nil {
				t.Error("a server was read through a refused file")
			}
		})
	}
}

// TestDiscoveryRefusesAUserFileLinkedToADevice: a user file may link
// anywhere, but what it links to must still be a regular file.
func TestDiscoveryRefusesAUserFileLinkedToADevice(t *testing.T) {
	home, project := clonedProject(t)
	path := filepath.Join(home, ".claude.json")
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Fatal(err)
	}
	d := discoverWithin(t, DiscoverOptions{Home: home, ProjectDir: project, Lookup: lookupFrom(nil)})
	if w := warningFor(d, path); !strings.Contains(w, "not a regular file (a character device)") {
		t.Errorf("warning for %s = %q (all: %q)", path, w, d.Warnings)
	}
}

// TestDiscoveryFollowsLinksItAllows: a project file that links to a file
// of the project is read, and so is a user file that links anywhere (a
// dotfiles manager's link into its own tree).
func TestDiscoveryFollowsLinksItAllows(t *testing.T) {
	home, project := clonedProject(t)
	shared := filepath.Join(project, "config", "shared.json")
	if err := os.MkdirAll(filepath.Dir(shared), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shared, []byte(`{"mcpServers": {"linked": {"command": "linked-server"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("config", "shared.json"), filepath.Join(project, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	dotfiles := filepath.Join(t.TempDir(), "dotfiles", "claude.json")
	if err := os.MkdirAll(filepath.Dir(dotfiles), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dotfiles, []byte(`{"mcpServers": {"mine": {"command": "my-server"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dotfiles, filepath.Join(home, ".claude.json")); err != nil {
		t.Fatal(err)
	}
	d := discoverWithin(t, DiscoverOptions{Home: home, ProjectDir: project, Lookup: lookupFrom(nil)})
	if len(d.Warnings) != 0 {
		t.Errorf("warnings: %q", d.Warnings)
	}
	for _, name := range []string{"linked", "mine", "fine"} {
		if d.server(name) == nil {
			t.Errorf("server %q not found: %v", name, d.Servers)
		}
	}
	if s := d.server("linked"); s != nil && !s.NeedsApproval {
		t.Error("a project file read through a link is still the project's: it needs approval")
	}
}

// TestLoadFileRefusesFilesThatAreNotRegular: a file given explicitly is
// bounded the same way; a FIFO fails at once instead of blocking.
func TestLoadFileRefusesFilesThatAreNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "mcp.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		done := make(chan error, 1)
		go func() {
			_, err := LoadFile(path)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), path) {
				t.Errorf("LoadFile(%s) = %v, want a refusal naming the file", path, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("LoadFile(%s) did not return in 10 s", path)
		}
	}
}
