package transport

import (
	"os/exec"
	"runtime"
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
// later by unrelated code, killing the server with it. launch therefore
// forks from a goroutine locked to its thread, and keeps that goroutine,
// and so the thread, for the server's whole life: it goes on to wait for
// the server (a wait that holds a thread anyway, blocked in waitid), and
// returns, ending the thread, only once the server has been reaped.

// parentDeath makes cmd's process receive SIGKILL when the thread that
// starts it exits.
func parentDeath(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

// launch starts cmd. If it started, the returned run must be called once,
// with the function that waits for the server and reports its end: it runs
// on the goroutine that forked the server, which is locked to its thread
// until run's function returns.
func launch(cmd *exec.Cmd) (run func(waiter func()), err error) {
	started := make(chan error, 1)
	next := make(chan func(), 1)
	go func() {
		// Never unlocked: returning locked ends the thread, which is
		// what must happen only after the server is gone.
		runtime.LockOSThread()
		err := cmd.Start()
		started <- err
		if err == nil {
			(<-next)()
		}
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return func(waiter func()) { next <- waiter }, nil
}
