package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// render writes the markdown report: the run's facts, then per server
// and load the table of numbers (with the protocol version each client
// negotiated) and the table of ratios. The targets are cmd/benchrun's.
func render(cfg *config, results map[key][]measure.Sample) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "### stdio tools/call: medians over %d rounds of %s (warm-up %s)\n\n", cfg.Rounds, cfg.Duration, cfg.Warmup)
	measure.WriteRunInfo(&b, "stdiobench")
	if len(cfg.others) > 0 {
		fmt.Fprintf(&b, "- other processes (not this benchmark's) used %.0f %% of the machine's CPU during the measurements (median; max %.0f %%); none was repeated\n",
			100*measure.Median(cfg.others), 100*slices.Max(cfg.others))
	}
	b.WriteString("- every client runs in this process; each measurement's client starts its own server process; allocations and bytes are this process's per call (the benchmark's own included: nothing for a fixed load, the message for echo-unique)\n\n")

	for _, srv := range cfg.servers {
		for _, load := range cfg.Loads {
			cell := func(client string, n int) measure.Summary {
				return measure.Summarize(results[key{srv, load.Name, client, n}])
			}
			t := measure.CallTable{
				Clients: cfg.Clients, Levels: cfg.InFlight, References: presentRefs(cfg.Clients), Cell: cell,
				ExtraColumns: []string{"protocol"},
				Extra: func(client string, n int) []string {
					return []string{protocols(results[key{srv, load.Name, client, n}])}
				},
			}
			fmt.Fprintf(&b, "**Server: %s. Load: %s.**\n\n", measure.StdioServerDesc(srv, cfg.serverPath, "stdiobench"), loadDesc(load))
			t.WriteNumbers(&b)
			fmt.Fprintf(&b, "\n**Ratios of calls/s**: ratio of the medians, and in brackets the median over rounds of the ratio within each round.\n\n")
			t.WriteRatios(&b)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// presentRefs are the references among the clients measured.
func presentRefs(clients []string) []string {
	var refs []string
	for _, r := range measure.StdioReferences {
		if slices.Contains(clients, r) {
			refs = append(refs, r)
		}
	}
	return refs
}

func loadDesc(l measure.Load) string {
	switch l.Name {
	case measure.EchoUnique.Name:
		return "echo-unique (echo, a message of its own per call)"
	case measure.EchoFixed.Name:
		return "echo-fixed (echo, the same message every call)"
	}
	return fmt.Sprintf("%s (tools/call %s)", l.Name, l.Tool)
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

// resultsOf are the report's cells for cmd/benchrun.
func resultsOf(cfg *config, results map[key][]measure.Sample) []measure.Result {
	var rs []measure.Result
	for _, srv := range cfg.servers {
		for _, load := range cfg.Loads {
			for _, n := range cfg.InFlight {
				for _, client := range cfg.Clients {
					rs = append(rs, measure.NewResult("stdiobench", srv, load.Name, client, n, measure.Summarize(results[key{srv, load.Name, client, n}])))
				}
			}
		}
	}
	return rs
}
