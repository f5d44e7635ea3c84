package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// render writes the markdown report: the run's facts, then per server the
// table of numbers (with the protocol version each client negotiated) and
// the table of ratios.
func render(cfg *config, results map[key][]measure.Sample) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "### stdio tools/call echo: medians over %d rounds of %s (warm-up %s)\n\n", cfg.Rounds, cfg.Duration, cfg.Warmup)
	measure.WriteRunInfo(&b, "stdiobench")
	if len(cfg.others) > 0 {
		fmt.Fprintf(&b, "- other processes (not this benchmark's) used %.0f %% of the machine's CPU during the measurements (median; max %.0f %%); none was repeated\n",
			100*measure.Median(cfg.others), 100*slices.Max(cfg.others))
	}
	b.WriteString("- every client runs in this process; each measurement's client starts its own server process\n\n")

	for _, srv := range cfg.servers {
		t := measure.CallTable{
			Clients: cfg.Clients, Levels: cfg.InFlight,
			Cell:         func(client string, n int) measure.Summary { return measure.Summarize(results[key{srv, client, n}]) },
			ExtraColumns: []string{"protocol"},
			Extra:        func(client string, n int) []string { return []string{protocols(results[key{srv, client, n}])} },
		}
		fmt.Fprintf(&b, "**Server: %s.**\n\n", serverDesc(srv, cfg.serverPath))
		t.WriteNumbers(&b)
		fmt.Fprintf(&b, "\n**Ratios of calls/s**: ratio of the medians, and in brackets the median over rounds of the ratio within each round.\n\n")
		t.WriteRatios(&b)
		b.WriteString("\n")
	}
	return b.String()
}

// protocols are the protocol versions the samples' clients negotiated,
// each once, in the order met.
func protocols(ss []measure.Sample) string {
	var ps []string
	for _, s := range ss {
		if s.Protocol != "" && !slices.Contains(ps, s.Protocol) {
			ps = append(ps, s.Protocol)
		}
	}
	return strings.Join(ps, ", ")
}
