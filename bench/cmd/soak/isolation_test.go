package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The synthetic runs of the isolation tests: a quiet baseline to 40 s
// (its first quarter left out), then four windows of 10 s; two untouched
// servers making an echo call every 100 ms each (100 calls per window and
// kind), and the control probe's 20 ms slots.
const (
	synthQuiet  = 40 * time.Second
	synthWinLen = 10 * time.Second
	synthEnd    = 80 * time.Second
	synthCall   = 100 * time.Millisecond
)

// A window of a synthetic run, as the machine and the runtime made it.
type synthWin int

const (
	calm          synthWin = iota
	runtimeStall           // echo calls slow for a second, the probe on time: the runtime's
	machineStall           // both slow for two seconds: the machine's
	shortProbeGap          // echo calls slow for a second, the probe for 1% of the window
)

// synthRun writes the history and the probe's file of a run whose
// windows after the baseline are as given, and analyses it.
func synthRun(t *testing.T, windows ...synthWin) *report {
	t.Helper()
	cfg := longConfig()
	cfg.quiet, cfg.window, cfg.grace = synthQuiet, synthWinLen, 5*time.Second
	cfg.isolationMin = 50
	dir := t.TempDir()
	fleet := []*server{{idx: 0, name: "test-1", kind: kTest}, {idx: 1, name: "fast-1", kind: kFast}}
	// What a window does at the moment at (since the run's start):
	// its echo latency and its probe latency.
	state := func(at time.Duration) synthWin {
		if at < synthQuiet {
			return calm
		}
		return windows[int((at-synthQuiet)/synthWinLen)]
	}
	into := func(at time.Duration) time.Duration { return (at - synthQuiet) % synthWinLen }
	echo := func(at time.Duration, i int) time.Duration {
		d := time.Duration(10+i%5) * time.Millisecond
		switch state(at) {
		case runtimeStall, shortProbeGap:
			if into(at) >= 3*time.Second && into(at) < 4*time.Second {
				d = 100 * time.Millisecond
			}
		case machineStall:
			if into(at) >= 3*time.Second && into(at) < 5*time.Second {
				d = 400 * time.Millisecond
			}
		}
		return d
	}
	probe := func(at time.Duration, i int) time.Duration {
		d := time.Millisecond + time.Duration(i%3)*100*time.Microsecond
		switch state(at) {
		case machineStall:
			if into(at) >= 3*time.Second && into(at) < 5*time.Second {
				d = 400 * time.Millisecond
			}
		case shortProbeGap:
			// 1% of the window's slots: at its p99, not over it.
			if into(at) >= 3*time.Second && into(at) < 3*time.Second+100*time.Millisecond {
				d = 400 * time.Millisecond
			}
		}
		return d
	}

	histPath, probePath := filepath.Join(dir, "calls.bin"), filepath.Join(dir, "probe.bin")
	h, err := newHistory(histPath)
	if err != nil {
		t.Fatal(err)
	}
	var id uint32
	for i, at := 0, cfg.quiet/4; at+synthCall <= synthEnd; i, at = i+1, at+synthCall {
		for s := range fleet {
			id++
			h.add(&callRec{ID: id, Server: uint16(s), Op: opEcho, Class: cResult, Spans: 1, Start: int64(at), End: int64(at + echo(at, i))})
		}
	}
	if err := h.close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(probePath)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i, at := 0, time.Duration(0); at < synthEnd; i, at = i+1, at+probeEvery {
		if err := binary.Write(w, binary.LittleEndian, &probeRec{At: int64(at), Lat: int64(probe(at, i))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	rep := &report{cfg: &cfg, fleet: fleet, loadStart: 0, quietEnd: synthQuiet, loadEnd: synthEnd, calls: int64(id), findingErrs: map[string][]string{}}
	if err := rep.analyze(histPath, probePath); err != nil {
		t.Fatal(err)
	}
	if len(rep.windows) != len(windows) {
		t.Fatalf("%d windows, want %d", len(rep.windows), len(windows))
	}
	// Every other check passes: the run's verdict is isolation's.
	for _, c := range rep.checks {
		if !c.Pass && !strings.HasPrefix(c.Name, "isolation") {
			t.Fatalf("check %q failed: %s", c.Name, c.Detail)
		}
	}
	return rep
}

func isolationOf(t *testing.T, r *report) check {
	t.Helper()
	for _, c := range r.checks {
		if strings.HasPrefix(c.Name, "isolation") {
			return c
		}
	}
	t.Fatal("no isolation check")
	return check{}
}

// judged lists which windows were judged, and which failed.
func judged(r *report) (j, failed []bool) {
	for _, w := range r.windows {
		j, failed = append(j, w.Judged), append(failed, w.Failed)
	}
	return j, failed
}

func TestIsolationRuntimeStallFails(t *testing.T) {
	r := synthRun(t, calm, runtimeStall, calm, calm)
	c := isolationOf(t, r)
	if c.Pass || c.Inconclusive || r.verdict() != verdictFail {
		t.Fatalf("a runtime stall under a calm probe: pass %v, inconclusive %v, run %v; want a failure (%s)", c.Pass, c.Inconclusive, r.verdict(), c.Detail)
	}
	j, failed := judged(r)
	if !j[1] || !failed[1] || failed[0] || failed[2] || failed[3] {
		t.Errorf("judged %v, failed %v; want window 1 judged and failed, no other failed", j, failed)
	}
	if r.iso.Judged != 4 || r.iso.Failed != 1 {
		t.Errorf("%d judged, %d failed; want 4 and 1", r.iso.Judged, r.iso.Failed)
	}
	if w := r.windows[1]; w.Ratio < 5 || w.ProbeRatio > 1.5 {
		t.Errorf("window 1: echo %.2fx, probe %.2fx; want echo over 5x (100 ms over 14 ms), probe within 1.5x", w.Ratio, w.ProbeRatio)
	}
}

func TestIsolationMachineStallNotJudged(t *testing.T) {
	r := synthRun(t, calm, machineStall, calm, calm)
	c := isolationOf(t, r)
	if !c.Pass || r.verdict() != verdictPass {
		t.Fatalf("a machine stall in one window of four: pass %v, run %v; want a pass (%s)", c.Pass, r.verdict(), c.Detail)
	}
	j, failed := judged(r)
	if j[1] || !j[0] || !j[2] || !j[3] || failed[1] {
		t.Errorf("judged %v, failed %v; want window 1 alone not judged, none failed", j, failed)
	}
	// Not judged, but counted and shown with its numbers.
	if w := r.windows[1]; w.Ratio <= r.cfg.isolationBound || w.ProbeRatio <= r.cfg.probeBound {
		t.Errorf("window 1: echo %.2fx, probe %.2fx; want both over their bounds, kept", w.Ratio, w.ProbeRatio)
	}
	if !strings.Contains(c.Detail, "3 of 4 windows") || !strings.Contains(c.Detail, "1 not judged") {
		t.Errorf("detail %q does not count the window not judged", c.Detail)
	}
	if page := r.latencyBlock(); !strings.Contains(page, "not judged") {
		t.Errorf("the page's window table does not show the window not judged:\n%s", page)
	}
}

func TestIsolationTooFewJudgedInconclusive(t *testing.T) {
	r := synthRun(t, machineStall, machineStall, machineStall, calm)
	c := isolationOf(t, r)
	if c.Pass || !c.Inconclusive || r.verdict() != verdictInconclusive || r.passed() {
		t.Fatalf("one window of four judged: pass %v, inconclusive %v, run %v; want inconclusive, not a pass (%s)", c.Pass, c.Inconclusive, r.verdict(), c.Detail)
	}
	if r.iso.Judged != 1 {
		t.Errorf("%d judged, want 1", r.iso.Judged)
	}
	if !strings.Contains(r.runBlock(), "**inconclusive**") {
		t.Errorf("the run block does not say inconclusive:\n%s", r.runBlock())
	}
	// Half the windows judged is enough.
	if r := synthRun(t, machineStall, machineStall, calm, calm); r.verdict() != verdictPass {
		t.Errorf("two windows of four judged: run %v, want a pass (%s)", r.verdict(), isolationOf(t, r).Detail)
	}
}

func TestIsolationCleanPass(t *testing.T) {
	r := synthRun(t, calm, calm, calm, calm)
	c := isolationOf(t, r)
	if !c.Pass || c.Inconclusive || r.verdict() != verdictPass {
		t.Fatalf("a calm run: pass %v, inconclusive %v, run %v; want a pass (%s)", c.Pass, c.Inconclusive, r.verdict(), c.Detail)
	}
	if r.iso.Judged != 4 || r.iso.Failed != 0 || r.iso.WorstJudged > 1.01 {
		t.Errorf("%d judged, %d failed, worst %.2fx; want 4, 0, 1.00x", r.iso.Judged, r.iso.Failed, r.iso.WorstJudged)
	}
	if p := r.iso.ProbeBaseP99; p < 1.1 || p > 1.3 {
		t.Errorf("the probe's baseline p99 %.2f ms, want 1.2", p)
	}
}

// A probe slow for a tenth of a second is 1% of a window's slots: not a
// starved machine, so the runtime's stall in that window is judged.
func TestIsolationBriefProbeGapStillJudged(t *testing.T) {
	r := synthRun(t, calm, shortProbeGap, calm, calm)
	if w := r.windows[1]; !w.Judged || !w.Failed || r.verdict() != verdictFail {
		t.Fatalf("window 1: judged %v, failed %v, run %v (probe %.2fx); want judged and failed", w.Judged, w.Failed, r.verdict(), w.ProbeRatio)
	}
}

// A probe frozen with the machine answers every slot it missed late, so
// that a freeze is as many slow slots as it lasts, whether the probe was
// in its round trip or waiting for its next slot.
func TestProbeSlotsCountAFreeze(t *testing.T) {
	start := time.Unix(1000, 0)
	var got []probeRec
	rec := func(p probeRec) { got = append(got, p) }
	// On time: one slot, the trip's own latency.
	next := probeSlots(start, start, start.Add(time.Millisecond), start.Add(2*time.Millisecond), probeEvery, rec)
	if len(got) != 1 || got[0].Lat != int64(2*time.Millisecond) || !next.Equal(start.Add(probeEvery)) {
		t.Fatalf("on time: %v, next %v", got, next.Sub(start))
	}
	// Frozen for a second while waiting for the slot at 20 ms: sent at
	// 1.02 s, back 1 ms later. Every slot from 20 ms to 1.02 s is
	// answered then.
	got = nil
	sent := start.Add(1020 * time.Millisecond)
	next = probeSlots(start, next, sent, sent.Add(time.Millisecond), probeEvery, rec)
	if len(got) != 51 {
		t.Fatalf("%d slots answered after a one-second freeze, want 51", len(got))
	}
	if first, last := got[0], got[len(got)-1]; first.At != int64(probeEvery) || first.Lat != int64(1001*time.Millisecond) || last.Lat != int64(time.Millisecond) {
		t.Errorf("first slot %v, last %v; want the first at 20 ms, 1.001 s late, the last 1 ms", first, last)
	}
	if want := start.Add(1040 * time.Millisecond); !next.Equal(want) {
		t.Errorf("next slot at %v, want 1.04 s", next.Sub(start))
	}
}

// The page: an inconclusive run writes its blocks, labelled so, and does
// not replace a passing run's; a failed run writes nothing. On a copy of
// docs/reliability.md, whose markers must be the tool's.
func TestPageInconclusiveLabelledNeverOverAPass(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "reliability.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "reliability.md")
	write := func(r *report) (string, error) {
		t.Helper()
		cfg := *r.cfg
		cfg.docs, cfg.charts = page, filepath.Join(dir, "charts")
		err := writePage(&cfg, r)
		b, rerr := os.ReadFile(page)
		if rerr != nil {
			t.Fatal(rerr)
		}
		return string(b), err
	}
	if err := os.WriteFile(page, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	// A failed run: nothing written.
	if got, err := write(synthRun(t, calm, runtimeStall, calm, calm)); err == nil || got != string(orig) {
		t.Fatalf("a failed run wrote the page (err %v)", err)
	}
	// An inconclusive run over a page without a run: written, labelled.
	got, err := write(synthRun(t, machineStall, machineStall, machineStall, calm))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "- result: **inconclusive**") || showsPass(got) {
		t.Fatalf("the inconclusive run's page does not say so:\n%s", got)
	}
	// A passing run replaces it; an inconclusive one then leaves it.
	if got, err = write(synthRun(t, calm, calm, calm, calm)); err != nil || !showsPass(got) {
		t.Fatalf("a passing run: %v; page shows a pass: %v", err, showsPass(got))
	}
	passed := got
	if got, err := write(synthRun(t, calm, machineStall, machineStall, machineStall)); !errors.Is(err, errPageShowsPass) || got != passed {
		t.Fatalf("an inconclusive run over a passing page: %v; page changed: %v", err, got != passed)
	}
}
