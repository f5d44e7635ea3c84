package main

import (
	"fmt"
	"math"
	"time"
)

// The isolation check, judged against the machine in the same run.
//
// A fault on one server must not slow the others: in each window after
// the quiet baseline, an untouched kind's echo p99 stays within a bound of
// that kind's p99 in the baseline. But on a small machine shared by the
// soak, the runtime, the fleet and the faults' restarts, a window can be
// slow for everyone, the runtime's callers and a probe outside the
// runtime alike; such a window measures the machine, not the runtime.
// So a window is judged only when the control probe (probe.go) was
// itself within probeBound of its own baseline p99 then; a judged window
// fails when an untouched kind's echo p99 is over isolationBound of its
// baseline. Windows not judged are counted and shown. The run passes
// only if no judged window fails and at least half the windows were
// judged; with fewer judged and none failed, the verdict is inconclusive:
// not a pass, and not a fault of the runtime either.

// verdict is a check's, or a run's, outcome.
type verdict int

const (
	verdictPass verdict = iota
	// verdictInconclusive: the check could not be judged (isolation, on
	// a machine starved for most of the run); no check failed.
	verdictInconclusive
	verdictFail
)

func (v verdict) String() string {
	return [...]string{"pass", "inconclusive", "FAIL"}[v]
}

// winKind is a (window, kind) of the untouched servers' echo calls.
type winKind struct {
	w    int
	kind string
}

// isoRow is one (window, kind) of untouched echo calls, as measured: the
// raw numbers the page shows so that a reader can judge the rule too.
type isoRow struct {
	Window  int
	Kind    string
	N       int
	P99     float64 // ms
	Base    float64 // the kind's quiet-baseline p99, ms
	BaseN   int
	Ratio   float64 // p99 / baseline (floors applied); 0: too few calls to count
	Counted bool
}

// isolation is what the check found.
type isolation struct {
	ProbeBaseP99 float64 // ms
	ProbeBaseN   int
	Judged       int
	Failed       int
	Verdict      verdict
	// The worst untouched p99 / baseline among judged windows, and among
	// those not judged (shown, not judged).
	WorstJudged, WorstUnjudged           float64
	WorstJudgedWhere, WorstUnjudgedWhere string
	Rows                                 []isoRow
}

// judgeIsolation fills each window's probe and echo numbers and its
// judgement, and the run's verdict, from the untouched echo latencies
// (ms) by (window, kind) and the probe's slots (ms) in the baseline and
// by window.
func (r *report) judgeIsolation(windows []windowStat, untouched map[winKind][]float32, probeBase []float32, probeWin [][]float32) isolation {
	iso := isolation{ProbeBaseP99: pct(probeBase, 0.99), ProbeBaseN: len(probeBase)}
	floor := float64(r.cfg.isolationFloor) / float64(time.Millisecond)
	pfloor := float64(r.cfg.probeFloor) / float64(time.Millisecond)
	for w := range windows {
		ws := &windows[w]
		ws.ProbeN = len(probeWin[w])
		ws.ProbeP99, ws.ProbeMax = pct(probeWin[w], 0.99), pct(probeWin[w], 1)
		if ws.ProbeN > 0 && iso.ProbeBaseN > 0 && math.Max(iso.ProbeBaseP99, pfloor) > 0 {
			ws.ProbeRatio = math.Max(ws.ProbeP99, pfloor) / math.Max(iso.ProbeBaseP99, pfloor)
			ws.Judged = ws.ProbeRatio <= r.cfg.probeBound
		}
		for _, k := range kindOrder {
			v := untouched[winKind{w, k}]
			if len(v) == 0 {
				continue
			}
			base, ok := r.baselineP99[k]
			if !ok {
				base = math.NaN()
			}
			row := isoRow{Window: w, Kind: k, N: len(v), P99: pct(v, 0.99), Base: base, BaseN: r.baselineN[k]}
			if row.N >= r.cfg.isolationMin && row.BaseN >= r.cfg.isolationMin && row.Base > 0 {
				row.Counted = true
				row.Ratio = math.Max(row.P99, floor) / math.Max(row.Base, floor)
				if row.Ratio > ws.Ratio {
					ws.Ratio, ws.RatioKind = row.Ratio, k
				}
			}
			iso.Rows = append(iso.Rows, row)
		}
		where := fmt.Sprintf("%s at %s", ws.RatioKind, clock(ws.From.Seconds()))
		if !ws.Judged {
			if ws.Ratio > iso.WorstUnjudged {
				iso.WorstUnjudged, iso.WorstUnjudgedWhere = ws.Ratio, where
			}
			continue
		}
		iso.Judged++
		if ws.Ratio > iso.WorstJudged {
			iso.WorstJudged, iso.WorstJudgedWhere = ws.Ratio, where
		}
		if ws.Ratio > r.cfg.isolationBound {
			ws.Failed = true
			iso.Failed++
		}
	}
	switch {
	case iso.Failed > 0:
		iso.Verdict = verdictFail
	case len(windows) == 0 || 2*iso.Judged < len(windows):
		iso.Verdict = verdictInconclusive
	default:
		iso.Verdict = verdictPass
	}
	return iso
}

// isolationCheck states the isolation check.
func (r *report) isolationCheck() check {
	iso := r.iso
	c := check{
		Name:         "isolation: untouched servers' echo p99 within bound of the quiet baseline in every judged window",
		Pass:         iso.Verdict == verdictPass,
		Inconclusive: iso.Verdict == verdictInconclusive,
	}
	c.Detail = fmt.Sprintf("%d of %d windows of %v judged (control probe p99 within %.1fx of its baseline %s ms over %d slots), %d failed (an untouched kind with at least %d echo calls over %.1fx its baseline p99)",
		iso.Judged, len(r.windows), r.cfg.window, r.cfg.probeBound, num(iso.ProbeBaseP99), iso.ProbeBaseN, iso.Failed, r.cfg.isolationMin, r.cfg.isolationBound)
	if iso.WorstJudged > 0 {
		c.Detail += fmt.Sprintf("; worst judged %.2fx (%s)", iso.WorstJudged, iso.WorstJudgedWhere)
	}
	if n := len(r.windows) - iso.Judged; n > 0 {
		c.Detail += fmt.Sprintf("; %d not judged (the machine starved)", n)
		if iso.WorstUnjudged > 0 {
			c.Detail += fmt.Sprintf(", their worst %.2fx (%s)", iso.WorstUnjudged, iso.WorstUnjudgedWhere)
		}
	}
	if c.Inconclusive {
		c.Detail += "; inconclusive: fewer than half the windows judged"
	}
	c.Detail += fmt.Sprintf("; %d of %d echo calls to untouched servers did not succeed", r.untouchedFail, r.untouchedEcho)
	return c
}
