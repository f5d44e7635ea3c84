package main

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// drawnRow is a span's row as the SVG holds it.
type drawnRow struct {
	depth                   int
	id, parent              string
	title, label, kindLabel string
}

var rowRE = regexp.MustCompile(`(?s)<g data-depth="(\d+)" data-span="(\w+)" data-parent="(\w*)"><title>([^<]*)</title>\n<text[^>]*>([^<]*)</text>\n(?:<text [^>]*font-size="10"[^>]*>([^<]*)</text>)?`)

func drawnRows(t *testing.T, svg string) []drawnRow {
	t.Helper()
	var rows []drawnRow
	for _, m := range rowRE.FindAllStringSubmatch(svg, -1) {
		d, err := strconv.Atoi(m[1])
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(html.UnescapeString(m[4]), "\n")
		rows = append(rows, drawnRow{depth: d, id: m[2], parent: m[3], title: first,
			label: html.UnescapeString(m[5]), kindLabel: html.UnescapeString(m[6])})
	}
	return rows
}

// TestRecordedTraces draws the traces of real demo runs, kept in
// testdata: the spans of go run ./cmd/demo --restart --trace demo.jsonl
// (a tools/call through the manager with the server's roots/list inside
// it, demo-1 killed, and the manager's restart of it, plus a refresh not
// asked for) and of go run ./cmd/demo --cluster 3 --trace cluster.jsonl
// (the caller's hops in cluster.jsonl, the owners' sides in
// cluster.jsonl.member-N; member-3 was killed before it wrote any, and
// member-1's first connection of search is a trace not asked for).
func TestRecordedTraces(t *testing.T) {
	out := filepath.Join(t.TempDir(), "w.svg")
	cfg := config{trace: "testdata/demo.jsonl, testdata/cluster.jsonl*", out: out, roots: defaultRoots, title: "t", children: 16}
	if err := run(&cfg); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(raw)

	// One section per root asked for, in order, each titled with its
	// root's label.
	last := -1
	for _, title := range []string{">demo server-request (trace ", ">demo restart (trace ",
		">mcpactor.connect · demo-1 reason=restart (trace ", ">demo cluster first calls (trace "} {
		i := strings.Index(svg, title)
		if i < 0 || i < last {
			t.Errorf("section %q missing or out of order", title)
		}
		last = i
	}
	for _, absent := range []string{"mcpactor.refresh", "reason=first"} {
		if strings.Contains(svg, absent) {
			t.Errorf("a trace not asked for was drawn (%q)", absent)
		}
	}

	rows := drawnRows(t, svg)
	// 3 + 2 + 3 rows for the demo's traces; the cluster's: its root, six
	// hops, and five of them with the owner's SERVER span and its
	// tools/call (the sixth went to member-3, whose spans were lost).
	if len(rows) != 3+2+3+1+6+5*2 {
		t.Fatalf("%d span rows, want 25:\n%+v", len(rows), rows)
	}
	// Depth first: every row's parent is the row above it one level up,
	// and a depth 0 row is its trace's root.
	var stack []drawnRow
	for _, r := range rows {
		if r.depth > len(stack) {
			t.Fatalf("row %q at depth %d under %d rows", r.title, r.depth, len(stack))
		}
		stack = append(stack[:r.depth], r)
		if r.depth > 0 && stack[r.depth-1].id != r.parent {
			t.Errorf("row %q: parent %s, but drawn under %q (%s)", r.title, r.parent, stack[r.depth-1].title, stack[r.depth-1].id)
		}
	}

	byLabel := map[string]drawnRow{}
	byID := map[string]drawnRow{}
	for _, r := range rows {
		byLabel[r.title+" | "+r.label] = r
		byID[r.id] = r
	}
	// chain checks that each row is the child of the one before it.
	chain := func(rows ...string) {
		t.Helper()
		for i, key := range rows {
			r, ok := byLabel[key]
			if !ok {
				t.Errorf("no row %q", key)
				return
			}
			if i == 0 {
				continue
			}
			if p := byID[r.parent]; p.title+" | "+p.label != rows[i-1] {
				t.Errorf("row %q is under %q, want %q", key, p.title+" | "+p.label, rows[i-1])
			}
		}
	}
	// A call through the manager, the server's request inside it (its
	// parent from the call's _meta).
	chain("INTERNAL demo server-request | demo server-request",
		"CLIENT tools/call ask-client | tools/call ask-client · demo-1",
		"SERVER roots/list | roots/list · demo-1")
	if k := byLabel["SERVER roots/list | roots/list · demo-1"].kindLabel; k != "SERVER ↖" {
		t.Errorf("roots/list kind column %q, want SERVER with a remote parent", k)
	}
	// The kill, and the restart: a trace of its own, the handshake under
	// the connection's span.
	chain("INTERNAL demo restart | demo restart", "CLIENT tools/call crash | tools/call crash · demo-1")
	if !strings.Contains(svg, "error.type=transport_closed") {
		t.Error("the crash call's error.type is not shown")
	}
	chain("INTERNAL mcpactor.connect | mcpactor.connect · demo-1 reason=restart", "CLIENT initialize | initialize · demo-1")
	chain("INTERNAL mcpactor.connect | mcpactor.connect · demo-1 reason=restart", "CLIENT notifications/initialized | notifications/initialized · demo-1")
	// A call across members: the caller's span, its hop, the owner's side
	// of the hop (from member-1's file) and the owner's call.
	chain("INTERNAL demo cluster first calls | demo cluster first calls",
		"CLIENT mcpactor.cluster.hop | mcpactor.cluster.hop · search demo → member-1",
		"SERVER mcpactor.cluster.hop | mcpactor.cluster.hop · search demo → member-1",
		"CLIENT tools/call echo | tools/call echo · search")
	chain("CLIENT mcpactor.cluster.hop | mcpactor.cluster.hop · notes demo → member-2",
		"SERVER mcpactor.cluster.hop | mcpactor.cluster.hop · notes demo → member-2",
		"CLIENT tools/call echo | tools/call echo · notes")
	if hop := byLabel["SERVER mcpactor.cluster.hop | mcpactor.cluster.hop · search demo → member-1"]; hop.kindLabel != "SERVER ↖" {
		t.Errorf("the owner's hop span: kind column %q, want SERVER with a remote parent", hop.kindLabel)
	}
}

// TestSelector: name[key=value] picks the first root with that
// attribute, not merely the first of that name.
func TestSelector(t *testing.T) {
	var spans []*span
	for _, f := range []string{"testdata/demo.jsonl", "testdata/cluster.jsonl.member-1"} {
		got, err := readFile(f)
		if err != nil {
			t.Fatal(err)
		}
		spans = append(spans, got...)
	}
	rs := roots(spans)
	for _, tc := range []struct{ sel, server, reason string }{
		{"mcpactor.connect", "demo-1", "restart"}, // the demo's run came first
		{"mcpactor.connect[mcpactor.task.reason=restart]", "demo-1", "restart"},
		{"mcpactor.connect[mcpactor.task.reason=first]", "search", "first"},
		{" mcpactor.connect [ mcpactor.server.name = search ]", "search", "first"},
	} {
		sel, err := parseSelector(strings.TrimSpace(tc.sel))
		if err != nil {
			t.Fatalf("%q: %v", tc.sel, err)
		}
		got, err := pick(rs, []selector{sel})
		if err != nil {
			t.Fatalf("%q: %v", tc.sel, err)
		}
		if s := got[0]; s.attrs["mcpactor.server.name"] != tc.server || s.attrs["mcpactor.task.reason"] != tc.reason {
			t.Errorf("%q picked %s %v", tc.sel, s.name, s.attrs)
		}
	}
	if _, err := pick(rs, []selector{{name: "mcpactor.connect", key: "mcpactor.task.reason", value: "repair"}}); err == nil ||
		!strings.Contains(err.Error(), `no root span "mcpactor.connect[mcpactor.task.reason=repair]"`) {
		t.Errorf("a selector matching nothing: %v", err)
	}
	for _, bad := range []string{"x[", "x[key]", "x[=v]", "x[k=v"} {
		if _, err := parseSelector(bad); err == nil {
			t.Errorf("parseSelector(%q) = nil error", bad)
		}
	}
}
