//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package oauth

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes f's flock without waiting. flock locks belong to the open
// file, so two opens in one process exclude each other as two processes
// do.
func tryLock(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func unlock(f *os.File) { unix.Flock(int(f.Fd()), unix.LOCK_UN) }
