package measure

import (
	"fmt"
	"strings"
	"time"
)

// Dur writes a duration for a report's table: three significant digits or
// so, in the unit that suits it, and "–" for none (0 means "not
// measured" in the reports' cells).
func Dur(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
}

// OneLine makes an error message fit in a markdown table's cell: one
// line, no column separators, at most 160 bytes.
func OneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// Progress is the line a throughput command prints on stderr after a
// measurement: label (which names it), the numbers, the share of the
// machine other processes used meanwhile, the protocol version and, when
// any call failed, the first error.
func Progress(label string, s Sample, others float64) string {
	line := fmt.Sprintf("%s %9.0f calls/s  p50 %8s  p99 %8s  cpu/call %7s  %5.1f allocs %8s  server %7s  others %2.0f%%  %s",
		label, s.Rate, Dur(s.P50), Dur(s.P99), Dur(s.CPUPerCall), s.Allocs, Bytes(s.Bytes), Dur(s.ServerCPUPerCall), 100*others, s.Protocol)
	if s.Errors+s.Mismatches > 0 {
		line += fmt.Sprintf("  errors=%d mismatches=%d first: %s", s.Errors, s.Mismatches, s.FirstErr)
	}
	return line
}

// Bytes formats a byte count: B below 10 KB, KB (10³) below 10 MB, MB
// above.
func Bytes(b float64) string {
	switch {
	case b < 10e3:
		return fmt.Sprintf("%.0f B", b)
	case b < 10e6:
		return fmt.Sprintf("%.1f KB", b/1e3)
	}
	return fmt.Sprintf("%.1f MB", b/1e6)
}
