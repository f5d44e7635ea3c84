//go:build windows

package config

import (
	"context"
	"os/exec"
	"syscall"
)

// shellCommand runs line with cmd /d /s /c. The command line is passed
// as written: Go's argument quoting is not cmd's, so a quoted command
// would otherwise reach cmd mangled. A timeout kills cmd itself; the
// WaitDelay of runValueCommand bounds the wait for what it started.
func shellCommand(ctx context.Context, line string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "cmd.exe")
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `cmd.exe /d /s /c "` + line + `"`}
	return cmd
}
