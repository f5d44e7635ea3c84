package main

import (
	"bytes"
	"fmt"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// render writes the markdown report.
func render(cfg config, results map[key][]measure.Sample) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "### stdio tools/call echo: medians over %d rounds of %s (warm-up %s)\n\n", cfg.Rounds, cfg.Duration, cfg.Warmup)
	measure.WriteRunInfo(&b, "stdiobench")
	fmt.Fprintf(&b, "- server: mcpactor's internal/testserver, default options, one process per client (%s)\n\n", serverDesc(cfg))
	t := measure.CallTable{
		Clients: cfg.Clients, Levels: cfg.InFlight,
		Cell: func(client string, n int) measure.Summary { return measure.Summarize(results[key{client, n}]) },
	}
	t.WriteNumbers(&b)
	fmt.Fprintf(&b, "\n**Ratios of calls/s**: ratio of the medians, and in brackets the median over rounds of the ratio within each round.\n\n")
	t.WriteRatios(&b)
	return b.String()
}

func serverDesc(cfg config) string {
	if cfg.serverPath != "" {
		return "`" + cfg.serverPath + "`"
	}
	return "the stdiobench binary itself, re-executed with MCPACTOR_TESTSERVER=1"
}
