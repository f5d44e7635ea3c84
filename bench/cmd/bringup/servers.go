package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// serverFor is the command of sp's servers.
func serverFor(sp spec) (measure.StdioServer, error) {
	switch sp.Kind {
	case "everything":
		node, script, err := everythingCommand()
		if err != nil {
			return measure.StdioServer{}, err
		}
		return measure.NewStdioServer(node, []string{script, "stdio"}, os.Environ()), nil
	case "testserver":
		opts := testserver.Options{}
		if sp.ServerPath != "" {
			return measure.NewStdioServer(sp.ServerPath, opts.Args(), os.Environ()), nil
		}
		return measure.NewStdioServer(testserver.Command(opts)), nil
	}
	return measure.StdioServer{}, fmt.Errorf("unknown server kind %q", sp.Kind)
}

// buildBenchServer builds bench/cmd/benchserver, the test server as a
// program of its own (about half this one's size, without the client
// libraries and their init work), into a temporary directory. It needs
// the go command and this source tree.
func buildBenchServer() (path string, cleanup func(), err error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", nil, fmt.Errorf("no source path")
	}
	module := filepath.Join(filepath.Dir(file), "..", "..")
	if _, err := os.Stat(filepath.Join(module, "cmd", "benchserver")); err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "bringup-")
	if err != nil {
		return "", nil, err
	}
	path = filepath.Join(dir, "benchserver")
	cmd := exec.Command("go", "build", "-o", path, "./cmd/benchserver")
	cmd.Dir = module
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, fmt.Errorf("go build: %v: %s", err, bytes.TrimSpace(out))
	}
	return path, func() { _ = os.RemoveAll(dir) }, nil
}

// everythingCommand finds Node and server-everything's script (installed
// by `make peers`).
func everythingCommand() (node, script string, err error) {
	node, err = exec.LookPath("node")
	if err != nil {
		return "", "", fmt.Errorf("no node on PATH")
	}
	script = peers.ServerEverythingScript()
	if _, err := os.Stat(script); err != nil {
		return "", "", fmt.Errorf("server-everything is not installed (%s; run make peers)", filepath.Base(script))
	}
	return node, script, nil
}
