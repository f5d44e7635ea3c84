package measure

import (
	"os"
	"strings"
	"testing"
)

func TestServerBinary(t *testing.T) {
	for _, c := range []struct{ flag, want string }{{"self", ""}, {"/opt/server", "/opt/server"}} {
		path, note, cleanup := ServerBinary("test", c.flag, "fastserver", "fast server")
		cleanup()
		if path != c.want || note != "" {
			t.Errorf("ServerBinary(%q) = %q, note %q; want %q", c.flag, path, note, c.want)
		}
	}

	path, note, cleanup := ServerBinary("test", "auto", "nosuch", "fast server")
	cleanup()
	if path != "" || !strings.HasPrefix(note, "could not build bench/cmd/nosuch (") || !strings.HasSuffix(note, "): the fast server is this program re-executed") {
		t.Errorf("auto with a missing command = %q, note %q", path, note)
	}

	path, note, cleanup = ServerBinary("test", "auto", "fastserver", "fast server")
	if note != "" {
		t.Fatalf("auto: %s", note)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("auto built %q: %v", path, err)
	}
	cleanup()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("after cleanup %s: %v", path, err)
	}
}
