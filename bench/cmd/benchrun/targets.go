package main

import (
	"fmt"
	"strings"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// find is the result of one client at one level of one load against one
// server in a step's results, if measured.
func (all suite) find(step, server, load, client string, n int) (measure.Result, bool) {
	for _, r := range all[step] {
		if r.Server == server && r.Load == load && r.Client == client && r.InFlight == n {
			return r, true
		}
	}
	return measure.Result{}, false
}

// target is one of the hot path's targets (docs/benchmarks.md, "Targets"),
// judged from the suite's results.
type target struct {
	what string
	// value computes the measured value and whether it was measured.
	value func(all suite) (float64, bool)
	// limit and atMost: met when value <= limit (atMost) or >= limit.
	limit  float64
	atMost bool
	format func(float64) string
}

func ratio(x float64) string     { return fmt.Sprintf("%.2f×", x) }
func count(x float64) string     { return fmt.Sprintf("%.1f", x) }
func byteCount(x float64) string { return measure.Bytes(x) }
func megabytes(x float64) string { return fmt.Sprintf("%.1f MB", x/1e6) }
func plus(x float64) string      { return fmt.Sprintf("%+.1f", x) }

// rateRatio is client's calls/s over the reference's.
func rateRatio(step, server, load, client, ref string, n int) func(suite) (float64, bool) {
	return func(all suite) (float64, bool) {
		a, ok1 := all.find(step, server, load, client, n)
		b, ok2 := all.find(step, server, load, ref, n)
		if !ok1 || !ok2 || b.Rate == 0 {
			return 0, false
		}
		return a.Rate / b.Rate, true
	}
}

// field is one number of one result.
func field(step, server, load, client string, n int, f func(measure.Result) float64) func(suite) (float64, bool) {
	return func(all suite) (float64, bool) {
		r, ok := all.find(step, server, load, client, n)
		return f(r), ok
	}
}

// fieldRatio is one number of client's result over the reference's.
func fieldRatio(step, server, load, client, ref string, n int, f func(measure.Result) float64) func(suite) (float64, bool) {
	return func(all suite) (float64, bool) {
		a, ok1 := all.find(step, server, load, client, n)
		b, ok2 := all.find(step, server, load, ref, n)
		if !ok1 || !ok2 || f(b) == 0 {
			return 0, false
		}
		return f(a) / f(b), true
	}
}

// fieldDiff is one number of client's result minus the reference's.
func fieldDiff(step, server, load, client, ref string, n int, f func(measure.Result) float64) func(suite) (float64, bool) {
	return func(all suite) (float64, bool) {
		a, ok1 := all.find(step, server, load, client, n)
		b, ok2 := all.find(step, server, load, ref, n)
		if !ok1 || !ok2 {
			return 0, false
		}
		return f(a) - f(b), true
	}
}

// leanerPeer is the least of f over the peers' results, if every peer was
// measured.
func leanerPeer(all suite, step, server, load string, n int, f func(measure.Result) float64) (float64, bool) {
	lean, found := 0.0, false
	for peer := range measure.Peers {
		p, ok := all.find(step, server, load, peer, n)
		if !ok {
			return 0, false
		}
		if !found || f(p) < lean {
			lean, found = f(p), true
		}
	}
	return lean, found
}

const (
	ours     = measure.OursName
	blocking = measure.BlockingName
	bigLoad  = "big-65536"
	bigBytes = 64 << 10
)

func targets() []target {
	var ts []target
	for _, load := range []string{"echo-fixed", "echo-unique"} {
		for _, n := range []int{1, 16, 256} {
			ts = append(ts, target{
				what:  fmt.Sprintf("stdio %s at %d in flight: calls/s vs the blocking-API limit", load, n),
				value: rateRatio("stdio-echo", "fast", load, ours, blocking, n), limit: 0.9, format: ratio,
			})
		}
	}
	ts = append(ts,
		target{what: "stdio 64 KiB results at 8 in flight: calls/s vs the blocking-API limit",
			value: rateRatio("stdio-big", "fast", bigLoad, ours, blocking, 8), limit: 0.9, format: ratio},
		target{what: "stdio 64 KiB results at 8 in flight: bytes allocated per call vs the payload",
			value: func(all suite) (float64, bool) {
				v, ok := field("stdio-big", "fast", bigLoad, ours, 8, func(r measure.Result) float64 { return r.Bytes })(all)
				return v / bigBytes, ok
			}, limit: 1.2, atMost: true, format: ratio},
	)
	for _, n := range []int{1, 16, 256} {
		ts = append(ts, target{
			what:  fmt.Sprintf("stdio echo-fixed at %d in flight: client CPU per call vs the blocking-API limit", n),
			value: fieldRatio("stdio-echo", "fast", "echo-fixed", ours, blocking, n, func(r measure.Result) float64 { return r.CPU }),
			limit: 1.3, atMost: true, format: ratio,
		})
	}
	for _, n := range []int{1, 16, 256} {
		ts = append(ts,
			target{what: fmt.Sprintf("stdio echo-fixed at %d in flight: allocations per call (default telemetry)", n),
				value: field("stdio-echo", "fast", "echo-fixed", ours, n, func(r measure.Result) float64 { return r.Allocs }),
				limit: 8, atMost: true, format: count},
			target{what: fmt.Sprintf("stdio echo-fixed at %d in flight: bytes allocated per call (default telemetry)", n),
				value: field("stdio-echo", "fast", "echo-fixed", ours, n, func(r measure.Result) float64 { return r.Bytes }),
				limit: 600, atMost: true, format: byteCount},
		)
	}
	// The 2026-07-28 revision keeps the session era's allocation bound on
	// the fast server offering it. Its bytes per call have no bound: the
	// result's _meta stays a map, as in the peers, and each result gets
	// its own copy of it.
	for _, n := range []int{1, 16, 256} {
		ts = append(ts,
			target{what: fmt.Sprintf("stdio 2026-07-28 echo-fixed at %d in flight: allocations per call (default telemetry)", n),
				value: field("stdio-servers", measure.ServerFastStateless, "echo-fixed", ours, n, func(r measure.Result) float64 { return r.Allocs }),
				limit: 8, atMost: true, format: count},
		)
	}
	ts = append(ts,
		target{what: "10,000 calls of a 1 s tool in flight: completion time vs the blocking-API limit",
			value: fieldRatio("inflight", "fast", "sleep-1000ms", ours, blocking, 10000, func(r measure.Result) float64 { return r.P50 }),
			limit: 1.1, atMost: true, format: ratio},
		target{what: "10,000 calls of a 1 s tool in flight: memory per in-flight call vs the blocking-API limit",
			value: fieldRatio("inflight", "fast", "sleep-1000ms", ours, blocking, 10000, func(r measure.Result) float64 { return r.Extra["bytesPerInFlightCall"] }),
			limit: 1.1, atMost: true, format: ratio},
	)
	// protoactor's process registry is a fixed cost of a runtime, and a
	// library does not call debug.FreeOSMemory: the bound at rest is the
	// leaner peer's plus 4 MB (what matters at scale is memory per
	// server, the scale step's targets below).
	ts = append(ts, target{what: "resident memory with one stdio server connected, at rest (VmRSS over the process alone): over the leaner peer's",
		value: func(all suite) (float64, bool) {
			rss := func(r measure.Result) float64 { return r.Extra["rssOverNone"] }
			a, ok := all.find("idle", "fast", "idle", ours, 1)
			lean, ok2 := leanerPeer(all, "idle", "fast", "idle", 1, rss)
			if !ok || !ok2 {
				return 0, false
			}
			return rss(a) - lean, true
		},
		limit: 4e6, atMost: true, format: megabytes})
	// Streamable HTTP in both eras: the session era against bench's fast
	// server (whose own cost per call is small, so the client's shows),
	// mcpactor's test server and the go-sdk server, 2026-07-28 against
	// the fast server and the go-sdk server stateless; tuned pools for
	// every client.
	for _, sv := range [][2]string{
		{"fast", "the fast server"}, {"fast-stateless", "the fast server, 2026-07-28"},
		{"testserver", "mcpactor's test server"}, {"gosdk", "the go-sdk server"}, {"gosdk-stateless", "the go-sdk server, 2026-07-28"},
	} {
		server, desc := sv[0], sv[1]
		for _, n := range []int{16, 256} {
			ts = append(ts,
				target{what: fmt.Sprintf("Streamable HTTP echo-unique at %d in flight (%s): calls/s vs the hand-written net/http client", n, desc),
					value: rateRatio("http", server, "echo-unique", ours, measure.WireName, n), limit: 0.85, format: ratio},
				target{what: fmt.Sprintf("Streamable HTTP echo-unique at %d in flight (%s): client CPU per call vs the hand-written net/http client", n, desc),
					value: fieldRatio("http", server, "echo-unique", ours, measure.WireName, n, func(r measure.Result) float64 { return r.CPU }),
					limit: 1.3, atMost: true, format: ratio},
				target{what: fmt.Sprintf("Streamable HTTP echo-unique at %d in flight (%s): allocations per call over the hand-written net/http client's", n, desc),
					value: fieldDiff("http", server, "echo-unique", ours, measure.WireName, n, func(r measure.Result) float64 { return r.Allocs }),
					limit: 10, atMost: true, format: plus},
			)
		}
	}
	ts = append(ts, target{what: "bring-up of 100 stdio servers (Runtime.Manage): time vs the hand-written client",
		value: fieldRatio("bringup", "testserver", "bring-up", "manage", "wire", 100, func(r measure.Result) float64 { return r.P50 }),
		limit: 1.1, atMost: true, format: ratio})
	ts = append(ts, target{what: "the cluster's hop (a call to a server another member owns, minus the same call on one machine; p50 at 64 callers): vs a gRPC unary round trip",
		value: func(all suite) (float64, bool) {
			c, ok1 := all.find("cluster", "testserver", "echo", "cluster", 64)
			l, ok2 := all.find("cluster", "testserver", "echo", "local", 64)
			g, ok3 := all.find("cluster", "testserver", "echo", "grpc", 64)
			if !ok1 || !ok2 || !ok3 || g.P50 == 0 {
				return 0, false
			}
			return (c.P50 - l.P50) / g.P50, true
		},
		limit: 1.3, atMost: true, format: ratio})
	return append(ts, scaleTargets()...)
}

// targetsBlock is the table of targets, each judged from the results.
func targetsBlock(all suite) string {
	var b strings.Builder
	b.WriteString("| target | limit | measured | verdict |\n|---|---:|---:|---|\n")
	for _, t := range targets() {
		cmp := "≥"
		if t.atMost {
			cmp = "≤"
		}
		v, ok := t.value(all)
		measured, verdict := "not measured", "–"
		if ok {
			measured = t.format(v)
			met := v >= t.limit
			if t.atMost {
				met = v <= t.limit
			}
			verdict = "met"
			if !met {
				verdict = "**missed**"
			}
		}
		fmt.Fprintf(&b, "| %s | %s %s | %s | %s |\n", t.what, cmp, t.format(t.limit), measured, verdict)
	}
	return b.String()
}
