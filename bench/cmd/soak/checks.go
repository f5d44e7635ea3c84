package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor"
)

// report is a run and what its history says.
type report struct {
	cfg      *config
	fleet    []*server
	base     baseline
	teardown teardownResult
	stuck    int

	loadStart, quietEnd, loadEnd time.Duration
	faults                       []*faultRec
	events                       []stateEvent
	removals                     []removal
	samples                      []sample
	unknowns                     []string
	findingErrs                  map[string][]string
	lateProgress                 int64
	spansStarted, spansEnded     int64
	spansLate                    int64
	notifications, handlerCalls  int64
	calls                        int64

	// From the history.
	recorded        int64
	missing, dups   int64
	afterGrace      int64
	overDeadline    int64
	byClass         [nClasses]int64
	byCause         [nCauses]int64
	byOp            [nOps][nClasses]int64
	spanBad         int64
	spanMismatch    int64
	spanExamples    []string
	removedBad      int64
	reloadDrops     int64
	removedExamples []string
	windows         []windowStat
	baselineP99     map[string]float64 // ms, by kind
	baselineN       map[string]int
	iso             isolation
	untouchedFail   int64 // echo calls on untouched servers that did not succeed
	untouchedEcho   int64
	heapSlope       float64 // MiB/min
	rssSlope        float64
	sampleZombies   int
	breakerBad      []string

	checks []check
}

type check struct {
	Name   string
	Pass   bool
	Detail string
	// Finding marks a runtime bug the soak found, reproduced in
	// found_test.go, and reports rather than fails on until the runtime is
	// fixed (none now: both findings so far are fixed and failed on).
	Finding bool
	// Inconclusive: the check could not be judged (isolation, when the
	// machine was starved for most of the run). Not a pass, not a
	// failure of the runtime: the run's verdict is inconclusive.
	Inconclusive bool
}

// windowStat is one isolation window.
type windowStat struct {
	From, To   time.Duration
	Calls      int64
	EchoP50    float64 // ms, all servers
	EchoP99    float64
	Ratio      float64 // worst p99(untouched, kind) / baseline p99(kind) with enough calls
	RatioKind  string
	Touched    int
	FaultsSeen int
	// The control probe (probe.go) in the window: its slots, their p99
	// and max (ms), the p99 over the probe's baseline p99; whether the
	// window is judged (the machine not starved) and failed.
	ProbeN             int
	ProbeP99, ProbeMax float64
	ProbeRatio         float64
	Judged, Failed     bool
}

// verdict is the run's: failed if any check failed (findings aside),
// else inconclusive if a check could not be judged, else passed.
func (r *report) verdict() verdict {
	if len(r.checks) == 0 {
		return verdictFail
	}
	v := verdictPass
	for _, c := range r.checks {
		switch {
		case c.Pass || c.Finding:
		case c.Inconclusive:
			v = verdictInconclusive
		default:
			return verdictFail
		}
	}
	return v
}

func (r *report) passed() bool { return r.verdict() == verdictPass }

// failures names the checks that failed, or, if none did, those that
// could not be judged.
func (r *report) failures() string {
	var out []string
	for _, c := range r.checks {
		if !c.Pass && !c.Finding && !c.Inconclusive {
			out = append(out, c.Name+": "+c.Detail)
		}
	}
	if len(out) == 0 {
		for _, c := range r.checks {
			if c.Inconclusive {
				out = append(out, c.Name+": "+c.Detail)
			}
		}
	}
	return strings.Join(out, "; ")
}

// analyze reads the history and computes every check.
func (r *report) analyze(histPath, probePath string) error {
	graceEnd := r.loadEnd + r.cfg.grace
	seen := make([]uint8, r.calls+1)
	kindOf := make([]string, len(r.fleet))
	for i, s := range r.fleet {
		kindOf[i] = s.kind
	}
	r.computeRecoveryPrep()
	// Windows after the quiet baseline.
	var windows []windowStat
	for t := r.quietEnd; t+r.cfg.window <= r.loadEnd; t += r.cfg.window {
		windows = append(windows, windowStat{From: t, To: t + r.cfg.window})
	}
	echoAll := make([][]float32, len(windows))
	untouched := map[winKind][]float32{}
	baseline := map[string][]float32{}
	// The first quarter of the quiet baseline warms up (connections,
	// caches, the callers' spread start) and is left out of it.
	baseFrom := r.loadStart + r.cfg.quiet/4
	// Recovery first: the isolation windows need to know how long each
	// server hit was recovering.
	if err := readHistory(histPath, func(c *callRec) { r.noteRecovery(c, r.fleet[c.Server].name) }); err != nil {
		return err
	}
	r.finishRecovery()
	err := readHistory(histPath, func(c *callRec) {
		r.recorded++
		if int64(c.ID) < int64(len(seen)) {
			if seen[c.ID] > 0 {
				r.dups++
			}
			if seen[c.ID] < 255 {
				seen[c.ID]++
			}
		} else {
			r.dups++
		}
		r.byClass[c.Class]++
		r.byCause[c.Cause]++
		r.byOp[c.Op][c.Class]++
		end, start := time.Duration(c.End), time.Duration(c.Start)
		if end > graceEnd {
			r.afterGrace++
		}
		if c.Limit > 0 && end-start > time.Duration(c.Limit)+2*time.Second {
			r.overDeadline++
		}
		r.lateProgress += int64(c.Late)
		// Telemetry: the spans the call made, and their outcome.
		n := int(c.Spans)
		if c.Op == opList && n > 1 {
			n = 1 // a listing of several pages makes a span per page
		}
		if !spansAllowed(c.Class, n) {
			r.spanBad++
			r.spanExample(c)
		} else if n > 0 && !spanTypeAllowed(c.Class, c.SpanType) {
			r.spanMismatch++
			r.spanExample(c)
		}
		srv := r.fleet[c.Server]
		if c.Class == cRemoved && r.inReload(srv.name, start, end) {
			// Found by the soak (found_test.go,
			// TestSoakFound_ReloadDropsTools): counted apart, and failed
			// on, so that the page names it.
			r.reloadDrops++
		} else if c.Class == cRemoved && !r.wasRemoved(srv.name, start, end) {
			r.removedBad++
			if len(r.removedExamples) < 6 {
				var near []string
				for _, f := range r.faults {
					if f.Server == srv.name && f.At < end+30*time.Second && f.End > start-30*time.Second {
						near = append(near, fmt.Sprintf("%s at %v-%v", f.Kind, f.At.Round(time.Millisecond), f.End.Round(time.Millisecond)))
					}
				}
				r.removedExamples = append(r.removedExamples, fmt.Sprintf("%s on %s at %v-%v (faults on it around then: %v)", opNames[c.Op], srv.name, start.Round(time.Millisecond), end.Round(time.Millisecond), near))
			}
		}
		if c.Op != opEcho {
			return
		}
		ms := float32(float64(end-start) / float64(time.Millisecond))
		kind := kindOf[c.Server]
		if start >= baseFrom && end <= r.quietEnd && c.Class == cResult {
			baseline[kind] = append(baseline[kind], ms)
		}
		if start < r.quietEnd || end > r.loadEnd {
			return
		}
		w := int((start - r.quietEnd) / r.cfg.window)
		if w >= len(windows) {
			return
		}
		if c.Class == cResult {
			echoAll[w] = append(echoAll[w], ms)
		}
		windows[w].Calls++
		if r.touched(srv.name, windows[w].From, windows[w].To) {
			return
		}
		r.untouchedEcho++
		if c.Class != cResult {
			r.untouchedFail++
			return
		}
		untouched[winKind{w, kind}] = append(untouched[winKind{w, kind}], ms)
	})
	if err != nil {
		return err
	}
	// The control probe's slots, over the same baseline and windows.
	var probeBase []float32
	probeWin := make([][]float32, len(windows))
	err = readProbe(probePath, func(p probeRec) {
		at, ms := time.Duration(p.At), float32(float64(p.Lat)/float64(time.Millisecond))
		if at >= baseFrom && at < r.quietEnd {
			probeBase = append(probeBase, ms)
		}
		if at < r.quietEnd {
			return
		}
		if w := int((at - r.quietEnd) / r.cfg.window); w < len(windows) {
			probeWin[w] = append(probeWin[w], ms)
		}
	})
	if err != nil {
		return fmt.Errorf("control probe: %w", err)
	}
	for id := int64(1); id <= r.calls; id++ {
		if seen[id] == 0 {
			r.missing++
		}
	}
	r.baselineP99, r.baselineN = map[string]float64{}, map[string]int{}
	for k, v := range baseline {
		r.baselineP99[k] = pct(v, 0.99)
		r.baselineN[k] = len(v)
	}
	for w := range windows {
		ws := &windows[w]
		ws.EchoP50, ws.EchoP99 = pct(echoAll[w], 0.5), pct(echoAll[w], 0.99)
		for _, s := range r.fleet {
			if r.touched(s.name, ws.From, ws.To) {
				ws.Touched++
			}
		}
		for _, f := range r.faults {
			if f.At >= ws.From && f.At < ws.To {
				ws.FaultsSeen++
			}
		}
	}
	r.iso = r.judgeIsolation(windows, untouched, probeBase, probeWin)
	r.windows = windows
	r.slopes()
	r.breakers()
	r.makeChecks()
	return nil
}

func (r *report) spanExample(c *callRec) {
	if len(r.spanExamples) < 10 {
		r.spanExamples = append(r.spanExamples, fmt.Sprintf("%s %s on %s: %s (%s), %d spans, error.type %q",
			opNames[c.Op], "call", r.fleet[c.Server].name, c.Class, c.Cause, c.Spans, spanTypeCodes[c.SpanType]))
	}
}

// pct is the q quantile of v (sorted in place), in the unit of v.
func pct(v []float32, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	i := int(math.Ceil(q*float64(len(v)))) - 1
	return float64(v[max(0, min(i, len(v)-1))])
}

// wasRemoved: the server was not a member at some moment of [from, to]
// (with 2 s for the manager's table to catch up).
func (r *report) wasRemoved(name string, from, to time.Duration) bool {
	for _, x := range r.removals {
		end := x.To
		if end == 0 {
			end = r.loadEnd + r.cfg.grace
		}
		if x.Server == name && from <= end+2*time.Second && to >= x.From {
			return true
		}
	}
	return false
}

// inReload: a Reload that changed the server's configuration was under
// way, or its server not yet ready again, at some moment of [from, to].
func (r *report) inReload(name string, from, to time.Duration) bool {
	for _, f := range r.faults {
		if f.Kind != fReload || f.Server != name {
			continue
		}
		until := f.End + f.Bound
		if f.Recovered {
			until = f.End + f.Recovery
		}
		if from <= until && to >= f.At {
			return true
		}
	}
	return false
}

// touched: a fault acted on the server, or it was recovering, during
// [from, to).
func (r *report) touched(name string, from, to time.Duration) bool {
	for _, f := range r.faults {
		if f.Server != name {
			continue
		}
		until := f.End + f.Bound
		if f.Recovered {
			until = f.End + f.Recovery
		}
		// A second of margin: the effects of a kill reach calls made
		// just before it.
		if f.At-time.Second < to && until >= from {
			return true
		}
	}
	return false
}

// computeRecoveryPrep sets each fault's bound before the pass.
func (r *report) computeRecoveryPrep() {
	for _, f := range r.faults {
		f.Bound = recoveryBound(f.Kind)
		if f.End == 0 {
			f.End = r.loadEnd
		}
	}
}

// noteRecovery: a call that succeeded on a server after one of its
// faults ended is a recovery candidate (the first one counts).
func (r *report) noteRecovery(c *callRec, name string) {
	if c.Class != cResult && c.Class != cToolError {
		return
	}
	start, end := time.Duration(c.Start), time.Duration(c.End)
	for _, f := range r.faults {
		if f.Server != name || start < f.End {
			continue
		}
		if d := end - f.End; !f.Recovered || d < f.Recovery {
			f.Recovered, f.Recovery = true, d
		}
	}
}

// finishRecovery finds when each server hit was ready again: the first
// ready state after it left that state, both within the fault's bound (a
// server that never left ready has no such time).
func (r *report) finishRecovery() {
	for _, f := range r.faults {
		if f.Server == "" {
			continue
		}
		left := false
		for _, e := range r.events {
			if e.Server != f.Server || e.At < f.At {
				continue
			}
			if e.At > f.End+f.Bound {
				break
			}
			if e.State != mcpactor.StateReady {
				left = true
				continue
			}
			if left {
				f.Ready = e.At - f.At
				break
			}
		}
	}
}

// breakers lists the breakers that opened where no crash loop was made.
func (r *report) breakers() {
	for _, e := range r.events {
		if e.State != mcpactor.StateBreakerOpen {
			continue
		}
		ok := false
		for _, f := range r.faults {
			if f.Kind == fCrashLoop && f.Server == e.Server && e.At >= f.At && e.At <= f.End+time.Minute {
				f.Breaker, ok = true, true
			}
		}
		if !ok {
			r.breakerBad = append(r.breakerBad, fmt.Sprintf("%s at %v (%s)", e.Server, e.At.Round(time.Second), e.Err))
		}
	}
}

// slopes fits RSS and the live heap against time over the samples after
// the quiet baseline (least squares), in MiB per minute.
func (r *report) slopes() {
	var xs, heap, rss []float64
	for _, s := range r.samples {
		if len(s.Zombies) > 0 {
			r.sampleZombies += len(s.Zombies)
		}
		if s.At < r.quietEnd || s.At > r.loadEnd {
			continue
		}
		xs = append(xs, s.At.Minutes())
		heap = append(heap, float64(s.HeapLive)/(1<<20))
		rss = append(rss, float64(s.RSS)/(1<<20))
	}
	r.heapSlope, r.rssSlope = slope(xs, heap), slope(xs, rss)
}

func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if n < 3 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}

// makeChecks states every check and its verdict.
func (r *report) makeChecks() {
	add := func(name string, pass bool, format string, args ...any) {
		r.checks = append(r.checks, check{Name: name, Pass: pass, Detail: fmt.Sprintf(format, args...)})
	}
	add("every call ended exactly once", r.missing == 0 && r.dups == 0 && r.stuck == 0 && r.recorded == r.calls,
		"%d calls started, %d recorded, %d never ended, %d ended twice, %d still in a call after the grace period", r.calls, r.recorded, r.missing, r.dups, r.stuck)
	add("every outcome classified", r.byClass[cUnknown] == 0, "%d unclassified%s", r.byClass[cUnknown], listSuffix(r.unknowns))
	add("no call ended after the grace period", r.afterGrace == 0, "%d ended after load end + %v", r.afterGrace, r.cfg.grace)
	add("every call within its deadline", r.overDeadline == 0, "%d calls lasted over their context deadline (%v) + 2 s", r.overDeadline, r.cfg.callLimit)
	add("no progress after a call returned", r.lateProgress == 0, "%d progress notifications delivered after their call returned", r.lateProgress)
	add("a \"removed\" outcome only while removed", r.removedBad == 0, "%d calls failed as removed outside any Remove..Add%s", r.removedBad, listSuffix(r.removedExamples))
	r.checks = append(r.checks, check{Name: "no call to a server a Reload restarts fails as removed (found by the soak)", Pass: r.reloadDrops == 0,
		Detail: fmt.Sprintf("%d calls failed with an unknown-tool ErrNotFound while a Reload restarted their server (TestSoakFound_ReloadDropsTools)", r.reloadDrops)})
	r.checks = append(r.checks, check{Name: "every error matches a root error (found by the soak)", Pass: r.byCause[causeStreamBroken] == 0,
		Detail: fmt.Sprintf("%d calls failed with a broken response stream, which matches none of the root package's errors (TestSoakFound_StreamBrokenUnmatched)%s", r.byCause[causeStreamBroken], listSuffix(r.findingErrs[findStreamBroken]))})
	r.checks = append(r.checks, r.isolationCheck())
	var notRecovered, injectFailed []string
	checked := 0
	for _, f := range r.faults {
		if f.Err != "" {
			injectFailed = append(injectFailed, fmt.Sprintf("#%d %s %s: %s", f.Seq, f.Kind, f.Server, f.Err))
			continue
		}
		if f.Server == "" {
			continue
		}
		if !f.Recovered && f.End+f.Bound > r.loadEnd {
			continue // the load ended before the bound: nothing to judge
		}
		checked++
		if !f.Recovered || f.Recovery > f.Bound {
			notRecovered = append(notRecovered, fmt.Sprintf("#%d %s %s (recovered %v, after %v, bound %v)", f.Seq, f.Kind, f.Server, f.Recovered, f.Recovery.Round(time.Millisecond), f.Bound))
		}
	}
	add("every fault injected as drawn", len(injectFailed) == 0, "%d of %d failed%s", len(injectFailed), len(r.faults), listSuffix(injectFailed))
	add("recovery: calls succeed on every server hit within its bound", len(notRecovered) == 0, "%d faults judged, %d not recovered in time%s", checked, len(notRecovered), listSuffix(notRecovered))
	add("breakers open only for servers made to fail repeatedly", len(r.breakerBad) == 0, "%d unexpected%s", len(r.breakerBad), listSuffix(r.breakerBad))
	td := r.teardown
	add("Close and Stop succeed", td.CloseErr == "" && td.StopErr == "", "Close: %q, Stop: %q (took %v)", td.CloseErr, td.StopErr, td.StopTook.Round(time.Millisecond))
	add("no server process left after Stop", td.RuntimeChildren == 0 && td.After.Children == r.base.Children,
		"%d of the runtime's left 10 s after Stop; %d children at the end (%d before)", td.RuntimeChildren, td.After.Children, r.base.Children)
	add("goroutines and descriptors back to the baseline", td.After.Goroutines <= r.base.Goroutines+leakSlack && td.After.FDs <= r.base.FDs+leakSlack,
		"goroutines %d (before %d), fds %d (before %d), slack %d, settled in %v", td.After.Goroutines, r.base.Goroutines, td.After.FDs, r.base.FDs, leakSlack, td.Settled.Round(time.Millisecond))
	add("no zombie at any sample", r.sampleZombies == 0 && len(td.Zombies) == 0, "%d zombies in samples, %d after Stop", r.sampleZombies, len(td.Zombies))
	add("live heap flat", r.heapSlope <= r.cfg.heapSlopeMiB, "slope %+.2f MiB/min after the baseline, bound %.0f", r.heapSlope, r.cfg.heapSlopeMiB)
	add("RSS flat", r.rssSlope <= r.cfg.rssSlopeMiB, "slope %+.2f MiB/min after the baseline, bound %.0f", r.rssSlope, r.cfg.rssSlopeMiB)
	add("one span per call, with the call's outcome", r.spanBad == 0 && r.spanMismatch == 0 && r.spansLate == 0,
		"%d calls with a wrong number of spans, %d with another outcome, %d spans ended after their call%s", r.spanBad, r.spanMismatch, r.spansLate, listSuffix(r.spanExamples))
	add("every span ended", r.spansStarted == r.spansEnded, "%d runtime spans started, %d ended", r.spansStarted, r.spansEnded)
}

// The findings whose errors the run keeps.
const findStreamBroken = "stream-broken"

func (r *report) meanInFlight() float64 {
	var sum float64
	n := 0
	for _, s := range r.samples {
		if s.At >= r.loadStart && s.At <= r.loadEnd {
			sum += float64(s.InFlight)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func (r *report) maxInFlight() int64 {
	var m int64
	for _, s := range r.samples {
		m = max(m, s.InFlight)
	}
	return m
}

func listSuffix(items []string) string {
	if len(items) == 0 {
		return ""
	}
	if len(items) > 8 {
		items = append(slices.Clone(items[:8]), fmt.Sprintf("and %d more", len(items)-8))
	}
	return ": " + strings.Join(items, "; ")
}

// summary is the run in a few lines, for the terminal and the test log.
func (r *report) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "soak: %d servers, %d callers (in flight: mean %.0f, max %d), %v of load, %d faults, %d calls (seed %d)\n",
		len(r.fleet), r.cfg.callers, r.meanInFlight(), r.maxInFlight(), (r.loadEnd - r.loadStart).Round(time.Second), len(r.faults), r.calls, r.cfg.seed)
	var parts []string
	for c := class(0); c < nClasses; c++ {
		if r.byClass[c] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, r.byClass[c]))
		}
	}
	fmt.Fprintf(&b, "outcomes: %s\n", strings.Join(parts, ", "))
	parts = parts[:0]
	for c := cause(1); c < nCauses; c++ {
		if r.byCause[c] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, r.byCause[c]))
		}
	}
	fmt.Fprintf(&b, "causes: %s\n", strings.Join(parts, ", "))
	kinds := map[string]int{}
	for _, f := range r.faults {
		kinds[f.Kind]++
	}
	keys := make([]string, 0, len(kinds))
	for k := range kinds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts = parts[:0]
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, kinds[k]))
	}
	fmt.Fprintf(&b, "faults: %s\n", strings.Join(parts, ", "))
	for _, c := range r.checks {
		v := "ok  "
		switch {
		case !c.Pass && c.Finding:
			v = "FINDING"
		case c.Inconclusive:
			v = "INCONCLUSIVE"
		case !c.Pass:
			v = "FAIL"
		}
		fmt.Fprintf(&b, "%s %s: %s\n", v, c.Name, c.Detail)
	}
	return b.String()
}
