// Package proctest finds processes in Linux's /proc for tests that check
// child processes are started and reaped. The runtime never shows pids to
// its callers, so tests mark a child's environment and look it up here.
//
// /proc is Linux's. Elsewhere the lookups find nothing (Children returns
// an error wrapping errors.ErrUnsupported), and WaitChild skips the test
// that calls it, saying it runs on Linux only: such a test cannot find its
// server's process. Gone works on every Unix (kill(pid, 0)).
package proctest
