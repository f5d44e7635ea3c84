package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDemoRestart: with --restart the demo kills demo-1 through the
// manager and the manager restarts it. The manager's status shows the
// restart, and the trace file holds it as a trace of its own: an
// mcpactor.connect root with mcpactor.task.reason=restart for demo-1, the
// new handshake's initialize under it (docs/telemetry.md draws it), and
// the killing call in the restart step's trace.
func TestDemoRestart(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	stdout := mustRun(t, "--servers", "2", "--calls", "100", "--concurrency", "8", "--slow", "0", "--no-cache",
		"--restart", "--trace", trace)
	for _, want := range []string{
		"== a managed server is killed and restarted by the manager",
		"demo-1 killed: MCP server \"demo-1\": tools/call: Transport closed: exit status 3",
		"demo-1 restarted by the manager in",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	_, table, _ := strings.Cut(stdout, "\n== manager status\n")
	table, _, _ = strings.Cut(table, "\n== ")
	rows, header := readTable(table)
	col := func(server, c string) string {
		row, i := rows[server], slices.Index(header, c)
		if i < 0 || i >= len(row) {
			return ""
		}
		return row[i]
	}
	if col("demo-1", "state") != "ready" || col("demo-1", "restarts") != "1" || col("demo-1", "gen") != "2" {
		t.Errorf("demo-1 after the restart: %q", rows["demo-1"])
	}
	if col("demo-2", "restarts") != "0" {
		t.Errorf("demo-2 restarted too: %q", rows["demo-2"])
	}

	type recorded struct {
		Name        string
		SpanContext struct{ TraceID, SpanID string }
		Parent      struct{ SpanID string }
		Attributes  []struct {
			Key   string
			Value struct{ Value any }
		}
	}
	spans := readJSONLines[recorded](t, trace)
	attr := func(s recorded, key string) any {
		for _, a := range s.Attributes {
			if a.Key == key {
				return a.Value.Value
			}
		}
		return nil
	}
	isRoot := func(s recorded) bool { return strings.Trim(s.Parent.SpanID, "0") == "" }
	var restarts []recorded
	stepTrace := ""
	for _, s := range spans {
		if isRoot(s) && s.Name == "mcpactor.connect" && attr(s, "mcpactor.task.reason") == "restart" {
			restarts = append(restarts, s)
		}
		if isRoot(s) && s.Name == "demo restart" {
			stepTrace = s.SpanContext.TraceID
		}
	}
	if len(restarts) != 1 || attr(restarts[0], "mcpactor.server.name") != "demo-1" {
		t.Fatalf("restart roots = %+v, want one, of demo-1", restarts)
	}
	var initialize, crash bool
	for _, s := range spans {
		if s.Name == "initialize" && s.Parent.SpanID == restarts[0].SpanContext.SpanID &&
			s.SpanContext.TraceID == restarts[0].SpanContext.TraceID {
			initialize = true
		}
		if s.Name == "tools/call crash" && s.SpanContext.TraceID == stepTrace && attr(s, "error.type") == "transport_closed" {
			crash = true
		}
	}
	if !initialize {
		t.Error("no initialize under the restart's mcpactor.connect span")
	}
	if !crash {
		t.Error("no failed tools/call crash in the restart step's trace")
	}
}
