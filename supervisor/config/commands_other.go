//go:build !unix && !windows

package config

import (
	"context"
	"os/exec"
)

// shellCommand runs line with sh -c; a timeout kills the shell.
func shellCommand(ctx context.Context, line string) *exec.Cmd {
	return exec.CommandContext(ctx, "sh", "-c", line)
}
