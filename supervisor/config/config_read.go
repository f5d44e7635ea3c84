package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Configuration files are data from elsewhere: a cloned repository
// chooses what its .mcp.json is, and discovery reads it before anyone
// has approved anything. So every file this package reads is opened
// without blocking (a FIFO must not hold the read up forever), must be a
// regular file once opened (not a device such as /dev/zero, a FIFO, a
// socket or a directory), and is read up to MaxFileSize only
// (docs/configuration.md, "Discovery").

// MaxFileSize is the largest configuration file read: a file over it is
// refused whole, never truncated. Real files are a few KiB; Claude Code's
// ~/.claude.json, the largest in practice, keeps a history per project
// and stays well under it.
const MaxFileSize = 4 << 20

// errNotRegular and errTooLarge are the causes of a refused file.
var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = fmt.Errorf("larger than the %d MiB limit", MaxFileSize>>20)
)

// readFile reads a configuration file. within, when not "", is a
// directory the file must resolve into: a symbolic link of a project
// file may point to a file of the project, and nowhere else (a cloned
// repository's link to ~/.ssh/id_ed25519 or /dev/zero is refused). A
// missing file's error matches fs.ErrNotExist; the others say why the
// file was refused, without its path (the caller names it).
func readFile(path, within string) ([]byte, error) {
	if within != "" {
		if err := insideDir(path, within); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", errNotRegular, fileKind(info.Mode()))
	}
	if info.Size() > MaxFileSize {
		return nil, errTooLarge
	}
	// The size is read again as the file is: one that grows between the
	// Stat and the read is still refused past the limit.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, errTooLarge
	}
	return data, nil
}

// insideDir checks that path, its symbolic links followed, is in dir (its
// own links followed too). A path that does not exist is reported as
// such, for the caller to skip.
func insideDir(path, dir string) error {
	if _, err := os.Lstat(path); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// A dangling link: there is no file to read, but the link
			// is there, and says so.
			return errors.New("a symbolic link to a file that does not exist")
		}
		return err
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return errors.New("a symbolic link to a file outside the project directory")
	}
	return nil
}

// fileKind names what a file that is not regular is, for the warning.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}
