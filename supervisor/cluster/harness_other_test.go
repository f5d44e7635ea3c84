//go:build !linux

package cluster

// The multi-process tests find processes in /proc: Linux only.
func runChild()       {}
func stopSharedEtcd() {}
