//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package oauth

import (
	"os"
)

// openPrivate opens the store's file p, refusing a symbolic link or
// anything else that is not a regular file. Without O_NOFOLLOW the check
// comes before the open (on Windows, making a symbolic link takes a
// privilege; the directory's ACL is the user's profile's).
func openPrivate(p string, flag int) (*os.File, error) {
	if fi, err := os.Lstat(p); err == nil {
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			return nil, notPrivate(p, "it is a symbolic link")
		case !fi.Mode().IsRegular():
			return nil, notPrivate(p, "it is not a regular file")
		}
	}
	return os.OpenFile(p, flag, 0o600)
}

// checkPrivateDir refuses a store directory that is not a directory.
func checkPrivateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return notPrivate(dir, "it is not a directory")
	}
	return nil
}
