package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// report prints the demo's steps and keeps its tallies.
type report struct {
	w        io.Writer
	failures []string
}

func (r *report) step(format string, args ...any) {
	fmt.Fprintf(r.w, "\n== "+format+"\n", args...)
}

func (r *report) line(format string, args ...any) {
	fmt.Fprintf(r.w, "   "+format+"\n", args...)
}

// fail records something that should have worked and did not.
func (r *report) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.failures = append(r.failures, msg)
	fmt.Fprintf(r.w, "   FAIL: %s\n", msg)
}

func (r *report) err() error {
	if len(r.failures) == 0 {
		return nil
	}
	return fmt.Errorf("%d check(s) failed: %s", len(r.failures), strings.Join(r.failures, "; "))
}

// latencies summarises call durations.
type latencies []time.Duration

func (l latencies) quantile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// errorKinds counts errors by a short kind name, for the summary.
type errorKinds map[string]int

func (k errorKinds) String() string {
	if len(k) == 0 {
		return "none"
	}
	names := make([]string, 0, len(k))
	for n := range k {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%d", n, k[n])
	}
	return strings.Join(parts, " ")
}
