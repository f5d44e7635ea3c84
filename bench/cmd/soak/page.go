package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/docpage"
	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// The page's generated blocks are delimited by markers, as benchrun's
// (docpage.Markers): <!-- soak:NAME --> ... <!-- /soak:NAME -->.

// resultPassed is the run block's result of a passing run.
const resultPassed = "every check passed"

// errPageShowsPass: an inconclusive run does not replace a page that
// shows a passing run.
var errPageShowsPass = errors.New("the page shows a passing run, which an inconclusive one does not replace")

// writePage writes the run's blocks into the page and its charts beside
// it; the prose between the blocks stays as it is. A passing run writes
// them, and so does an inconclusive one (every check passed but
// isolation, which could not be judged; its run block says so), unless
// the page shows a passing run.
func writePage(cfg *config, r *report) error {
	page, err := os.ReadFile(cfg.docs)
	if err != nil {
		return err
	}
	switch r.verdict() {
	case verdictPass:
	case verdictInconclusive:
		if showsPass(string(page)) {
			return errPageShowsPass
		}
	default:
		return fmt.Errorf("a run that failed (%s) writes no page", r.failures())
	}
	if err := os.MkdirAll(cfg.charts, 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(cfg.docs), cfg.charts)
	if err != nil {
		return err
	}
	var links strings.Builder
	for _, c := range drawCharts(r) {
		if err := os.WriteFile(filepath.Join(cfg.charts, c.file), []byte(c.svg), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&links, "![%s](%s)\n\n", c.title, filepath.ToSlash(filepath.Join(rel, c.file)))
	}
	text := string(page)
	for _, blk := range []struct{ name, body string }{
		{"run", r.runBlock()},
		{"checks", r.checksBlock()},
		{"fleet", r.fleetBlock()},
		{"outcomes", r.outcomesBlock()},
		{"faults", r.faultsBlock()},
		{"latency", r.latencyBlock()},
		{"charts", links.String()},
	} {
		if text, err = docpage.Replace(text, "soak", blk.name, blk.body); err != nil {
			return err
		}
	}
	return os.WriteFile(cfg.docs, []byte(text), 0o644)
}

// showsPass: the page's run block is a passing run's.
func showsPass(page string) bool {
	begin, end := docpage.Markers("soak", "run")
	i, j := strings.Index(page, begin), strings.Index(page, end)
	return i >= 0 && j > i && strings.Contains(page[i:j], "**"+resultPassed+"**")
}

// markdown is every block of the page, one after the other, with the
// per-kind latency of every window: the report a -history directory keeps.
func (r *report) markdown() string {
	var b strings.Builder
	for _, blk := range []struct{ name, body string }{
		{"run", r.runBlock()}, {"checks", r.checksBlock()}, {"fleet", r.fleetBlock()}, {"outcomes", r.outcomesBlock()},
		{"faults", r.faultsBlock()}, {"latency", r.latencyBlock()},
	} {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", blk.name, blk.body)
	}
	b.WriteString("## samples\n\n| at | calls/s | in flight | RSS MiB | heap MiB | goroutines | fds | children |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.samples {
		fmt.Fprintf(&b, "| %s | %.0f | %d | %.1f | %.1f | %d | %d | %d |\n", clock(s.At.Seconds()), s.Rate, s.InFlight, float64(s.RSS)/(1<<20), float64(s.HeapLive)/(1<<20), s.Goroutines, s.FDs, s.Children)
	}
	return b.String()
}

func (r *report) runBlock() string {
	var b strings.Builder
	measure.WriteRunInfo(&b, "soak")
	fmt.Fprintf(&b, "- run: %v of load (the first %v a quiet baseline without faults), %d servers, %d concurrent callers (each a call every %v or so, slow answers %v on average; calls in flight: mean %.0f, max %d), %.0f faults a minute drawn at random, %v of grace for the calls in flight; seed %d\n",
		(r.loadEnd - r.loadStart).Round(time.Second), r.cfg.quiet, len(r.fleet), r.cfg.callers, r.cfg.pace, r.cfg.slow, r.meanInFlight(), r.maxInFlight(), r.cfg.faultsPerMin, r.cfg.grace, r.cfg.seed)
	fmt.Fprintf(&b, "- calls: %d (%.0f/s on average); %d server-to-client requests answered by handlers; %d notifications heard; %d runtime spans\n",
		r.calls, float64(r.calls)/(r.loadEnd-r.loadStart).Seconds(), r.handlerCalls, r.notifications, r.spansEnded)
	switch r.verdict() {
	case verdictPass:
		fmt.Fprintf(&b, "- result: **%s**\n", resultPassed)
	case verdictInconclusive:
		fmt.Fprintf(&b, "- result: **inconclusive**: every other check passed, but isolation could not be judged: %d of %d windows judged, at least half needed (the control probe says the machine was starved in the others; the table under \"Latency and isolation\" has every window's numbers). Not a pass.\n",
			r.iso.Judged, len(r.windows))
	default:
		b.WriteString("- result: **FAILED**\n")
	}
	if d, long := r.loadEnd-r.loadStart, longConfig().duration; d < long {
		fmt.Fprintf(&b, "- note: a run of %v, shorter than `make soak`'s %v\n", d.Round(time.Second), long)
	}
	return b.String()
}

func (r *report) checksBlock() string {
	var b strings.Builder
	b.WriteString("| check | result | measured |\n|---|---|---|\n")
	for _, c := range r.checks {
		v := map[bool]string{true: "pass", false: "**FAIL**"}[c.Pass]
		switch {
		case !c.Pass && c.Finding:
			v = "**finding** (reported, not failed)"
		case c.Inconclusive:
			v = "**inconclusive** (not judged: the machine was starved)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", c.Name, v, esc(c.Detail))
	}
	return b.String()
}

func (r *report) fleetBlock() string {
	var b strings.Builder
	b.WriteString("| kind | servers | what |\n|---|---:|---|\n")
	for _, kc := range fleetTable(r.fleet) {
		fmt.Fprintf(&b, "| %s | %d | %s |\n", kc.Kind, kc.Count, esc(kindDesc[kc.Kind]))
	}
	fmt.Fprintf(&b, "\nEvery server: connect timeout %v, request timeout %v, keepalive %v, restarts with backoff up to %v (at most 10000 a minute; the fragile ones 2 in 30 s), breaker retry %v.\n",
		connectTimeout, requestTimeout, keepalive, backoffMax, breakerRetry)
	return b.String()
}

func (r *report) outcomesBlock() string {
	var b strings.Builder
	total := float64(r.recorded)
	b.WriteString("| outcome | calls | share |\n|---|---:|---:|\n")
	for c := class(0); c < nClasses; c++ {
		if r.byClass[c] > 0 || c == cUnknown {
			fmt.Fprintf(&b, "| %s | %d | %.2f%% |\n", c, r.byClass[c], 100*float64(r.byClass[c])/total)
		}
	}
	b.WriteString("\nTransport failures and unusable answers by cause:\n\n| cause | calls |\n|---|---:|\n")
	for c := cause(1); c < nCauses; c++ {
		if r.byCause[c] > 0 {
			fmt.Fprintf(&b, "| %s | %d |\n", c, r.byCause[c])
		}
	}
	b.WriteString("\nBy operation (columns: outcomes):\n\n| operation |")
	var cols []class
	for c := class(1); c < nClasses; c++ {
		if r.byClass[c] > 0 {
			cols = append(cols, c)
			fmt.Fprintf(&b, " %s |", c)
		}
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(cols)) + "\n")
	for op := range uint8(nOps) {
		var row []string
		n := int64(0)
		for _, c := range cols {
			row = append(row, fmt.Sprint(r.byOp[op][c]))
			n += r.byOp[op][c]
		}
		if n > 0 {
			fmt.Fprintf(&b, "| %s | %s |\n", opNames[op], strings.Join(row, " | "))
		}
	}
	return b.String()
}

func (r *report) faultsBlock() string {
	var b strings.Builder
	type agg struct {
		n, judged, recovered int
		rec                  []time.Duration
		ready                []time.Duration
		bound                time.Duration
	}
	byKind := map[string]*agg{}
	for _, f := range r.faults {
		a := byKind[f.Kind]
		if a == nil {
			a = &agg{bound: recoveryBound(f.Kind)}
			byKind[f.Kind] = a
		}
		a.n++
		if f.Server != "" && f.Err == "" && (f.Recovered || f.End+f.Bound <= r.loadEnd) {
			a.judged++
			if f.Recovered && f.Recovery <= f.Bound {
				a.recovered++
			}
			if f.Recovered {
				a.rec = append(a.rec, f.Recovery)
			}
		}
		if f.Ready > 0 {
			a.ready = append(a.ready, f.Ready)
		}
	}
	b.WriteString("| fault | injected | judged | recovered in bound | first success after it (median / max) | ready again (median / max) | bound |\n|---|---:|---:|---:|---|---|---:|\n")
	for _, k := range faultKinds {
		a := byKind[k]
		if a == nil {
			fmt.Fprintf(&b, "| %s | 0 | | | | | |\n", k)
			continue
		}
		bound := "-"
		if a.bound > 0 {
			bound = a.bound.String()
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %s | %s |\n", k, a.n, a.judged, a.recovered, medMax(a.rec), medMax(a.ready), bound)
	}
	b.WriteString("\n<details><summary>The fault schedule (every fault, with its time)</summary>\n\n")
	b.WriteString("| # | at | fault | server | what | ended | first success after | ready again |\n|---:|---|---|---|---|---|---|---|\n")
	for _, f := range r.faults {
		what := f.Detail
		if f.Err != "" {
			what += " — failed: " + f.Err
		}
		rec, ready := "", ""
		if f.Recovered {
			rec = f.Recovery.Round(time.Millisecond).String()
		}
		if f.Ready > 0 {
			ready = f.Ready.Round(time.Millisecond).String()
		}
		if f.Breaker {
			ready += " (breaker opened)"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s |\n", f.Seq, clockMS(f.At), f.Kind, f.Server, esc(what), clockMS(f.End), rec, ready)
	}
	b.WriteString("\n</details>\n")
	return b.String()
}

func (r *report) latencyBlock() string {
	var b strings.Builder
	var kinds []string
	for _, k := range kindOrder {
		if _, ok := r.baselineP99[k]; ok {
			kinds = append(kinds, k)
		}
	}
	b.WriteString("Quiet baseline, echo p99 by kind: ")
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %.1f ms (%d calls)", k, r.baselineP99[k], r.baselineN[k]))
	}
	b.WriteString(strings.Join(parts, ", ") + ".\n\n")
	fmt.Fprintf(&b, "Quiet baseline, control probe p99: %s ms (%d slots of %v). A window is judged when the probe's p99 in it is within %.1fx of that", num(r.iso.ProbeBaseP99), r.iso.ProbeBaseN, probeEvery, r.cfg.probeBound)
	if r.cfg.probeFloor > 0 {
		fmt.Fprintf(&b, " (p99s under %v counted as %v)", r.cfg.probeFloor, r.cfg.probeFloor)
	}
	fmt.Fprintf(&b, "; a judged window fails when an untouched kind's echo p99 is over %.1fx its baseline. Isolation: **%s**, %d of %d windows judged, %d failed.\n\n", r.cfg.isolationBound, r.iso.Verdict, r.iso.Judged, len(r.windows), r.iso.Failed)
	b.WriteString("| window | echo calls | p50 (ms) | p99 (ms) | faults begun | servers touched | probe p99 / max (ms) | probe p99 / baseline | worst untouched p99 / baseline | verdict |\n|---|---:|---:|---:|---:|---:|---|---:|---|---|\n")
	for _, w := range r.windows {
		ratio := "-"
		if w.Ratio > 0 {
			ratio = fmt.Sprintf("%.2fx (%s)", w.Ratio, w.RatioKind)
		}
		probeRatio := "-"
		if w.ProbeRatio > 0 {
			probeRatio = fmt.Sprintf("%.2fx", w.ProbeRatio)
		}
		v := "not judged"
		switch {
		case w.Failed:
			v = "**FAIL**"
		case w.Judged:
			v = "pass"
		}
		fmt.Fprintf(&b, "| %s–%s | %d | %s | %s | %d | %d | %s / %s | %s | %s | %s |\n", clock(w.From.Seconds()), clock(w.To.Seconds()), w.Calls, num(w.EchoP50), num(w.EchoP99), w.FaultsSeen, w.Touched, num(w.ProbeP99), num(w.ProbeMax), probeRatio, ratio, v)
	}
	fmt.Fprintf(&b, "\n<details><summary>Untouched servers' echo p99 by window and kind (a kind counts in a window with at least %d calls)</summary>\n\n", r.cfg.isolationMin)
	b.WriteString("| window | kind | calls | p99 (ms) | baseline p99 (ms) | baseline calls | p99 / baseline |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, row := range r.iso.Rows {
		ratio := "(too few calls)"
		if row.Counted {
			ratio = fmt.Sprintf("%.2fx", row.Ratio)
		}
		w := r.windows[row.Window]
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %d | %s |\n", clock(w.From.Seconds()), row.Kind, row.N, num(row.P99), num(row.Base), row.BaseN, ratio)
	}
	b.WriteString("\n</details>\n")
	return b.String()
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

func medMax(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("%v / %v", s[len(s)/2].Round(time.Millisecond), s[len(s)-1].Round(time.Millisecond))
}

func clockMS(d time.Duration) string {
	return fmt.Sprintf("%d:%06.3f", int(d.Minutes()), math.Mod(d.Seconds(), 60))
}

// esc makes text safe in a table cell.
func esc(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}
