// Package atomicfile replaces a file whole, so that a reader, in this
// process or another, sees the old content or the new, never part of one.
// It serves the stores that keep state on disk between runs: the OAuth
// token store (transport/oauth) and the tool-list cache
// (supervisor/toolcache).
package atomicfile

import (
	"os"
	"path/filepath"
	"time"
)

// Options says how Write names and stamps the temporary file.
type Options struct {
	// TempPattern is the os.CreateTemp pattern of the temporary file,
	// created in the target's directory so that the rename stays on one
	// file system; "" means the target's name followed by ".tmp-*". A store
	// that sweeps its directory for leftovers of writers that died names
	// them so that it can tell them apart.
	TempPattern string
	// ModTime, when not zero, becomes the file's access and modification
	// time before it is renamed into place, for a store that ages its files
	// by their modification time without reading them.
	ModTime time.Time
}

// Write replaces path with data: it writes a temporary file in path's
// directory, makes it readable by the user alone (0600, whatever the
// umask, for the files hold tokens or what a user's servers offer), syncs
// it so that a crash after the rename cannot leave an empty or partial
// file, closes it and renames it over path (on Windows os.Rename replaces
// an existing file too). The directory must exist. On failure the
// temporary file is removed and path is as it was.
func Write(path string, data []byte, o Options) (err error) {
	pattern := o.TempPattern
	if pattern == "" {
		pattern = filepath.Base(path) + ".tmp-*"
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				tmp.Close()
			}
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes the file 0600 already, less the umask's bits; set it
	// so that the mode does not depend on the umask.
	if err = tmp.Chmod(0o600); err != nil {
		return err
	}
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	closed = true
	if err = tmp.Close(); err != nil {
		return err
	}
	if !o.ModTime.IsZero() {
		if err = os.Chtimes(tmp.Name(), o.ModTime, o.ModTime); err != nil {
			return err
		}
	}
	return os.Rename(tmp.Name(), path)
}
