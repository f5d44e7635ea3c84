//go:build !linux

package transport

import "os/exec"

// waitThen runs wait on a goroutine of its own and calls then with its
// result: only Linux watches every server's exit on one goroutine
// (exit_watch_linux.go).
func (t *processTree) waitThen(cmd *exec.Cmd, then func(error)) {
	go func() { then(t.wait(cmd)) }()
}
