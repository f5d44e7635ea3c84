//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package oauth

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openPrivate opens the store's file p without following a symbolic
// link (O_NOFOLLOW: the names are predictable, and a link planted under
// one would have the lock or the token written, created or read
// elsewhere), without blocking on a FIFO (O_NONBLOCK), and keeps it only
// if it is a regular file of this user's, mode 0600.
func openPrivate(p string, flag int) (*os.File, error) {
	f, err := os.OpenFile(p, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o600)
	if errors.Is(err, unix.ELOOP) {
		return nil, notPrivate(p, "it is a symbolic link")
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if problem := notOwned(fi); problem != "" {
		f.Close()
		return nil, notPrivate(p, problem)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notPrivate(p, "it is not a regular file")
	}
	if fi.Mode().Perm()&0o077 != 0 {
		// The user's own file, made readable by others: made private
		// again, as the store promises.
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// checkPrivateDir refuses a store directory that is not the user's, or
// that another user can write to (and so plant files in).
func checkPrivateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	switch {
	case !fi.IsDir():
		return notPrivate(dir, "it is not a directory")
	case notOwned(fi) != "":
		return notPrivate(dir, notOwned(fi))
	case fi.Mode().Perm()&0o022 != 0:
		return notPrivate(dir, "other users can write to it")
	}
	return nil
}

func notOwned(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "it belongs to another user"
	}
	return ""
}
