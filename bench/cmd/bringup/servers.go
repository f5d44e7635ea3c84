package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

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
