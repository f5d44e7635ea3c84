package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSmoke runs the whole suite in its smoke mode against a copy of the
// real page: every step's harness builds, every driver completes without
// errors, and every block of the page and every chart is written. It
// asserts nothing about speed.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every harness")
	}
	page, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	docs := filepath.Join(dir, "benchmarks.md")
	if err := os.WriteFile(docs, page, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &config{smoke: true, docs: docs, charts: filepath.Join(dir, "charts")}
	if err := run(cfg, os.Stderr); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		block := between(string(got), s.name)
		if !strings.Contains(block, "| client |") && !strings.Contains(block, "| telemetry |") && !strings.Contains(block, "| area (CPU) |") {
			t.Errorf("block %s has no table:\n%s", s.name, block)
		}
	}
	if !strings.Contains(between(string(got), blockTargets), "| target |") {
		t.Errorf("no targets table")
	}
	// The smoke levels leave out the charts of 10,000 calls in flight and
	// of HTTP at 1, 16 and 256.
	for _, f := range []string{"throughput-stdio.svg", "cpu-per-call.svg", resultsFile} {
		if _, err := os.Stat(filepath.Join(dir, "charts", f)); err != nil {
			t.Errorf("chart: %v", err)
		}
	}
}

func between(text, name string) string {
	_, after, _ := strings.Cut(text, beginMarker(name))
	block, _, _ := strings.Cut(after, endMarker(name))
	return block
}

func TestReplaceBlock(t *testing.T) {
	page := "a\n" + beginMarker("x") + "\nold\n" + endMarker("x") + "\nb\n"
	got, err := replaceBlock(page, "x", "new\n")
	if err != nil || got != "a\n"+beginMarker("x")+"\nnew\n"+endMarker("x")+"\nb\n" {
		t.Fatalf("%q, %v", got, err)
	}
	for _, bad := range []string{"no markers", endMarker("x") + beginMarker("x"), page + page} {
		if _, err := replaceBlock(bad, "x", "new"); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}
