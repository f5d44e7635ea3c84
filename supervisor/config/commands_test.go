package config

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tests of this file change commandTimeout, so none runs in parallel.

func commandServer(t *testing.T, env, headers map[string]string) *Entry {
	t.Helper()
	servers := map[string]any{"s": map[string]any{"url": "https://example.test/mcp", "headers": headers}}
	if env != nil {
		servers = map[string]any{"s": map[string]any{"command": "srv", "env": env}}
	}
	doc, _ := json.Marshal(map[string]any{"mcpServers": servers})
	f, err := parse(doc, lookupFrom(map[string]string{"SEEN": "by-us"}))
	if err != nil {
		t.Fatal(err)
	}
	return f.Servers["s"]
}

func TestResolve(t *testing.T) {
	t.Setenv("MCPACTOR_TEST_SHELL_VAR", "from-the-shell")
	s := commandServer(t, nil, map[string]string{
		"Authorization": "!printf '  Bearer %s\\n\\n' tok-123",
		"X-Var":         "!echo $MCPACTOR_TEST_SHELL_VAR",
		"X-Plain":       "${SEEN}",
	})
	r, err := s.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The computed values only: X-Plain was expanded when the file was
	// read.
	if r.Headers["Authorization"] != "Bearer tok-123" || r.Headers["X-Var"] != "from-the-shell" || len(r.Headers) != 2 || s.Headers["X-Plain"] != "by-us" {
		t.Errorf("headers = %q, the entry's %q", r.Headers, s.Headers)
	}
	if s.Headers["Authorization"] != "!printf '  Bearer %s\\n\\n' tok-123" {
		t.Errorf("Resolve changed the entry: %q", s.Headers)
	}

	dir := t.TempDir()
	s = commandServer(t, map[string]string{"WHERE": "!pwd", "KEEP": "x"}, nil)
	s.Cwd = dir
	r, err = s.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if real, _ := filepath.EvalSymlinks(dir); r.Env["WHERE"] != dir && r.Env["WHERE"] != real {
		t.Errorf("the command did not run in Cwd: %q", r.Env["WHERE"])
	}
	if len(r.Env) != 1 || r.Auth != nil {
		t.Errorf("env = %q, auth %v", r.Env, r.Auth)
	}

	// A server without commands resolves to nothing: its values are as
	// written, '!' of another tool's file included.
	plain := &Entry{Name: "p", Command: "x", Env: map[string]string{"A": "!not a command"}}
	if r, err := plain.Resolve(context.Background()); err != nil || r.Env != nil || r.Headers != nil || r.Auth != nil {
		t.Errorf("resolved = %+v, err = %v", r, err)
	}
}

// TestResolveFailure: the error names the server and the key, and holds
// nothing the command printed.
func TestResolveFailure(t *testing.T) {
	s := commandServer(t, map[string]string{"TOKEN": "!echo sk-live-secret; echo sk-err-secret >&2; exit 3"}, nil)
	_, err := s.Resolve(context.Background())
	if err == nil || err.Error() != `Server "s": env "TOKEN": command failed: exit status 3` {
		t.Fatalf("err = %v", err)
	}
	var ce *commandError
	if !errors.As(err, &ce) || !errors.Is(err, ErrCommand) || ce.Server != "s" || ce.Field != "env" || ce.Key != "TOKEN" {
		t.Errorf("not a commandError naming the server and key: %#v", err)
	}

	s = commandServer(t, nil, map[string]string{"X-Key": "!/does/not/exist/helper"})
	if _, err := s.Resolve(context.Background()); err == nil || !strings.HasPrefix(err.Error(), `Server "s": header "X-Key": command failed: exit status 127`) {
		t.Errorf("err = %v", err)
	}

	s = commandServer(t, nil, map[string]string{"X-Big": "!head -c 100000 /dev/zero | tr '\\0' a"})
	if _, err := s.Resolve(context.Background()); err == nil || err.Error() != `Server "s": header "X-Big": command printed more than 65536 bytes` {
		t.Errorf("err = %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s = commandServer(t, map[string]string{"T": "!echo x"}, nil)
	if _, err := s.Resolve(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

// TestResolveTimeout: a command that outlives the timeout is killed with
// what it started, and the error says so without waiting for it.
func TestResolveTimeout(t *testing.T) {
	old := commandTimeout
	commandTimeout = 200 * time.Millisecond
	t.Cleanup(func() { commandTimeout = old })

	pidFile := filepath.Join(t.TempDir(), "pid")
	s := commandServer(t, map[string]string{"SLOW": "!echo partial; sleep 30 & echo $! > " + pidFile + "; wait"}, nil)
	start := time.Now()
	_, err := s.Resolve(context.Background())
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Resolve took %v with a 200ms timeout", took)
	}
	if !errors.Is(err, errCommandTimeout) || err.Error() != `Server "s": env "SLOW": command timed out after 200ms` {
		t.Fatalf("err = %v", err)
	}
	if runtime.GOOS != "linux" {
		return
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	deadline := time.Now().Add(5 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		// Gone, or a zombie waiting for init to reap it: killed either way.
		if errors.Is(err, os.ErrNotExist) || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command's child %d still runs after the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
