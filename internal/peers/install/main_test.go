package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestNewer(t *testing.T) {
	dir := t.TempDir()
	src, target := filepath.Join(dir, "go.mod"), filepath.Join(dir, "bin")
	if err := os.WriteFile(src, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if newer(target, src) {
		t.Error("a missing target is up to date")
	}
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	past, future := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	os.Chtimes(src, past, past)
	if !newer(target, src) {
		t.Error("a target written after its source is out of date")
	}
	os.Chtimes(src, future, future)
	if newer(target, src) {
		t.Error("a target older than its source is up to date")
	}
	if newer(target, filepath.Join(dir, "missing")) {
		t.Error("a target whose source is missing is up to date")
	}
}
