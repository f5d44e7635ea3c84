//go:build !linux

package transport

// watchStderr reports false: only Linux drains every server's stderr on
// one goroutine (stderr_watch_linux.go); elsewhere each drain runs on a
// goroutine of its own.
func watchStderr(*stderrDrain) bool { return false }

// unwatchStderr reports false: no drain is in a shared watch.
func unwatchStderr(*stderrDrain) bool { return false }
