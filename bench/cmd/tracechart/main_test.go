package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// line is one span as the stdout exporter writes it.
func line(t *testing.T, name, trace, id, parent string, kind int, start, end time.Time, attrs map[string]any, written time.Time, status string) string {
	t.Helper()
	var kvs []map[string]any
	for k, v := range attrs {
		kvs = append(kvs, map[string]any{"Key": k, "Value": map[string]any{"Type": "STRING", "Value": v}})
	}
	var events []map[string]any
	if !written.IsZero() {
		events = append(events, map[string]any{"Name": "mcpactor.written", "Time": written})
	}
	if parent == "" {
		parent = noSpan
	}
	b, err := json.Marshal(map[string]any{
		"Name":        name,
		"SpanContext": map[string]any{"TraceID": trace, "SpanID": id},
		"Parent":      map[string]any{"TraceID": trace, "SpanID": parent, "Remote": false},
		"SpanKind":    kind, "StartTime": start, "EndTime": end,
		"Attributes": kvs, "Events": events,
		"Status": map[string]any{"Code": status, "Description": ""},
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWaterfall(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	const tr, other = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	lines := []string{
		line(t, "demo burst", tr, "0000000000000001", "", kindInternal, ms(0), ms(100), nil, time.Time{}, "Unset"),
		line(t, "demo other", other, "00000000000000f1", "", kindInternal, ms(0), ms(5), nil, time.Time{}, "Unset"),
	}
	// Ten calls under the root (written 5 ms after they start), the last
	// one failed; the fourth has a SERVER child.
	for i := range 10 {
		status, attrs := "Unset", map[string]any{"mcpactor.server.name": "demo-1"}
		if i == 9 {
			status, attrs["error.type"] = "Error", "timeout"
		}
		lines = append(lines, line(t, "tools/call echo", tr, fmt.Sprintf("%016x", 0x10+i), "0000000000000001", kindClient,
			ms(10+i), ms(20+5*i), attrs, ms(15+i), status))
	}
	lines = append(lines, line(t, "roots/list <&>", tr, "0000000000000099", fmt.Sprintf("%016x", 0x13), kindServer, ms(14), ms(16), nil, time.Time{}, "Unset"))
	file := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "w.svg")
	if err := run(&config{trace: file, out: out, roots: "demo burst", title: "t", children: 5}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(raw)
	if !strings.HasPrefix(svg, "<svg ") || !strings.HasSuffix(svg, "</svg>\n") {
		t.Fatalf("not an SVG document:\n%s", svg)
	}
	// The root, four calls (the fourth with its SERVER child, escaped),
	// and one row for the six calls left out, one of them failed.
	for _, want := range []string{">demo burst (trace aaaaaaaa, 100 ms)<", ">demo burst<", ">roots/list &lt;&amp;&gt;<",
		"… 6 × tools/call echo", "6 spans left out, 1 with status Error"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	if n := strings.Count(svg, ">tools/call echo · demo-1<"); n != 4 {
		t.Errorf("call rows = %d, want 4", n)
	}
	if strings.Contains(svg, "demo other") {
		t.Error("a trace not asked for was drawn")
	}
	// Depth first: the SERVER child follows its parent, the fourth call.
	rowsAt := func(s string) int { return strings.Index(svg, s) }
	if i, j := rowsAt("trace aaaaaaaa"), rowsAt("roots/list"); i < 0 || j < i {
		t.Errorf("rows out of order")
	}
	// A call's wait before its send is drawn lighter, then the rest.
	if !strings.Contains(svg, `fill-opacity="0.3"`) {
		t.Error("no wait before the send drawn")
	}
	rows := flatten(roots(mustRead(t, file))[0], 5)
	if len(rows) != 1+4+1+1 || rows[5].s == nil || rows[5].s.name != "roots/list <&>" || rows[5].depth != 2 || rows[6].s != nil || rows[6].hidden != 6 {
		t.Fatalf("rows = %+v", rows)
	}
	// The six left out start at 14 to 19 ms and end at 40 to 65 ms.
	if got := rows[6].end.Sub(rows[6].start); got != 51*time.Millisecond {
		t.Errorf("summary row spans %v, want 51ms", got)
	}
}

func mustRead(t *testing.T, file string) []*span {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	spans, err := readSpans(f)
	if err != nil {
		t.Fatal(err)
	}
	return spans
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"Name\": \"x\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.jsonl")
	t0 := time.Now()
	if err := os.WriteFile(good, []byte(line(t, "demo gate", "cc", "01", "", kindInternal, t0, t0.Add(time.Millisecond), nil, time.Time{}, "Unset")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "w.svg")
	for _, tc := range []struct {
		cfg  config
		want string
	}{
		{config{out: out, roots: "demo gate", children: 5}, "-trace FILE is required"},
		{config{trace: bad, out: out, roots: "demo gate", children: 5}, "line 1: a span without trace or span id"},
		{config{trace: good, out: out, roots: "demo nothing", children: 5}, `no root span "demo nothing" (the files' roots: demo gate)`},
		{config{trace: good, out: out, roots: "demo gate", children: 1}, "-children must be at least 2"},
		{config{trace: good + "," + filepath.Join(dir, "none*.jsonl"), out: out, roots: "demo gate", children: 5}, "none*.jsonl\": file does not exist"},
		{config{trace: good, out: out, roots: "demo gate[x]", children: 5}, `-roots "demo gate[x]": want name or name[key=value]`},
	} {
		if err := run(&tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an SVG was written after an error: %v", err)
	}
}
