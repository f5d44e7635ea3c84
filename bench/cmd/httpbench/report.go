package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// targetRatio is the target: mcpactor at 16 in flight at least
// this fraction of the hand-written client's calls/s.
const targetRatio = 0.85

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
	if m, w := cell("mcpactor", 16), cell("wire", 16); m.Rate > 0 && w.Rate > 0 {
		r := m.Rate / w.Rate
		verdict := "met"
		if r < targetRatio {
			verdict = "**missed**"
		}
		fmt.Fprintf(b, "\nTarget (mcpactor ≥ %.2f× wire at 16 in flight): %.2f (per round %.2f): %s.\n", targetRatio, r, measure.RoundRatio(m.Rates, w.Rates), verdict)
	}
	b.WriteString("\n")
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
