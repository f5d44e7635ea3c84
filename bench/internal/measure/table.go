package measure

import (
	"fmt"
	"io"
	"strings"
)

// CallTable writes the two tables of a throughput report in one format
// for every benchmark: the numbers, a row per level and client, and the
// ratios of calls/s to the reference client and to the best peer library.
// The reference is ReferenceName, ours is OursName, and the best peer is
// the best of Peers.
type CallTable struct {
	Clients []string
	Levels  []int
	Cell    func(client string, n int) Summary
	// ExtraColumns are headers of columns that come before the status, and
	// Extra gives their cells; both may be nil.
	ExtraColumns []string
	Extra        func(client string, n int) []string
}

// WriteNumbers writes the table of numbers. A client with any failed or
// wrong answer is flagged in its status cell, with the first error.
func (t CallTable) WriteNumbers(w io.Writer) {
	extra := ""
	for _, h := range t.ExtraColumns {
		extra += " " + h + " |"
	}
	fmt.Fprintf(w, "| client | in flight | calls/s | min–max over rounds | p50 | p99 | client CPU/call | vs %s |%s status |\n", ReferenceName, extra)
	fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|---:|%s---|\n", strings.Repeat("---|", len(t.ExtraColumns)))
	for _, n := range t.Levels {
		ref := t.Cell(ReferenceName, n)
		for _, name := range t.Clients {
			c := t.Cell(name, n)
			vs := "–"
			if ref.Rate > 0 {
				vs = fmt.Sprintf("%.0f%%", 100*c.Rate/ref.Rate)
			}
			status := "ok"
			if c.Flagged() {
				status = fmt.Sprintf("**FLAGGED**: %d errors, %d mismatches (%s)", c.Errors, c.Mismatches, OneLine(c.FirstErr))
			}
			cells := ""
			if t.Extra != nil {
				for _, e := range t.Extra(name, n) {
					cells += " " + e + " |"
				}
			}
			fmt.Fprintf(w, "| %s | %d | %.0f | %.0f–%.0f | %s | %s | %s | %s |%s %s |\n",
				name, n, c.Rate, c.MinRate, c.MaxRate, Dur(c.P50), Dur(c.P99), Dur(c.CPU), vs, cells, status)
		}
	}
}

// WriteRatios writes the table of ratios of calls/s: each client's to the
// reference's, and ours to the best peer's, each as the ratio of the
// medians and, in brackets, the median of the ratios within each round.
func (t CallTable) WriteRatios(w io.Writer) {
	var others []string
	for _, name := range t.Clients {
		if name != ReferenceName {
			others = append(others, name)
		}
	}
	fmt.Fprintf(w, "| in flight |")
	for _, name := range others {
		fmt.Fprintf(w, " %s / %s |", name, ReferenceName)
	}
	fmt.Fprintf(w, " %s / best peer |\n|---:|%s---|\n", OursName, strings.Repeat("---:|", len(others)))
	for _, n := range t.Levels {
		ref := t.Cell(ReferenceName, n)
		fmt.Fprintf(w, "| %d |", n)
		for _, name := range others {
			if c := t.Cell(name, n); ref.Rate > 0 {
				fmt.Fprintf(w, " %.2f (%.2f) |", c.Rate/ref.Rate, RoundRatio(c.Rates, ref.Rates))
			} else {
				fmt.Fprintf(w, " – |")
			}
		}
		best, bestName := 0.0, ""
		for _, name := range t.Clients {
			if c := t.Cell(name, n); Peers[name] && c.Rate > best {
				best, bestName = c.Rate, name
			}
		}
		if ours := t.Cell(OursName, n); ours.Rate > 0 && best > 0 {
			fmt.Fprintf(w, " %.2f (%.2f) vs %s |\n", ours.Rate/best, RoundRatio(ours.Rates, t.Cell(bestName, n).Rates), bestName)
		} else {
			fmt.Fprintf(w, " – |\n")
		}
	}
}
