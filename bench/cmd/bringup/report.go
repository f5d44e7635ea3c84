package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// The targets of the bring-up benchmark.
const (
	targetTimeRatio  = 1.10 // mcpactor's bring-up time over the hand-written client's
	targetHeapPerSes = 60   // KB of heap in use per session, for mcpactor
)

func render(cfg *config, kinds []string, results map[key][]result, note string) string {
	var b bytes.Buffer
	evRounds := min(cfg.rounds, cfg.evRounds)
	if slices.Contains(kinds, "everything") && evRounds != cfg.rounds {
		fmt.Fprintf(&b, "### Bring-up of stdio servers: medians over %d rounds (%d for server-everything)\n\n", cfg.rounds, evRounds)
	} else {
		fmt.Fprintf(&b, "### Bring-up of stdio servers: medians over %d rounds\n\n", cfg.rounds)
	}
	measure.WriteRunInfo(&b, "bringup")
	for _, line := range append([]string{cfg.noise.ReportLine()}, strings.Split(note, "\n")...) {
		if line != "" {
			fmt.Fprintf(&b, "- %s\n", line)
		}
	}
	b.WriteString("\n")

	for _, kind := range kinds {
		n := cfg.servers
		desc := "mcpactor's internal/testserver, default options (the bringup binary re-executed with MCPACTOR_TESTSERVER=1)"
		if cfg.serverPath != "" && kind == "testserver" {
			desc = "mcpactor's internal/testserver, default options (bench/cmd/benchserver, `" + filepath.Base(cfg.serverPath) + "`)"
		}
		if kind == "everything" {
			n = cfg.everything
			desc = "@modelcontextprotocol/server-everything on Node (`node dist/index.js stdio`)"
		}
		fmt.Fprintf(&b, "**%d × %s:**\n\n", n, desc)
		b.WriteString("| client | bring-up | min–max over rounds | vs wire | client CPU/session | heap in use/session | live heap/session | stacks/session | RSS Δ/session | peak RSS Δ/session | goroutines/session | tools/server | status |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
		wire := summarize(results[key{kind, "wire"}])
		for _, name := range cfg.clients {
			rs := results[key{kind, name}]
			c := summarize(rs)
			d, _ := driverByName(name)
			vs := "–"
			if wire.elapsed > 0 && c.elapsed > 0 {
				vs = fmt.Sprintf("%.2f (%.2f)", c.elapsed/wire.elapsed, measure.RoundRatio(c.rounds, wire.rounds))
			}
			status := "ok"
			if c.errors > 0 {
				status = fmt.Sprintf("**FLAGGED**: %d servers failed (%s)", c.errors, measure.OneLine(c.firstErr))
			}
			fmt.Fprintf(&b, "| %s: %s | %s | %s–%s | %s | %s | %.1f KB | %.1f KB | %.1f KB | %s | %s | %.2f | %d | %s |\n",
				name, d.label, measure.Dur(time.Duration(c.elapsed)), measure.Dur(time.Duration(c.minElapsed)), measure.Dur(time.Duration(c.maxElapsed)), vs, measure.Dur(time.Duration(c.cpu/float64(n))),
				c.heapInuse/float64(n)/1024, c.heapAlloc/float64(n)/1024, c.stackInuse/float64(n)/1024,
				kbOrDash(c.rss/float64(n)), kbOrDash(c.peakRSS/float64(n)), c.goroutines/float64(n), c.tools, status)
		}
		b.WriteString("\n")
		if kind == "testserver" {
			writeTargets(&b, cfg, results, n)
		}
	}
	b.WriteString("bring-up: from before the runtime (or first client) is made until every server has answered tools/list; " +
		"vs wire: ratio of the medians, in brackets the median of the per-round ratios; client CPU: this process's user+system CPU time during the bring-up, divided by the number of servers (the servers' own CPU is not in it); memory: after minus before the bring-up, " +
		"divided by the number of servers, both read after runtime.GC and debug.FreeOSMemory (heap in use: MemStats.HeapInuse; " +
		"live heap: MemStats.HeapAlloc; stacks: MemStats.StackInuse; RSS: VmRSS; peak RSS: VmHWM at the end minus VmRSS before).\n")
	return b.String()
}

// writeTargets says whether mcpactor met the targets.
func writeTargets(b *bytes.Buffer, cfg *config, results map[key][]result, n int) {
	wire := summarize(results[key{"testserver", "wire"}])
	if wire.elapsed == 0 {
		return
	}
	b.WriteString("Targets (test servers): ")
	var parts []string
	for _, name := range []string{"manage", "manage-all", "connect"} {
		if !slices.Contains(cfg.clients, name) {
			continue
		}
		c := summarize(results[key{"testserver", name}])
		if c.elapsed == 0 {
			continue
		}
		ratio := c.elapsed / wire.elapsed
		heap := c.heapInuse / float64(n) / 1024
		parts = append(parts, fmt.Sprintf("%s time %.2f× wire (target ≤ %.2f×: %s), heap in use %.1f KB/session (target ≤ %d KB: %s)",
			name, ratio, targetTimeRatio, metOrMissed(ratio <= targetTimeRatio), heap, targetHeapPerSes, metOrMissed(heap <= targetHeapPerSes)))
	}
	b.WriteString(strings.Join(parts, "; ") + ".\n\n")
}

func metOrMissed(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// cell is the medians over rounds of one client and kind.
type cell struct {
	elapsed, minElapsed, maxElapsed                float64 // ns
	cpu                                            float64 // ns of client CPU, total
	heapInuse, heapAlloc, stackInuse, rss, peakRSS float64 // bytes, totals
	goroutines                                     float64
	tools, errors                                  int
	firstErr                                       string
	// rounds are the bring-up times (ns) of each round in order, 0 where
	// a server failed: for measure.RoundRatio.
	rounds []float64
}

func summarize(rs []result) cell {
	var c cell
	var el, cpu, hi, ha, st, rss, peak, gr []float64
	for _, r := range rs {
		c.errors += r.Errors
		if c.firstErr == "" {
			c.firstErr = r.FirstErr
		}
		if r.Errors > 0 {
			c.rounds = append(c.rounds, 0)
			continue
		}
		c.rounds = append(c.rounds, float64(r.Elapsed))
		c.tools = r.Tools
		el = append(el, float64(r.Elapsed))
		cpu = append(cpu, float64(r.CPU))
		hi = append(hi, float64(r.HeapInuse))
		ha = append(ha, float64(r.HeapAlloc))
		st = append(st, float64(r.StackInuse))
		rss = append(rss, float64(r.RSS))
		peak = append(peak, float64(r.PeakRSS))
		gr = append(gr, float64(r.Goroutines))
	}
	c.elapsed, c.heapInuse, c.heapAlloc, c.stackInuse = measure.Median(el), measure.Median(hi), measure.Median(ha), measure.Median(st)
	c.rss, c.peakRSS, c.goroutines, c.cpu = measure.Median(rss), measure.Median(peak), measure.Median(gr), measure.Median(cpu)
	if len(el) > 0 {
		c.minElapsed, c.maxElapsed = slices.Min(el), slices.Max(el)
	}
	return c
}

func perSessionKB(v int64, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(v) / float64(n) / 1024
}

func kbOrDash(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f KB", v/1024)
}

// resultsOf are the report's cells for cmd/benchrun: per server kind and
// client, the bring-up time (as p50, µs) and, in Extra, the servers
// brought up and the client CPU and heap in use per session.
func resultsOf(cfg *config, kinds []string, results map[key][]result) []measure.Result {
	var rs []measure.Result
	for _, kind := range kinds {
		n := cfg.servers
		if kind == "everything" {
			n = cfg.everything
		}
		for _, name := range cfg.clients {
			c := summarize(results[key{kind, name}])
			rs = append(rs, measure.Result{Bench: "bringup", Server: kind, Load: "bring-up", Client: name, InFlight: n,
				P50: c.elapsed / 1e3, Errors: uint64(c.errors),
				Extra: map[string]float64{"cpuPerSessionMicros": c.cpu / float64(n) / 1e3, "heapPerSession": c.heapInuse / float64(n)}})
		}
	}
	return rs
}
