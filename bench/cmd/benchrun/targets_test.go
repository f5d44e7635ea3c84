package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// targetNamed is the one target whose description has every part, or
// fails the test.
func targetNamed(t *testing.T, parts ...string) target {
	t.Helper()
	var found []target
	for _, tg := range targets() {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(tg.what, p)
		}
		if all {
			found = append(found, tg)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d targets with %q, want 1", len(found), parts)
	}
	return found[0]
}

// TestTargetsRestated checks the targets as issue 40 restated them: the
// 2026-07-28 bytes per call bound is gone and its allocation bound kept;
// memory per in-flight call against the blocking reference; resident
// memory at rest over the leaner peer's; HTTP calls/s, CPU and
// allocations against the hand-written client at 16 and 256 in flight in
// both eras; the scale step's memory and bring-up.
func TestTargetsRestated(t *testing.T) {
	for _, tg := range targets() {
		if strings.Contains(tg.what, "2026-07-28") && strings.Contains(tg.what, "bytes") {
			t.Errorf("dropped target still there: %s", tg.what)
		}
	}
	for _, n := range []string{"at 1 in", "at 16 in", "at 256 in"} {
		if tg := targetNamed(t, "stdio 2026-07-28 echo-fixed "+n, "allocations"); tg.limit != 8 || !tg.atMost {
			t.Errorf("%s: limit %v", tg.what, tg.limit)
		}
		if tg := targetNamed(t, "stdio echo-fixed "+n, "client CPU per call"); tg.limit != 1.3 || !tg.atMost {
			t.Errorf("%s: limit %v", tg.what, tg.limit)
		}
	}

	res := func(step, server, load, client string, n int, set func(*measure.Result)) measure.Result {
		r := measure.Result{Bench: step, Server: server, Load: load, Client: client, InFlight: n}
		set(&r)
		return r
	}
	extra := func(k string, v float64) func(*measure.Result) {
		return func(r *measure.Result) { r.Extra = map[string]float64{k: v} }
	}
	all := suite{
		"inflight": {
			res("inflight", "fast", "sleep-1000ms", ours, 10000, extra("bytesPerInFlightCall", 6300)),
			res("inflight", "fast", "sleep-1000ms", blocking, 10000, extra("bytesPerInFlightCall", 6000)),
		},
		"idle": {
			res("idle", "fast", "idle", ours, 1, extra("rssOverNone", 4.5e6)),
			res("idle", "fast", "idle", "gosdk", 1, extra("rssOverNone", 1.3e6)),
			res("idle", "fast", "idle", "mcpgo", 1, extra("rssOverNone", 0.2e6)),
		},
		"http": {
			res("http", "gosdk-stateless", "echo-unique", ours, 256, func(r *measure.Result) { r.Rate, r.CPU, r.Allocs = 900, 26, 95 }),
			res("http", "gosdk-stateless", "echo-unique", measure.WireName, 256, func(r *measure.Result) { r.Rate, r.CPU, r.Allocs = 1000, 20, 80 }),
		},
		"scale": {
			res("scale", "fast", "stdio", ours, scaleStdioServers, func(r *measure.Result) {
				r.Extra = map[string]float64{scaleRSSRest: 150e3, scaleBringUp: 2.2}
			}),
			res("scale", "fast", "stdio", "gosdk", scaleStdioServers, extra(scaleRSSRest, 100e3)),
			res("scale", "fast", "stdio", "mcpgo", scaleStdioServers, extra(scaleRSSRest, 120e3)),
			res("scale", "fast", "stdio", blocking, scaleStdioServers, extra(scaleBringUp, 2)),
		},
	}
	for _, c := range []struct {
		parts  []string
		want   float64
		limit  float64
		atMost bool
	}{
		{[]string{"memory per in-flight call vs the blocking"}, 1.05, 1.1, true},
		{[]string{"resident memory with one stdio server", "over the leaner peer's"}, 4.3e6, 4e6, true},
		{[]string{"at 256 in flight (the go-sdk server, 2026-07-28)", "calls/s"}, 0.9, 0.85, false},
		{[]string{"at 256 in flight (the go-sdk server, 2026-07-28)", "CPU per call"}, 1.3, 1.3, true},
		{[]string{"at 256 in flight (the go-sdk server, 2026-07-28)", "allocations per call over"}, 15, 10, true},
		{[]string{"500 stdio servers under one Manager: resident memory per server"}, 1.5, 1, true},
		{[]string{"500 stdio servers under one Manager: bring-up"}, 1.1, 1, true},
	} {
		tg := targetNamed(t, c.parts...)
		got, ok := tg.value(all)
		if !ok || got < c.want-1e-9 || got > c.want+1e-9 || tg.limit != c.limit || tg.atMost != c.atMost {
			t.Errorf("%s: %v (measured: %v), limit %v at most %v; want %v, limit %v at most %v",
				tg.what, got, ok, tg.limit, tg.atMost, c.want, c.limit, c.atMost)
		}
	}
	for _, server := range []string{"(mcpactor's test server)", "(the go-sdk server)", "(the go-sdk server, 2026-07-28)"} {
		for _, n := range []string{"at 16 in flight", "at 256 in flight"} {
			for _, what := range []string{"calls/s", "CPU per call", "allocations per call over"} {
				targetNamed(t, "Streamable HTTP", n+" "+server, what)
			}
		}
	}
	// A scale target whose peers were not all measured is not judged.
	delete(all, "scale")
	if _, ok := targetNamed(t, "1000 Streamable HTTP sessions", "resident memory").value(all); ok {
		t.Errorf("judged without results")
	}
}

// TestJudge runs the runner with -judge on a copy of the real page and its
// saved results: the targets are judged again and no step's block, nor
// the run's, changes.
func TestJudge(t *testing.T) {
	root := filepath.Join("..", "..", "..", "docs")
	page, err := os.ReadFile(filepath.Join(root, "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(filepath.Join(root, "charts", resultsFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	docs, charts := filepath.Join(dir, "benchmarks.md"), filepath.Join(dir, "charts")
	// A page whose targets block is stale.
	stale, err := replaceBlock(string(page), blockTargets, "stale\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(docs, []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(charts, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(charts, resultsFile), saved, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(&config{judge: true, docs: docs, charts: charts}, os.Stderr); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(docs)
	if err != nil {
		t.Fatal(err)
	}
	all, err := loadSuite(filepath.Join(charts, resultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if between(string(got), blockTargets) != "\n"+strings.TrimSpace(targetsBlock(all))+"\n" {
		t.Errorf("targets block not judged again:\n%s", between(string(got), blockTargets))
	}
	for _, name := range append(stepNames(), blockRun) {
		if between(string(got), name) != between(string(page), name) {
			t.Errorf("block %s changed", name)
		}
	}
}
