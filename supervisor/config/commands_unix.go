//go:build unix

package config

import (
	"context"
	"os/exec"
	"syscall"
)

// shellCommand runs line with sh -c in a process group of its own, so that
// a timeout kills what the shell started too (a pipeline, a credential
// helper), not only the shell.
func shellCommand(ctx context.Context, line string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}
