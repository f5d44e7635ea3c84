//go:build !unix

package mcpactor_test

import "os/exec"

// Elsewhere (the tests run on Linux; this keeps the module building for
// Windows) a peer is stopped alone: what it started is not tracked.

func inOwnGroup(*exec.Cmd) {}

func terminateGroup(cmd *exec.Cmd) { cmd.Process.Kill() }

func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }

func groupAlive(*exec.Cmd) bool { return false }
