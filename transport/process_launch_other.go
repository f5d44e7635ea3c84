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

// launch starts cmd; there is nothing to release once it is reaped.
func launch(cmd *exec.Cmd) (release func(), err error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() {}, nil
}
