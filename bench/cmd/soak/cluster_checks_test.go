package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clusterScenario is a synthetic cluster run for the checker: member m1
// owns s01 (server pid 100) and is paused at P for 5 s; m2's callers see
// s01 answer again on its new server (pid 200) from P+4 s; m3 is
// killed 30 s later.
type clusterScenario struct {
	t           *testing.T
	dir, logDir string
	rep         *clusterReport
	p           int64 // the pause
	old, new    []int64
	recoverAt   int64 // the first success after the pause, ns after P
	probeLate   time.Duration
	orphans     []int
	kind        string        // the fault on m1: a pause (the default) or a freeze
	killAfter   time.Duration // when m3 is killed, after the pause
}

func newClusterScenario(t *testing.T) *clusterScenario {
	dir := t.TempDir()
	s := &clusterScenario{t: t, dir: dir, logDir: filepath.Join(dir, "servers"), recoverAt: int64(4 * time.Second), probeLate: time.Millisecond, kind: fMemberPause, killAfter: 30 * time.Second}
	if err := os.MkdirAll(s.logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	s.p = base + int64(20*time.Second)
	for i := range 10 {
		s.old = append(s.old, base+int64(time.Duration(i)*time.Second))
		s.new = append(s.new, s.p+int64(4*time.Second)+int64(time.Duration(i)*100*time.Millisecond))
	}
	cfg := shortClusterConfig()
	s.rep = &clusterReport{cfg: &cfg, loadStart: base, quietEnd: base + int64(8*time.Second), loadEnd: base + int64(60*time.Second),
		servers: []string{"s01"}, probe: newClusterProbe()}
	return s
}

// analyze writes the scenario's logs, history and probe, and checks it.
func (s *clusterScenario) analyze() *clusterReport {
	t := s.t
	write := func(name string, pid int, reqs []int64) {
		var b strings.Builder
		fmt.Fprintf(&b, "%d start\n", reqs[0]-1)
		for _, r := range reqs {
			fmt.Fprintf(&b, "%d req\n", r)
		}
		if err := os.WriteFile(filepath.Join(s.logDir, fmt.Sprintf("%s.%d.log", name, pid)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("s01", 100, s.old)
	write("s01", 200, s.new)
	h, err := newHistory(historyPath(s.dir, "m2", 1))
	if err != nil {
		t.Fatal(err)
	}
	h.add(&clusterRec{ID: 1, Class: ccResult, Start: s.old[0], End: s.old[0] + 1e6, Limit: int64(30 * time.Second)})
	h.add(&clusterRec{ID: 2, Class: ccMemberLost, Start: s.p - 1e6, End: s.p + int64(3*time.Second), Limit: int64(30 * time.Second)})
	h.add(&clusterRec{ID: 3, Class: ccResult, Start: s.p + int64(time.Second), End: s.p + s.recoverAt, Limit: int64(30 * time.Second)})
	if err := h.close(); err != nil {
		t.Fatal(err)
	}
	s.rep.procs = []*memberChild{{name: "m2", inst: 1, errPath: filepath.Join(s.dir, "none"), result: &memberResult{Issued: 3}}}
	s.rep.faults = []*clusterFault{
		{Kind: s.kind, Member: "m1", Inst: 1, At: s.p, End: s.p + int64(5*time.Second), Servers: map[int]string{100: "s01"}},
		{Kind: fMemberKill, Member: "m3", Inst: 1, At: s.p + int64(s.killAfter), End: s.p + int64(s.killAfter+time.Second), Orphans: s.orphans},
	}
	for at := s.rep.loadStart; at < s.rep.loadEnd; at += int64(probeTick) {
		late := time.Millisecond
		if at >= s.p && at < s.p+int64(5*time.Second) {
			late = s.probeLate
		}
		s.rep.probe.at = append(s.rep.probe.at, at)
		s.rep.probe.lateness = append(s.rep.probe.lateness, late)
	}
	if err := s.rep.analyze(s.dir, s.logDir); err != nil {
		t.Fatal(err)
	}
	return s.rep
}

func checkNamed(r *clusterReport, prefix string) check {
	for _, c := range r.checks {
		if strings.HasPrefix(c.Name, prefix) {
			return c
		}
	}
	return check{Name: prefix + ": missing"}
}

// TestClusterChecks feeds the cluster soak's checker synthetic runs: a
// clean one passes; a request at the paused member's old server after
// SIGCONT, two servers of one identity receiving at once, a recovery
// over its bound, an orphan each fail; the same slow recovery while the
// control probe says the machine was starved is inconclusive, and one
// that the next fault struck before its bound was up is not judged.
func TestClusterChecks(t *testing.T) {
	t.Run("clean", func(t *testing.T) {
		r := newClusterScenario(t).analyze()
		if v := r.verdict(); v != verdictPass {
			t.Fatalf("verdict %v: %s", v, r.failures())
		}
	})
	t.Run("write after the lapse", func(t *testing.T) {
		s := newClusterScenario(t)
		// The one write under way at the pause, then one more.
		r5 := s.p + int64(5*time.Second)
		s.old = append(s.old, r5+int64(time.Millisecond), r5+int64(200*time.Millisecond))
		r := s.analyze()
		if c := checkNamed(r, "fencing: no request written"); c.Pass || r.verdict() != verdictFail {
			t.Fatalf("a request after SIGCONT passed: %+v", c)
		}
	})
	t.Run("the one write under way at the pause", func(t *testing.T) {
		s := newClusterScenario(t)
		r5 := s.p + int64(5*time.Second)
		s.old = append(s.old, r5+int64(time.Millisecond), r5+int64(3*time.Millisecond))
		r := s.analyze()
		if v := r.verdict(); v != verdictPass || r.residual != 2 {
			t.Fatalf("verdict %v, residual %d: %s", v, r.residual, r.failures())
		}
	})
	t.Run("freeze: read at the thaw", func(t *testing.T) {
		s := newClusterScenario(t)
		s.kind = fMachineFreeze
		r5 := s.p + int64(5*time.Second)
		s.old = append(s.old, r5+int64(time.Millisecond), r5+int64(300*time.Millisecond))
		r := s.analyze()
		if v := r.verdict(); v != verdictPass || r.thawReads != 2 {
			t.Fatalf("verdict %v, thaw reads %d: %s", v, r.thawReads, r.failures())
		}
	})
	t.Run("freeze: written after the thaw", func(t *testing.T) {
		s := newClusterScenario(t)
		s.kind = fMachineFreeze
		s.old = append(s.old, s.p+int64(5*time.Second)+int64(2*time.Second))
		r := s.analyze()
		if c := checkNamed(r, "fencing: no request written"); c.Pass || r.verdict() != verdictFail {
			t.Fatalf("a request 2 s after the thaw passed: %+v", c)
		}
	})
	t.Run("two servers at once", func(t *testing.T) {
		s := newClusterScenario(t)
		s.new = append([]int64{s.old[5]}, s.new...)
		r := s.analyze()
		if c := checkNamed(r, "fencing: one identity"); c.Pass || r.verdict() != verdictFail {
			t.Fatalf("interleaved servers passed: %+v", c)
		}
	})
	t.Run("slow recovery", func(t *testing.T) {
		s := newClusterScenario(t)
		s.recoverAt = int64(20 * time.Second)
		r := s.analyze()
		if c := checkNamed(r, "recovery"); c.Pass || c.Inconclusive || r.verdict() != verdictFail {
			t.Fatalf("a recovery of 20 s on a quiet machine: %+v", c)
		}
	})
	t.Run("slow recovery on a starved machine", func(t *testing.T) {
		s := newClusterScenario(t)
		s.recoverAt = int64(20 * time.Second)
		s.probeLate = 2 * time.Second
		r := s.analyze()
		if c := checkNamed(r, "recovery"); !c.Inconclusive || r.verdict() != verdictInconclusive {
			t.Fatalf("a recovery of 20 s while the probe stalled: %+v, verdict %v", c, r.verdict())
		}
	})
	t.Run("slow recovery overlapped by the next fault", func(t *testing.T) {
		s := newClusterScenario(t)
		s.recoverAt = int64(20 * time.Second)
		s.killAfter = 10 * time.Second
		r := s.analyze()
		if c := checkNamed(r, "recovery"); !c.Pass || len(r.recoveries) == 0 || !r.recoveries[0].overlapped {
			t.Fatalf("a recovery delayed past a fault that struck before its bound: %+v", c)
		}
	})
	t.Run("orphan", func(t *testing.T) {
		s := newClusterScenario(t)
		s.orphans = []int{300}
		r := s.analyze()
		if c := checkNamed(r, "no orphan"); c.Pass || r.verdict() != verdictFail {
			t.Fatalf("an orphan passed: %+v", c)
		}
	})
	t.Run("call never ended", func(t *testing.T) {
		s := newClusterScenario(t)
		r := s.analyze()
		r.procs[0].result.Issued = 4
		r.checks, r.calls, r.judgedCalls, r.missing, r.recoveries = nil, 0, 0, 0, nil
		r.lateWrites, r.overlaps = nil, nil
		if err := r.analyze(s.dir, s.logDir); err != nil {
			t.Fatal(err)
		}
		if c := checkNamed(r, "every call ends exactly once"); c.Pass {
			t.Fatalf("a call issued and never recorded passed: %+v", c)
		}
	})
}
