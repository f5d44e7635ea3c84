package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// summary is one client's medians over rounds in one scenario, each
// per-session value divided by the sessions.
type summary struct {
	sessions   int
	bringUp    float64   // seconds
	bringUps   []float64 // per round, for the per-round ratio
	minUp      float64
	maxUp      float64
	upCPU      float64 // seconds per session
	rssRest    float64 // bytes per session
	floor      float64
	heapInuse  float64
	stacks     float64
	goroutines float64
	calls      measure.Summary
	protocol   string
	errors     int
	firstErr   string
}

func summarize(rs []result, sessions int) summary {
	s := summary{sessions: sessions}
	var up, cpu, rest, floor, heap, stacks, gs []float64
	var samples []measure.Sample
	for _, r := range rs {
		up = append(up, r.BringUp.Seconds())
		cpu = append(cpu, perSession(r.BringUpCPU.Seconds(), sessions))
		rest = append(rest, perSession(float64(r.RSSRest), sessions))
		floor = append(floor, perSession(float64(r.Floor), sessions))
		heap = append(heap, perSession(float64(r.HeapInuse), sessions))
		stacks = append(stacks, perSession(float64(r.Stacks), sessions))
		gs = append(gs, perSession(float64(r.Goroutines), sessions))
		if r.Calls.Calls > 0 {
			samples = append(samples, r.Calls)
		}
		if r.Protocol != "" {
			s.protocol = r.Protocol
		}
		s.errors += r.Errors
		if s.firstErr == "" {
			s.firstErr = r.FirstErr
		}
	}
	if len(up) > 0 {
		s.minUp, s.maxUp = slices.Min(up), slices.Max(up)
	}
	s.bringUp, s.bringUps = measure.Median(up), up
	s.upCPU, s.rssRest, s.floor = measure.Median(cpu), measure.Median(rest), measure.Median(floor)
	s.heapInuse, s.stacks, s.goroutines = measure.Median(heap), measure.Median(stacks), measure.Median(gs)
	if len(samples) > 0 {
		s.calls = measure.Summarize(samples)
	}
	return s
}

// The descriptions of the clients, by scenario kind.
var clientDescs = map[string]string{
	"stdio/" + measure.OursName:     "mcpactor: one `Manager` (`rt.Manage`, `MaxConnecting` = the parallelism), calls by `Manager.CallTool`",
	"stdio/gosdk":                   "go-sdk: one `mcp.Client`, a session per server (`CommandTransport`)",
	"stdio/mcpgo":                   "mcp-go: a `client.NewStdioMCPClient` per server",
	"stdio/" + measure.BlockingName: "blocking: the blocking-API reference (bench/internal/refclient), one per server",
	"http/" + measure.OursName:      "mcpactor: one runtime, `rt.Connect` per identity (`ServerConfig.Identity`); no handler, so no GET stream",
	"http/" + listeningName:         "mcpactor-listening: the same with a notification handler (as a `Manager` has): each session holds the GET stream for the server's own messages",
	"http/gosdk":                    "go-sdk: one `mcp.Client`, a session per identity (`StreamableClientTransport`, one shared tuned `http.Client`); each holds the GET stream",
	"http/mcpgo":                    "mcp-go: a `client.NewStreamableHttpClient` per identity (one shared tuned `http.Client`); no GET stream (its default)",
	"http/" + measure.WireName:      "wire: a hand-written client on net/http, a session per identity (one shared tuned `http.Client`)",
}

func clientDesc(sc scenario, client string) string {
	kind := "stdio"
	if sc.server == serverHTTP {
		kind = "http"
	}
	if d, ok := clientDescs[kind+"/"+client]; ok {
		return d
	}
	return client
}

// scenarioTitle is a scenario's heading in the report.
func scenarioTitle(sc scenario, n int) string {
	switch sc.name {
	case scenarioRest:
		return fmt.Sprintf("%d stdio servers at rest (the fast server)", n)
	case scenarioStdio:
		return fmt.Sprintf("%d stdio servers (the fast server), calls spread over all of them", n)
	}
	return fmt.Sprintf("%d Streamable HTTP sessions to one server (mcpactor's test server in HTTP mode, a process of its own), one per identity, calls spread over all of them", n)
}

func render(cfg *config, results map[key][]result, note string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### One runtime at scale: medians over %d rounds\n\n", cfg.rounds)
	measure.WriteRunInfo(&b, "scale")
	for _, line := range []string{cfg.noise.ReportLine(), note} {
		if line != "" {
			fmt.Fprintf(&b, "- %s\n", line)
		}
	}
	par := "all at once"
	if cfg.parallel > 0 {
		par = fmt.Sprintf("%d at a time", cfg.parallel)
	}
	fmt.Fprintf(&b, "- each measurement is a process of its own; every client brings its sessions up %s; a session is up once it has answered an echo call\n\n", par)

	for _, name := range cfg.scenarios {
		sc, _ := scenarioByName(name)
		n := cfg.sessions[name]
		fmt.Fprintf(&b, "**%s:**\n\n", scenarioTitle(sc, n))
		head := "| client | bring-up | min–max | vs " + sc.reference + " | client CPU/session | RSS at rest/session | floor/session | heap in use/session | stacks/session | goroutines/session |"
		sep := "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
		if sc.calls {
			head += fmt.Sprintf(" calls/s (%d in flight) | min–max | p50 | p99 | client CPU/call | allocs/call |", cfg.inflight)
			sep += "---:|---:|---:|---:|---:|---:|"
		}
		b.WriteString(head + " protocol | status |\n" + sep + "---|---|\n")
		ref := summarize(results[key{name, sc.reference}], n)
		for _, client := range cfg.clientsOf(sc) {
			s := summarize(results[key{name, client}], n)
			vs := "–"
			if ref.bringUp > 0 && s.bringUp > 0 {
				vs = fmt.Sprintf("%.2f (%.2f)", s.bringUp/ref.bringUp, measure.RoundRatio(s.bringUps, ref.bringUps))
			}
			fmt.Fprintf(&b, "| %s | %s | %s–%s | %s | %s | %s | %s | %s | %s | %.2f |",
				clientDesc(sc, client), secs(s.bringUp), secs(s.minUp), secs(s.maxUp), vs,
				measure.Dur(time.Duration(s.upCPU*float64(time.Second))),
				measure.Bytes(s.rssRest), measure.Bytes(s.floor), measure.Bytes(s.heapInuse), measure.Bytes(s.stacks), s.goroutines)
			if sc.calls {
				c := s.calls
				fmt.Fprintf(&b, " %.0f | %.0f–%.0f | %s | %s | %s | %.1f |", c.Rate, c.MinRate, c.MaxRate,
					measure.Dur(c.P50), measure.Dur(c.P99), measure.Dur(c.CPU), c.Allocs)
			}
			status := "ok"
			if s.errors > 0 {
				status = fmt.Sprintf("**FLAGGED**: %d errors (%s)", s.errors, measure.OneLine(s.firstErr))
			}
			fmt.Fprintf(&b, " %s | %s |\n", s.protocol, status)
		}
		b.WriteString("\n")
	}
	b.WriteString("bring-up: from before the first session is started until every one has answered its first echo call; " +
		"vs the reference: ratio of the medians, in brackets the median of the per-round ratios; " +
		"client CPU: this process's user+system CPU time during the bring-up, per session (the servers' own CPU is not in it); " +
		"memory per session: after minus before, divided by the sessions; before is read after runtime.GC and debug.FreeOSMemory; " +
		"RSS at rest is VmRSS after the rest, no collection forced, as a program at rest holds it; floor is VmRSS after runtime.GC and debug.FreeOSMemory; " +
		"heap in use and stacks are MemStats' after that collection; calls: echo-unique, each call to the next session in turn, every answer checked.\n")
	return b.String()
}

func secs(s float64) string { return measure.Dur(time.Duration(s * float64(time.Second))) }

// Extra's names in the results, which cmd/benchrun's targets read.
const (
	extraBringUp    = "bringUpSeconds"
	extraUpCPU      = "bringUpCPUSecondsPerSession"
	extraRSSRest    = "rssAtRestPerSession"
	extraFloor      = "rssFloorPerSession"
	extraHeapInuse  = "heapInusePerSession"
	extraStacks     = "stacksPerSession"
	extraGoroutines = "goroutinesPerSession"
	extraInFlight   = "callsInFlight"
)

// resultsOf is every client's medians, in cmd/benchrun's form: the load
// is the scenario, InFlight the sessions.
func resultsOf(cfg *config, results map[key][]result) []measure.Result {
	var out []measure.Result
	for _, name := range cfg.scenarios {
		sc, _ := scenarioByName(name)
		n := cfg.sessions[name]
		for _, client := range cfg.clientsOf(sc) {
			s := summarize(results[key{name, client}], n)
			r := measure.NewResult("scale", sc.server, name, client, n, s.calls)
			r.Errors = uint64(s.errors)
			r.Extra = map[string]float64{
				extraBringUp: s.bringUp, extraUpCPU: s.upCPU, extraRSSRest: s.rssRest, extraFloor: s.floor,
				extraHeapInuse: s.heapInuse, extraStacks: s.stacks, extraGoroutines: s.goroutines,
			}
			if sc.calls {
				r.Extra[extraInFlight] = float64(cfg.inflight)
			}
			out = append(out, r)
		}
	}
	return out
}
