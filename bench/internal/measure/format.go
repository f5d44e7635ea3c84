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
