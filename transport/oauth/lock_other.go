//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package oauth

import (
	"os"
	"sync"
)

// Without a file lock this platform's processes cannot exclude each
// other: one process's goroutines still do, by path.
var held sync.Map // path -> struct{}

func tryLock(f *os.File) (bool, error) {
	_, taken := held.LoadOrStore(f.Name(), struct{}{})
	return !taken, nil
}

func unlock(f *os.File) { held.Delete(f.Name()) }
