//go:build !linux

package transport

import (
	"os/exec"
	"syscall"
)

// parentDeath does nothing: a parent-death signal is Linux's (prctl(2)).
// Elsewhere a server whose client died sees its stdin end (and, on
// Windows, the job object kills it when the last handle closes).
func parentDeath(*syscall.SysProcAttr) {}

// launch starts cmd; run starts the waiter on a goroutine of its own.
func launch(cmd *exec.Cmd) (run func(waiter func()), err error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func(waiter func()) { go waiter() }, nil
}
