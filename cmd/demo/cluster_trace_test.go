package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/mcpactor/mcpactor/telemetry"
)

// TestDemoClusterTrace: --cluster 3 --trace FILE writes a trace that
// crosses members: the demo's span and the caller's hop span in FILE, the
// owner's serve span and its runtime's tools/call span in the owning
// member's FILE.<member>, all with the trace id the demo announces.
func TestDemoClusterTrace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the cluster demo kills a member with SIGKILL, which Windows does not have")
	}
	file := filepath.Join(t.TempDir(), "trace.jsonl")
	stdout := mustRun(t, "--cluster", "3", "--trace", file)
	m := regexp.MustCompile(`the first calls are trace ([0-9a-f]{32})`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("the output announces no trace:\n%s", stdout)
	}
	traceID := m[1]
	names := func(path string) map[string]bool {
		out := map[string]bool{}
		f, err := os.Open(path)
		if err != nil {
			return out
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var s span
			if json.Unmarshal(sc.Bytes(), &s) == nil && s.SpanContext.TraceID == traceID {
				out[s.Name] = true
			}
		}
		return out
	}
	caller := names(file)
	for _, want := range []string{"demo cluster first calls", hopSpan} {
		if !caller[want] {
			t.Errorf("%s has no span %q in trace %s: %v", file, want, traceID, caller)
		}
	}
	owners, _ := filepath.Glob(file + ".member-*")
	owner := map[string]bool{}
	for _, path := range owners {
		for name := range names(path) {
			owner[name] = true
		}
	}
	if !owner[hopSpan] || len(owner) < 2 {
		t.Errorf("the members' files %v have spans %v in trace %s; want the owner's serve span and its runtime's", owners, owner, traceID)
	}
}

// hopSpan is the name of the cluster hop's spans, its CLIENT side on the
// caller and its SERVER side on the owner (telemetry.StartHop).
const hopSpan = telemetry.SpanClusterHop
