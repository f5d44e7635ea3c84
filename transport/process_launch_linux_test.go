package transport

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// Servers share the thread that forks them: at hundreds of servers a
// thread each was most of a server's memory, and counted against the
// process's thread limit. Nor does a running server hold a thread blocked
// in waitid while it is waited for.
func TestServersShareTheForkingThread(t *testing.T) {
	const servers = 40
	before := threads(t)
	cmds := make([]*exec.Cmd, 0, servers)
	waited := make(chan struct{}, servers)
	for range servers {
		cmd := exec.Command("/bin/sh", "-c", "sleep 60")
		tree, release := launched(t, cmd)
		cmds = append(cmds, cmd)
		runWaiter(release, func() {
			tree.wait(cmd)
			waited <- struct{}{}
		})
	}
	t.Cleanup(func() {
		for _, cmd := range cmds {
			cmd.Process.Kill()
		}
		for range cmds {
			<-waited
		}
	})
	// A thread each would be 40 more; the runtime may add a few of its
	// own while the forks run.
	if grown := threads(t) - before; grown >= servers/4 {
		t.Fatalf("%d servers added %d threads", servers, grown)
	}
}

// threads is this process's thread count.
func threads(t *testing.T) int {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no thread count in /proc/self/status")
	return 0
}

// The forking thread ends once no server it forked is left, so that a
// runtime at rest after its servers have gone holds no thread (and
// goleak sees no goroutine) of its own; and it comes back for the next.
func TestForkingThreadEndsWithItsLastServer(t *testing.T) {
	for range 2 {
		cmd := exec.Command("/bin/true")
		tree, release := launched(t, cmd)
		done := make(chan error, 1)
		runWaiter(release, func() { done <- tree.wait(cmd) })
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		harness.WaitFor(t, "the forking thread to end", func() bool {
			spawner.mu.Lock()
			defer spawner.mu.Unlock()
			return spawner.starts == nil && spawner.held == 0
		})
	}
}

// launched starts cmd as the transport starts a server: in a process
// group of its own, forked by the spawner. The returned release must be
// called once the server has been reaped.
func launched(t *testing.T, cmd *exec.Cmd) (*processTree, func()) {
	t.Helper()
	tree := new(processTree)
	tree.prepare(cmd)
	release, err := launch(cmd)
	if err != nil {
		t.Fatal(err)
	}
	tree.started(cmd.Process)
	return tree, release
}
