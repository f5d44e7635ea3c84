//go:build linux

package transport

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// Servers running at once have their stderr drained by one goroutine, not
// one each; every line of each still reaches its own StderrLine, and its
// closing error its own tail; the goroutine ends with the last server.
func TestServersShareOneStderrWatch(t *testing.T) {
	const servers = 8
	for round := range 2 {
		ss := make([]*server, servers)
		for i := range ss {
			ss[i] = startServer(t, testserver.Options{}, nil, nil, nil)
		}
		for _, s := range ss {
			if _, err := s.conn.Call(harness.Context(t), "tools/call", toolParams("echo", map[string]any{"message": "up"}), RequestOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if n := goroutinesIn(t, "transport.(*stderrWatcher).watch("); n != 1 {
			t.Errorf("round %d: %d stderr-watching goroutines for %d servers, want 1", round, n, servers)
		}
		if n := goroutinesIn(t, "transport.(*stderrDrain).run("); n != 0 {
			t.Errorf("round %d: %d servers drained on a goroutine of their own", round, n)
		}
		var wg sync.WaitGroup
		for i, s := range ss {
			wg.Go(func() {
				words := fmt.Sprintf("last words of %d", i)
				_, err := s.conn.Call(harness.Context(t), "tools/call", toolParams("crash", map[string]any{"code": 3, "stderr": words}), RequestOptions{})
				if !errors.Is(err, errkind.ErrTransportClosed) || !strings.HasSuffix(err.Error(), words) {
					t.Errorf("round %d: server %d's crash: %v", round, i, err)
				}
				// Lines reach StderrLine on a goroutine of their own, so
				// perhaps after the call has failed.
				if line := s.stderr.Wait(t, "last words"); line != words {
					t.Errorf("round %d: server %d's stderr line %q, want %q", round, i, line, words)
				}
			})
		}
		wg.Wait()
		harness.WaitFor(t, "the stderr watch to end with its last server", func() bool {
			return goroutinesIn(t, "transport.(*stderrWatcher).watch(") == 0
		})
	}
}

// Should the poller give the watch up, each pipe still watched is drained
// on a goroutine of its own from there on: nothing written before or after
// is lost, and the end is reported once.
func TestAbandonedStderrWatchHandsOn(t *testing.T) {
	s := startServer(t, testserver.Options{}, nil, nil, nil)
	if _, err := s.conn.Call(harness.Context(t), "tools/call", toolParams("echo-env", map[string]any{"names": []string{markVar}}), RequestOptions{}); err == nil {
		t.Fatal("echo-env answered without an error")
	}
	s.stderr.Wait(t, "echo-env: "+markVar+"="+s.mark)
	stderrWatch.mu.Lock()
	ep := stderrWatch.ep
	stderrWatch.mu.Unlock()
	if ep == nil {
		t.Fatal("the server's stderr is not in the watch")
	}
	stderrWatch.abandon(ep) // as watch does when its read fails
	harness.WaitFor(t, "the stderr watch to end", func() bool {
		return goroutinesIn(t, "transport.(*stderrWatcher).watch(") == 0
	})
	if n := goroutinesIn(t, "transport.(*stderrDrain).run("); n != 1 {
		t.Fatalf("%d goroutines drain the server's stderr after the watch ended, want 1", n)
	}
	_, err := s.conn.Call(harness.Context(t), "tools/call", toolParams("crash", map[string]any{"code": 3, "stderr": "after the watch"}), RequestOptions{})
	if !errors.Is(err, errkind.ErrTransportClosed) || !strings.HasSuffix(err.Error(), "after the watch") {
		t.Fatalf("crash: %v", err)
	}
	var tce *callerr.Error
	if !errors.As(err, &tce) || !strings.Contains(tce.Stderr, "echo-env: ") {
		t.Errorf("the closing error's stderr %q lost what came before the hand-over", tce.Stderr)
	}
}
