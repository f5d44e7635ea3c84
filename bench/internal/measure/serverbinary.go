package measure

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// ServerBinary turns the value of a program's -server flag into the test
// server's binary: "auto" builds bench/cmd/<cmd> (go build) into a
// temporary directory, and when that fails falls back to "" with a note
// saying why (what names the server in the note, e.g. "test server");
// "self" is ""; anything else is a path, kept as it is. "" means the
// program re-executes itself as the server. The note, if any, is also
// printed to stderr after program's name. cleanup removes what was built;
// it is never nil.
func ServerBinary(program, flagValue, cmd, what string) (path, note string, cleanup func()) {
	switch flagValue {
	case "auto":
		path, cleanup, err := buildCommand(program, cmd)
		if err != nil {
			note = "could not build bench/cmd/" + cmd + " (" + err.Error() + "): the " + what + " is this program re-executed"
			fmt.Fprintln(os.Stderr, program+": "+note)
			return "", note, func() {}
		}
		return path, "", cleanup
	case "self":
		return "", "", func() {}
	}
	return flagValue, "", func() {}
}

// buildCommand builds bench/cmd/<cmd> into a new temporary directory
// (named after program) and returns the binary and what removes it. The
// module is found from this file's source path, so it works only where
// the source is (a go run or a binary built here).
func buildCommand(program, cmd string) (path string, cleanup func(), err error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", nil, fmt.Errorf("no source path")
	}
	module := filepath.Join(filepath.Dir(file), "..", "..")
	if _, err := os.Stat(filepath.Join(module, "cmd", cmd)); err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", program+"-")
	if err != nil {
		return "", nil, err
	}
	path = filepath.Join(dir, cmd)
	build := exec.Command("go", "build", "-o", path, "./cmd/"+cmd)
	build.Dir = module
	if out, err := build.CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, fmt.Errorf("go build: %v: %s", err, bytes.TrimSpace(out))
	}
	return path, func() { _ = os.RemoveAll(dir) }, nil
}
