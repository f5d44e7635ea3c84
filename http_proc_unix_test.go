//go:build unix

package mcpactor_test

import (
	"os/exec"
	"syscall"
)

// The HTTP peers run in a process group of their own, so that stopping one
// stops whatever it started (node may start children), as the runtime does
// for stdio servers (transport/process_unix.go).

func inOwnGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// The group is named after its leader, the server.
func terminateGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

func groupAlive(cmd *exec.Cmd) bool { return syscall.Kill(-cmd.Process.Pid, 0) == nil }
