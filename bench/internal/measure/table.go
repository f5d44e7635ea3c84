package measure

import (
	"fmt"
	"io"
	"strings"
)

// CallTable writes the two tables of a throughput report in one format
// for every benchmark: the numbers, a row per level and client, and the
// ratios of calls/s to each reference client and to the best peer
// library. Ours is OursName, and the best peer is the best of Peers.
type CallTable struct {
	Clients []string
	Levels  []int
	// References are the hand-written clients the others are compared
	// with, the one the targets are set against first.
	References []string
	Cell       func(client string, n int) Summary
	// ExtraColumns are headers of columns that come before the status, and
	// Extra gives their cells; both may be nil.
	ExtraColumns []string
	Extra        func(client string, n int) []string
}

// WriteNumbers writes the table of numbers. A client with any failed or
// wrong answer is flagged in its status cell, with the first error.
func (t CallTable) WriteNumbers(w io.Writer) {
	head := ""
	for _, r := range t.References {
		head += " vs " + r + " |"
	}
	for _, h := range t.ExtraColumns {
		head += " " + h + " |"
	}
	fmt.Fprintf(w, "| client | in flight | calls/s | min–max over rounds | p50 | p99 | client CPU/call | allocs/call | bytes/call | server CPU/call |%s status |\n", head)
	fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|%s%s---|\n", strings.Repeat("---:|", len(t.References)), strings.Repeat("---|", len(t.ExtraColumns)))
	for _, n := range t.Levels {
		for _, name := range t.Clients {
			c := t.Cell(name, n)
			cells := ""
			for _, r := range t.References {
				if ref := t.Cell(r, n); ref.Rate > 0 {
					cells += fmt.Sprintf(" %.2f |", c.Rate/ref.Rate)
				} else {
					cells += " – |"
				}
			}
			if t.Extra != nil {
				for _, e := range t.Extra(name, n) {
					cells += " " + e + " |"
				}
			}
			status := "ok"
			if c.Flagged() {
				status = fmt.Sprintf("**FLAGGED**: %d errors, %d mismatches (%s)", c.Errors, c.Mismatches, OneLine(c.FirstErr))
			}
			fmt.Fprintf(w, "| %s | %d | %.0f | %.0f–%.0f | %s | %s | %s | %.1f | %s | %s |%s %s |\n",
				name, n, c.Rate, c.MinRate, c.MaxRate, Dur(c.P50), Dur(c.P99), Dur(c.CPU),
				c.Allocs, Bytes(c.Bytes), Dur(c.ServerCPU), cells, status)
		}
	}
}

// WriteRatios writes the table of ratios of calls/s: ours and each peer's
// to each reference's, and ours to the best peer's, each as the ratio of
// the medians and, in brackets, the median of the ratios within each
// round.
func (t CallTable) WriteRatios(w io.Writer) {
	var others []string
	for _, name := range t.Clients {
		if !t.isReference(name) {
			others = append(others, name)
		}
	}
	fmt.Fprintf(w, "| in flight |")
	cols := 1
	for _, r := range t.References {
		for _, name := range others {
			fmt.Fprintf(w, " %s / %s |", name, r)
			cols++
		}
	}
	fmt.Fprintf(w, " %s / best peer |\n|---:|%s\n", OursName, strings.Repeat("---:|", cols))
	for _, n := range t.Levels {
		fmt.Fprintf(w, "| %d |", n)
		for _, r := range t.References {
			ref := t.Cell(r, n)
			for _, name := range others {
				if c := t.Cell(name, n); ref.Rate > 0 {
					fmt.Fprintf(w, " %.2f (%.2f) |", c.Rate/ref.Rate, RoundRatio(c.Rates, ref.Rates))
				} else {
					fmt.Fprintf(w, " – |")
				}
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

func (t CallTable) isReference(name string) bool {
	for _, r := range t.References {
		if r == name {
			return true
		}
	}
	return false
}
