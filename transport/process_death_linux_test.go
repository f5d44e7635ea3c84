package transport

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/proctest"
)

// deathHelperVar, set to a mark, makes TestServerDiesWithItsMember the
// member: it starts the stubborn server (marked) and waits to be killed.
const deathHelperVar = "MCPACTOR_TRANSPORT_DEATH_HELPER"

// stubbornServer ignores SIGPIPE, SIGTERM, SIGHUP and its stdin's EOF: only
// a SIGKILL ends it. It stands for a server that goes on with its work
// after its client is gone.
const stubbornServer = `trap "" PIPE TERM HUP INT; echo "server $$" >&2; while :; do read -r line || sleep 0.1; done`

// Issue 34: when a member is killed (kill -9), its stdio servers die with
// it, even one that ignores EOF and SIGPIPE, instead of finishing work
// that a new owner has taken over. The member is this test binary run
// again; the server must be gone within a generous bound once the member
// is.
func TestServerDiesWithItsMember(t *testing.T) {
	if mark := os.Getenv(deathHelperVar); mark != "" {
		runDeathHelper(t, mark)
		return
	}
	mark := fmt.Sprintf("death-%d-%d", os.Getpid(), marks.Add(1))
	member := exec.Command(os.Args[0], "-test.run=^TestServerDiesWithItsMember$", "-test.count=1")
	member.Env = append(os.Environ(), deathHelperVar+"="+mark)
	member.Stderr = os.Stderr
	out, err := member.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := member.Start(); err != nil {
		t.Fatal(err)
	}
	entry := markVar + "=" + mark
	t.Cleanup(func() {
		member.Process.Kill()
		member.Wait()
		if pid := proctest.WithEnv(entry, "sh"); pid != 0 {
			syscall.Kill(-pid, syscall.SIGKILL) // not to leave it running if the test failed
		}
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- true
			}
		}
		close(ready)
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the member ended before its server was ready")
		}
	case <-time.After(harness.Bound):
		t.Fatal("the member's server did not start")
	}
	server := proctest.WithEnv(entry, "sh")
	if server == 0 {
		t.Fatal("the server is not running")
	}

	if err := member.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	member.Wait()
	// Gone, or a zombie waiting for its new parent to reap it (whose
	// environment cannot be read): either way it runs no more.
	harness.WaitFor(t, "the server to die with its member", func() bool {
		return proctest.WithEnv(entry, "sh") == 0
	})
}

// runDeathHelper is the member: it starts the stubborn server, says
// "ready" once the server runs, and waits to be killed.
func runDeathHelper(t *testing.T, mark string) {
	stderr := &harness.Lines{}
	sys := harness.ActorSystem(t)
	SpawnStdio(sys.Root, sys.Root, nil, StdioConfig{Server: "stubborn", Command: "/bin/sh",
		Args: []string{"-c", stubbornServer}, Env: map[string]string{markVar: mark}, StderrLine: stderr.Add})
	stderr.Wait(t, "server ")
	fmt.Println("ready")
	time.Sleep(10 * time.Minute) // until the test kills it
}

// The parent-death signal fires when the thread that forked the server
// exits, and Go ends a thread whenever a goroutine locked to it returns
// without unlocking, whichever goroutine that is. Threads ending by the
// dozen (as code that locks threads for a namespace or a C library does)
// must not kill a server whose client is alive: launch keeps the forking
// thread to itself until the waiter is done, even while the waiter blocks
// on something other than a system call.
func TestLaunchKeepsItsThread(t *testing.T) {
	// Called from a thread other than the main one, which Go never ends:
	// a launch that forked from its caller's thread would be exposed.
	harness.WaitFor(t, "to run off the main thread", func() bool {
		runtime.Gosched()
		return syscall.Gettid() != os.Getpid()
	})
	cmd := exec.Command("/bin/sh", "-c", "sleep 60")
	_, releaseSpawn := launched(t, cmd)
	release, waited := make(chan struct{}), make(chan struct{})
	runWaiter(releaseSpawn, func() {
		<-release // a wait that holds no thread of its own
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		close(waited)
	})
	defer func() {
		close(release)
		<-waited
	}()
	for range 8 {
		var wg sync.WaitGroup
		for range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread() // returning locked ends this thread
			}()
		}
		wg.Wait()
	}
	if _, state, ok := proctest.Stat(cmd.Process.Pid); !ok || state == "Z" {
		t.Fatalf("the server was killed while its client lived (state %q)", state)
	}
}
