package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// The targets of issue 40 (docs/benchmarks.md, "Targets"), at each of
// targetLevels in flight, for every server and both eras: mcpactor's
// calls/s at least targetRate of the hand-written client's, and its client
// CPU per call at most targetCPU of that client's.
const (
	targetRate = 0.85
	targetCPU  = 1.3
)

var targetLevels = []int{16, 256}

func render(cfg *config, results map[key][]measure.Sample) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "### Streamable HTTP tools/call echo: medians over %d rounds of %s (warm-up %s)\n\n", cfg.Rounds, cfg.Duration, cfg.Warmup)
	measure.WriteRunInfo(&b, "httpbench")
	if line := cfg.noise.ReportLine(); line != "" {
		fmt.Fprintf(&b, "- %s\n", line)
	}
	b.WriteString("- every client runs in this process; each measurement starts its own server process (this program re-executed), on 127.0.0.1, HTTP/1.1\n\n")

	for _, srv := range cfg.servers {
		for _, load := range cfg.Loads {
			renderCell(&b, cfg, srv, load.Name, results)
		}
	}
	return b.String()
}

// renderCell writes the tables of one server and load.
func renderCell(b *bytes.Buffer, cfg *config, srv, load string, results map[key][]measure.Sample) {
	cell := func(client string, n int) measure.Summary {
		return measure.Summarize(results[key{srv, load, client, n}])
	}
	protocols := func(client string, n int) []string {
		var ps []string
		for _, s := range results[key{srv, load, client, n}] {
			if s.Protocol != "" && !slices.Contains(ps, s.Protocol) {
				ps = append(ps, s.Protocol)
			}
		}
		return []string{strings.Join(ps, ", ")}
	}
	t := measure.CallTable{
		Clients: cfg.Clients, Levels: cfg.levelsOf(srv), References: []string{measure.WireName},
		Cell: cell, ExtraColumns: []string{"protocol"}, Extra: protocols,
	}
	fmt.Fprintf(b, "**Server: %s. Load: %s.**\n\n", serverDescs[srv], load)
	t.WriteNumbers(b)
	b.WriteString("\nRatios of calls/s: ratio of the medians, in brackets the median over rounds of the ratio within each round.\n\n")
	t.WriteRatios(b)
	if line := targetLine(cell); line != "" {
		fmt.Fprintf(b, "\n%s\n", line)
	}
	b.WriteString("\n")
}

// targetLine judges the targets from a server's cells: one verdict per
// level measured, or "" if none was.
func targetLine(cell func(client string, n int) measure.Summary) string {
	var parts []string
	for _, n := range targetLevels {
		m, w := cell("mcpactor", n), cell(measure.WireName, n)
		if m.Rate <= 0 || w.Rate <= 0 || m.CPU <= 0 || w.CPU <= 0 {
			continue
		}
		rate, cpu := m.Rate/w.Rate, float64(m.CPU)/float64(w.CPU)
		verdict := "met"
		if rate < targetRate || cpu > targetCPU {
			verdict = "**missed**"
		}
		parts = append(parts, fmt.Sprintf("at %d, calls/s %.2f× (per round %.2f×), CPU per call %.2f×: %s",
			n, rate, measure.RoundRatio(m.Rates, w.Rates), cpu, verdict))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("Target (mcpactor ≥ %.2f× wire's calls/s and ≤ %.2f× its client CPU per call, at 16 and 256 in flight): %s.",
		targetRate, targetCPU, strings.Join(parts, "; "))
}

// resultsOf are the report's cells for cmd/benchrun.
func resultsOf(cfg *config, results map[key][]measure.Sample) []measure.Result {
	var rs []measure.Result
	for _, srv := range cfg.servers {
		for _, load := range cfg.Loads {
			for _, n := range cfg.levelsOf(srv) {
				for _, client := range cfg.Clients {
					rs = append(rs, measure.NewResult("httpbench", srv, load.Name, client, n, measure.Summarize(results[key{srv, load.Name, client, n}])))
				}
			}
		}
	}
	return rs
}
