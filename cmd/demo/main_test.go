package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

func TestMain(m *testing.M) {
	testserver.RunIfChild() // the demo's embedded servers are this binary
	goleak.VerifyTestMain(m)
}

func TestDemoEmbedded(t *testing.T) {
	var out, errOut bytes.Buffer
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	if code := run([]string{"--servers", "2", "--calls", "300", "--concurrency", "16", "--trace", trace}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{
		"2 servers up", "calls: 300", "errors by kind: none", "progress 1/4 2/4 3/4 4/4",
		"server saw: demo-1: cancelled", "Transport closed: exit status 3: fatal: out of cheese",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	spans, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(spans)), "\n")
	if len(lines) < 300 {
		t.Errorf("trace has %d spans, want one per call at least", len(lines))
	}
	var span struct{ Name string }
	if err := json.Unmarshal([]byte(lines[0]), &span); err != nil || span.Name == "" {
		t.Errorf("trace line is not a span: %v %q", err, lines[0])
	}
}

func TestDemoConfigFile(t *testing.T) {
	path, args, env := testserver.Command(testserver.Options{})
	envMap := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envMap[k] = v
	}
	cfg := map[string]any{"mcpServers": map[string]any{
		"ours":     map[string]any{"command": path, "args": args, "env": envMap},
		"disabled": map[string]any{"command": "nope", "enabled": false},
	}}
	file := filepath.Join(t.TempDir(), "mcp.json")
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"--config", file}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "1 servers configured, 1 disabled, 0 failed") || !strings.Contains(out.String(), "echo") {
		t.Errorf("unexpected output:\n%s", out.String())
	}

	// A server that cannot start makes the demo fail.
	cfg = map[string]any{"mcpServers": map[string]any{"broken": map[string]any{"command": "/does/not/exist"}}}
	data, _ = json.Marshal(cfg)
	os.WriteFile(file, data, 0o600)
	out.Reset()
	if code := run([]string{"--config", file}, &out, &errOut); code == 0 {
		t.Errorf("a broken server should fail the demo:\n%s", out.String())
	}
}
