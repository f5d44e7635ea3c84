package transport

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// A member's servers die with it (issue 34): a stdio server is started with
// a parent-death signal, SIGKILL, so that when this process dies, whatever
// kills it (kill -9, the OOM killer, a crash), the server is killed too
// rather than left to notice stdin's EOF, which a server busy with its work,
// or one that ignores EOF, does not (prctl(2), PR_SET_PDEATHSIG). Its
// process group outlives it only if the server started helpers and did not
// take them down with it; they see our pipes close.
//
// The signal is tied to the thread that forked the server, not to the
// process: it fires when that thread exits. Go's runtime ends an OS thread
// when a goroutine locked to it returns without unlocking, whichever
// goroutine that is, so a thread that once forked a server may be ended
// later by unrelated code, killing the server with it. Every server is
// therefore forked by one goroutine locked to its thread, the spawner,
// which lives while any server it forked does: it returns, ending the
// thread, only once every one of them has been reaped.
//
// One thread for all servers, not one each: a thread costs its stacks
// (Go's 16 KiB system stack and 32 KiB signal stack) and the kernel's
// share, which at hundreds of servers was most of a server's memory
// (docs/benchmarks.md, "One runtime at scale"). Forks are serialised by
// it, which costs little: Go takes a process-wide lock around every fork
// anyway, and a fork holds its thread only until the child has exec'd.

// parentDeath makes cmd's process receive SIGKILL when the thread that
// starts it exits.
func parentDeath(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

// spawner is the forking thread's bookkeeping.
var spawner struct {
	mu sync.Mutex
	// held counts the servers forked and not yet reaped, and the starts
	// under way: while it is above zero the thread must live.
	held int
	// starts reaches the spawner's goroutine; nil while none runs.
	starts chan spawn
}

// spawn asks the spawner to start cmd; the outcome of cmd.Start comes back
// on done.
type spawn struct {
	cmd  *exec.Cmd
	done chan error
}

// launch starts cmd. If it started, the returned release must be called
// once, and only once the server has been reaped: the spawner's thread
// lives at least until then.
func launch(cmd *exec.Cmd) (release func(), err error) {
	starts := holdSpawner()
	done := make(chan error, 1)
	starts <- spawn{cmd: cmd, done: done}
	if err := <-done; err != nil {
		releaseSpawner()
		return nil, err
	}
	return releaseSpawner, nil
}

// holdSpawner keeps the spawner alive, starting it if none runs, and
// returns its queue.
func holdSpawner() chan<- spawn {
	spawner.mu.Lock()
	defer spawner.mu.Unlock()
	spawner.held++
	if spawner.starts == nil {
		spawner.starts = make(chan spawn)
		go runSpawner(spawner.starts)
	}
	return spawner.starts
}

// releaseSpawner gives back a hold; the last one ends the spawner, and its
// thread with it, which no server of ours survives (none is left).
func releaseSpawner() {
	spawner.mu.Lock()
	defer spawner.mu.Unlock()
	spawner.held--
	if spawner.held == 0 {
		close(spawner.starts)
		spawner.starts = nil
	}
}

// runSpawner forks every server it is given from its own thread, and keeps
// that thread until its queue is closed.
func runSpawner(starts <-chan spawn) {
	// Never unlocked: returning locked ends the thread, which is what must
	// happen only once no server it forked is alive.
	runtime.LockOSThread()
	for s := range starts {
		s.done <- s.cmd.Start()
	}
}
