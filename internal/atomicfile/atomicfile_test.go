package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The file holds exactly what was written, replaces what was there, is
// 0600 whatever the umask, and no temporary file is left beside it.
func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "token.json")
	if err := os.WriteFile(p, []byte("old content, longer than the new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new"), Options{}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "new" {
		t.Fatalf("content = %q, %v; want %q", got, err, "new")
	}
	if runtime.GOOS != "windows" {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if mode := info.Mode().Perm(); mode != 0o600 {
			t.Errorf("mode = %v, want 0600", mode)
		}
	}
	assertOnly(t, dir, "token.json")
}

// TempPattern names the temporary file (seen here through a failed rename,
// which must also remove it), and ModTime stamps the file.
func TestWriteOptions(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "entry.json")
	stamp := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	if err := Write(p, []byte("{}\n"), Options{TempPattern: ".entry-*.tmp", ModTime: stamp}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !info.ModTime().Equal(stamp) {
		t.Errorf("mod time = %v, want %v", info.ModTime(), stamp)
	}

	// A directory in the target's place makes the rename fail after the
	// temporary file is written: the error is returned, the directory is
	// untouched and the temporary file gone.
	blocked := filepath.Join(dir, "blocked")
	if err := os.Mkdir(blocked, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(blocked, "keep"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(blocked, []byte("x"), Options{TempPattern: ".entry-*.tmp"}); err == nil {
		t.Fatal("Write over a non-empty directory succeeded")
	}
	assertOnly(t, dir, "blocked", "entry.json")
}

// A missing directory is an error, not created: the caller says with what
// mode its directories are made.
func TestWriteMissingDir(t *testing.T) {
	p := filepath.Join(t.TempDir(), "absent", "f")
	if err := Write(p, []byte("x"), Options{}); err == nil {
		t.Fatal("Write into a missing directory succeeded")
	}
}

// Concurrent writers and readers: a reader sees one writer's content
// whole, never a mix or a truncated file.
func TestWriteConcurrent(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	contents := [][]byte{bytes.Repeat([]byte("a"), 64<<10), bytes.Repeat([]byte("b"), 32<<10)}
	if err := Write(p, contents[0], Options{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for range 20 {
				if err := Write(p, contents[w%2], Options{}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range 200 {
		got, err := os.ReadFile(p)
		if err != nil {
			// Windows may refuse to open a file in the middle of a
			// rename over it; that is not a torn read.
			if runtime.GOOS == "windows" {
				continue
			}
			t.Fatal(err)
		}
		if !bytes.Equal(got, contents[0]) && !bytes.Equal(got, contents[1]) {
			t.Fatalf("read %d bytes that are neither content", len(got))
		}
	}
	wg.Wait()
	assertOnly(t, dir, "f")
}

// assertOnly fails unless dir holds exactly the names given, in order.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("directory holds %v, want %v", got, names)
	}
}
