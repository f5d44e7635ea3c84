package main

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// summary is one client's samples at one level, over rounds.
type summary struct {
	elapsed, minElapsed, maxElapsed time.Duration
	hwm                             float64 // median peak RSS, bytes
	stack, heap                     float64 // median growth halfway, bytes
	errors                          uint64
	firstErr                        string
	protocol                        string
}

func summarize(ss []sample) summary {
	var c summary
	var el, hwm, stack, heap []float64
	for _, s := range ss {
		c.errors += s.Errors
		if c.firstErr == "" {
			c.firstErr = s.FirstErr
		}
		if s.Calls == 0 {
			continue
		}
		c.protocol = s.Protocol
		el = append(el, float64(s.Elapsed))
		hwm = append(hwm, float64(s.HWM))
		stack = append(stack, float64(s.Stack))
		heap = append(heap, float64(s.Heap))
	}
	c.stack, c.heap = measure.Median(stack), measure.Median(heap)
	if len(el) > 0 {
		c.elapsed = time.Duration(measure.Median(el))
		c.minElapsed, c.maxElapsed = time.Duration(slices.Min(el)), time.Duration(slices.Max(el))
		c.hwm = measure.Median(hwm)
	}
	return c
}

// perCall is the memory per in-flight call: the growth of the median
// peak RSS from the lowest level to the highest, per call added. 0 when
// either is missing.
func perCall(cfg *config, results map[key][]sample, client string) float64 {
	lo, hi := slices.Min(cfg.levels), slices.Max(cfg.levels)
	a, b := summarize(results[key{client, lo}]), summarize(results[key{client, hi}])
	if hi == lo || a.hwm == 0 || b.hwm == 0 {
		return 0
	}
	return (b.hwm - a.hwm) / float64(hi-lo)
}

func render(cfg *config, results map[key][]sample) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "### %d calls of a %d ms tool in flight on one stdio connection: medians over %d rounds\n\n", slices.Max(cfg.levels), cfg.ms, cfg.rounds)
	measure.WriteRunInfo(&b, "inflight")
	fmt.Fprintf(&b, "- server: %s\n", measure.StdioServerDesc(cfg.server, "", "inflight"))
	b.WriteString("- each measurement is a process of its own: connect, one warm-up call, then every call at once (one goroutine each; the event-loop reference sends them from its own loop); completion is the time from the first call started to the last answer; peak RSS is the process's VmHWM\n\n")

	lo, hi := slices.Min(cfg.levels), slices.Max(cfg.levels)
	fmt.Fprintf(&b, "| client | completion at %d | min–max | vs blocking | peak RSS at %d | peak RSS at %d | memory per in-flight call | vs blocking | stacks per call | heap in use per call | protocol | status |\n", hi, lo, hi)
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	ref := summarize(results[key{measure.BlockingName, hi}])
	refPer := perCall(cfg, results, measure.BlockingName)
	for _, name := range cfg.clients {
		c := summarize(results[key{name, hi}])
		l := summarize(results[key{name, lo}])
		per := perCall(cfg, results, name)
		vs, vsMem := "–", "–"
		if ref.elapsed > 0 && c.elapsed > 0 {
			vs = fmt.Sprintf("%.2f", float64(c.elapsed)/float64(ref.elapsed))
		}
		if refPer > 0 && per > 0 {
			vsMem = fmt.Sprintf("%.2f", per/refPer)
		}
		status := "ok"
		if errs := c.errors + l.errors; errs > 0 {
			status = fmt.Sprintf("**FLAGGED**: %d errors (%s)", errs, measure.OneLine(c.firstErr+l.firstErr))
		}
		fmt.Fprintf(&b, "| %s | %s | %s–%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name,
			measure.Dur(c.elapsed), measure.Dur(c.minElapsed), measure.Dur(c.maxElapsed), vs,
			measure.Bytes(l.hwm), measure.Bytes(c.hwm), measure.Bytes(per), vsMem,
			measure.Bytes(c.stack/float64(hi)), measure.Bytes(c.heap/float64(hi)), c.protocol, status)
	}
	fmt.Fprintf(&b, "\nstacks and heap in use per call: the growth of the goroutine stacks in use and of the heap in use (runtime.MemStats) from before the %d calls to halfway through them, when every call waits for its answer, divided by %d; the peak RSS also holds the garbage made before the heap was next collected.\n\n", hi, hi)
	return b.String()
}

// resultsOf are the report's cells for cmd/benchrun: per client and
// level, the completion time (as p50) and, in Extra, the peak RSS and
// (at the highest level) the memory per in-flight call.
func resultsOf(cfg *config, results map[key][]sample) []measure.Result {
	var rs []measure.Result
	hi := slices.Max(cfg.levels)
	for _, client := range cfg.clients {
		for _, n := range cfg.levels {
			c := summarize(results[key{client, n}])
			r := measure.Result{Bench: "inflight", Server: cfg.server, Load: measure.Sleep(cfg.ms).Name, Client: client, InFlight: n,
				P50: float64(c.elapsed) / float64(time.Microsecond), Errors: c.errors,
				Extra: map[string]float64{"peakRSS": c.hwm, "stackPerCall": c.stack / float64(n), "heapPerCall": c.heap / float64(n)}}
			if n == hi {
				r.Extra["bytesPerInFlightCall"] = perCall(cfg, results, client)
			}
			rs = append(rs, r)
		}
	}
	return rs
}
