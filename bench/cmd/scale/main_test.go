package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// TestMain lets the test binary serve as the fast server, as the HTTP
// test server and as a measurement process, when re-executed.
func TestMain(m *testing.M) {
	runIfChild()
	os.Exit(m.Run())
}

// tinyConfig is every scenario at a few sessions, one short round.
func tinyConfig() *config {
	return &config{
		scenarios: scenarioNames(),
		sessions:  map[string]int{scenarioRest: 3, scenarioStdio: 4, scenarioHTTP: 5},
		parallel:  2, inflight: 4, rounds: 1,
		duration: 150 * time.Millisecond, warmup: 20 * time.Millisecond, rest: 10 * time.Millisecond,
		timeout: time.Minute,
		noise:   measure.Noise{MaxOthers: 1},
	}
}

// TestScenariosRowsComplete runs every scenario at a tiny size, each
// client in a process of its own as the command does, and checks that
// every row is complete: every session came up and answered, each number
// of the row was read, calls were made where the scenario makes them,
// and the report has the row. It asserts nothing about speed or memory.
func TestScenariosRowsComplete(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers and measurement processes")
	}
	cfg := tinyConfig()
	results := run(cfg)
	rows := resultsOf(cfg, results)

	want := 0
	for _, name := range cfg.scenarios {
		sc, _ := scenarioByName(name)
		want += len(sc.clients)
		for _, client := range sc.clients {
			rs := results[key{name, client}]
			if len(rs) != 1 {
				t.Fatalf("%s/%s: %d results, want 1", name, client, len(rs))
			}
			r := rs[0]
			if r.Errors > 0 {
				t.Errorf("%s/%s: %d errors: %s", name, client, r.Errors, r.FirstErr)
			}
			if r.Sessions != cfg.sessions[name] || r.BringUp <= 0 || r.BringUpCPU <= 0 || r.Protocol == "" {
				t.Errorf("%s/%s: incomplete bring-up: %+v", name, client, r)
			}
			if sc.calls && (r.Calls.Calls == 0 || r.Calls.Rate <= 0 || r.Calls.P50 <= 0) {
				t.Errorf("%s/%s: no calls measured: %+v", name, client, r.Calls)
			}
			if !sc.calls && r.Calls.Calls != 0 {
				t.Errorf("%s/%s: calls made in a scenario at rest", name, client)
			}
		}
	}
	if len(rows) != want {
		t.Fatalf("%d result rows, want %d", len(rows), want)
	}
	for _, r := range rows {
		sc, _ := scenarioByName(r.Load)
		for _, k := range []string{extraBringUp, extraUpCPU, extraRSSRest, extraFloor, extraHeapInuse, extraStacks, extraGoroutines} {
			if _, ok := r.Extra[k]; !ok {
				t.Errorf("%s/%s: no %s in the row", r.Load, r.Client, k)
			}
		}
		if r.Extra[extraBringUp] <= 0 || r.InFlight != cfg.sessions[r.Load] || r.Server != sc.server {
			t.Errorf("%s/%s: row %+v", r.Load, r.Client, r)
		}
		if sc.calls && (r.Rate <= 0 || r.Extra[extraInFlight] != float64(cfg.inflight)) {
			t.Errorf("%s/%s: row without calls: %+v", r.Load, r.Client, r)
		}
	}

	report := render(cfg, results, "")
	for _, name := range cfg.scenarios {
		sc, _ := scenarioByName(name)
		for _, client := range sc.clients {
			desc := clientDesc(sc, client)
			if desc == client {
				t.Errorf("%s/%s: no description", name, client)
			}
			if !strings.Contains(report, "| "+desc+" |") {
				t.Errorf("the report has no row for %s/%s:\n%s", name, client, report)
			}
		}
	}
	if strings.Contains(report, "FLAGGED") {
		t.Errorf("a row is flagged:\n%s", report)
	}
}

// countingFleet answers every call with its message and counts the calls
// each session got.
type countingFleet struct {
	mu    sync.Mutex
	calls map[int]int
}

func (f *countingFleet) call(_ context.Context, i int, _ string, args json.RawMessage) (string, error) {
	f.mu.Lock()
	f.calls[i]++
	f.mu.Unlock()
	var a struct{ Message string }
	err := json.Unmarshal(args, &a)
	return a.Message, err
}

func (*countingFleet) protocol() string            { return "test" }
func (*countingFleet) close(context.Context) error { return nil }

// TestSpreadReachesEverySession checks that the calls of a measurement go
// to every session that came up, alike, and never to one that did not.
func TestSpreadReachesEverySession(t *testing.T) {
	f := &countingFleet{calls: map[int]int{}}
	live := []int{0, 2, 3, 5}
	s := &spread{f: f, live: live}
	for i := range 4 * 25 {
		msg := fmt.Sprintf("m%d", i)
		got, err := s.Call(context.Background(), "echo", measure.AppendArgs(nil, "message", msg))
		if err != nil || got != msg {
			t.Fatalf("call %d: %q, %v", i, got, err)
		}
	}
	if len(f.calls) != len(live) {
		t.Fatalf("sessions called: %v, want %v", f.calls, live)
	}
	for _, i := range live {
		if f.calls[i] != 25 {
			t.Errorf("session %d got %d calls, want 25 (%v)", i, f.calls[i], f.calls)
		}
	}
}

// TestLimitedBoundsParallelism checks that a bring-up at parallelism p
// never has more than p sessions starting at once, and starts them all.
func TestLimitedBoundsParallelism(t *testing.T) {
	var mu sync.Mutex
	cur, peak, done := 0, 0, 0
	limited(40, 3, func(int) {
		mu.Lock()
		cur++
		peak = max(peak, cur)
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		cur--
		done++
		mu.Unlock()
	})
	if peak > 3 || done != 40 {
		t.Fatalf("peak %d at once (want at most 3), %d done (want 40)", peak, done)
	}
}
