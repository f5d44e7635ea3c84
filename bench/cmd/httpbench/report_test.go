package main

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// TestTargetLine: the target line judges calls/s and client CPU per call
// at 16 and 256 in flight, each level on its own, and skips a level not
// measured.
func TestTargetLine(t *testing.T) {
	type cellKey struct {
		client string
		n      int
	}
	sum := func(rate float64, cpu time.Duration) measure.Summary {
		return measure.Summary{Rate: rate, CPU: cpu, Rates: []float64{rate}}
	}
	for _, c := range []struct {
		name  string
		cells map[cellKey]measure.Summary
		want  []string // in order
		not   []string
	}{
		{"both met",
			map[cellKey]measure.Summary{
				{"mcpactor", 16}: sum(900, 13*time.Microsecond), {measure.WireName, 16}: sum(1000, 10*time.Microsecond),
				{"mcpactor", 256}: sum(850, 13*time.Microsecond), {measure.WireName, 256}: sum(1000, 10*time.Microsecond),
			},
			[]string{"≥ 0.85× wire's calls/s and ≤ 1.30× its client CPU per call", "at 16, calls/s 0.90× (per round 0.90×), CPU per call 1.30×: met", "at 256, calls/s 0.85×", "1.30×: met."},
			[]string{"missed"}},
		{"CPU missed at 256",
			map[cellKey]measure.Summary{
				{"mcpactor", 16}: sum(900, 10*time.Microsecond), {measure.WireName, 16}: sum(1000, 10*time.Microsecond),
				{"mcpactor", 256}: sum(1000, 14*time.Microsecond), {measure.WireName, 256}: sum(1000, 10*time.Microsecond),
			},
			[]string{"at 16, calls/s 0.90× (per round 0.90×), CPU per call 1.00×: met", "at 256, calls/s 1.00× (per round 1.00×), CPU per call 1.40×: **missed**"},
			nil},
		{"rate missed, 256 not measured",
			map[cellKey]measure.Summary{
				{"mcpactor", 16}: sum(500, 10*time.Microsecond), {measure.WireName, 16}: sum(1000, 10*time.Microsecond),
			},
			[]string{"at 16, calls/s 0.50× (per round 0.50×), CPU per call 1.00×: **missed**."},
			[]string{"at 256"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			line := targetLine(func(client string, n int) measure.Summary { return c.cells[cellKey{client, n}] })
			rest := line
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%q lacks (in order) %q", line, w)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range c.not {
				if strings.Contains(line, n) {
					t.Errorf("%q has %q", line, n)
				}
			}
		})
	}
	if line := targetLine(func(string, int) measure.Summary { return measure.Summary{} }); line != "" {
		t.Errorf("nothing measured: %q", line)
	}
}
