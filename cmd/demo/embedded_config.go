package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// The embedded servers are managed from an mcpServers file the demo
// writes, and their tool lists are cached across runs. The cache knows a
// server by its name and the hash of its entry as written, before ${VAR}
// expansion (docs/configuration.md, "What is kept out of logs" and "Tool
// names and the tool-list cache"). `go run` builds the demo at a new path
// each time, so an entry naming the binary would be a new server every
// run, its cache entry never found again. The entries name it as
// ${MCPACTOR_DEMO_BIN} instead, which the demo sets to its own path: the
// entry, and so the server's identity, is the same from run to run, as a
// user's entry with ${HOME} in it is on every machine. The HTTP server's
// port changes too, and is given the same way.

// Variables the entries refer to.
const (
	envDemoBin     = "MCPACTOR_DEMO_BIN"
	envDemoHTTPURL = "MCPACTOR_DEMO_HTTP_URL"
)

// Names of the embedded servers besides demo-N.
const (
	slowName = "slow"   // answers initialize only after --slow
	httpName = "http-1" // Streamable HTTP, in-process
)

func demoName(i int) string { return fmt.Sprintf("demo-%d", i+1) }

// stdioEntry is the entry of an embedded stdio server with opts.
func stdioEntry(opts testserver.Options, connectTimeout time.Duration) map[string]any {
	return map[string]any{
		"command": "${" + envDemoBin + "}",
		"args":    opts.Args(),
		// GORACE: a race-enabled build (the tests) would sleep a second
		// at each exit.
		"env":            map[string]string{testserver.EnvChild: "1", "GORACE": "atexit_sleep_ms=0"},
		"connectTimeout": connectTimeout.Milliseconds(),
	}
}

// embeddedFile is the mcpServers document of the embedded servers.
func embeddedFile(o options) map[string]any {
	servers := map[string]any{
		httpName: map[string]any{"url": "${" + envDemoHTTPURL + "}", "connectTimeout": o.timeout.Milliseconds()},
	}
	for i := range o.servers {
		servers[demoName(i)] = stdioEntry(testserver.Options{ReportCancels: true}, o.timeout)
	}
	if o.slow > 0 {
		servers[slowName] = stdioEntry(testserver.Options{SlowInitialize: o.slow}, o.timeout+o.slow)
	}
	return map[string]any{"mcpServers": servers}
}

// writeEmbeddedFile writes the file into dir and sets the variables its
// entries refer to.
func writeEmbeddedFile(dir string, o options, httpURL string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("the embedded servers are this binary: %w", err)
	}
	for k, v := range map[string]string{envDemoBin: exe, envDemoHTTPURL: httpURL} {
		if err := os.Setenv(k, v); err != nil {
			return "", err
		}
	}
	data, err := json.MarshalIndent(embeddedFile(o), "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "mcp.json")
	return path, os.WriteFile(path, data, 0o600)
}
