package main

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// clusterReport is a cluster run and what its histories, the fault log
// and the servers' own request logs say.
type clusterReport struct {
	cfg                          *clusterConfig
	loadStart, quietEnd, loadEnd int64
	faults                       []*clusterFault
	procs                        []*memberChild
	servers                      []string
	probe                        *clusterProbe
	leftServers                  []int

	// From the histories.
	calls, judgedCalls int64
	missing, dups      int64
	unknown            int64
	overDeadline       int64
	notJudgedProcs     int // killed member processes: their histories died with them
	byClass            map[string]int64
	byOp               [nClusterOps]map[string]int64
	unclassified       []string
	recoveries         []recovery
	// From the servers' logs.
	serverProcs int
	requests    int64
	lateWrites  []string
	residual    int      // requests at a paused member's old server in the one write under way at the pause
	thawReads   int      // requests at a frozen machine's old server read at the thaw, written before the freeze // requests received by a faulted member's servers after the fault
	overlaps    []string // two servers of one identity receiving at once
	probeBase   time.Duration

	checks []check
}

// recovery is how long the servers a fault touched took to answer again.
type recovery struct {
	fault  *clusterFault
	took   time.Duration // the slowest identity's, from the fault
	bound  time.Duration
	never  []string // identities with no answer after the fault
	judged bool     // the probe says the machine was not starved then
	probe  time.Duration
	// overlapped: the next fault struck before the bound was up, and
	// before these identities answered again: what delayed them may be
	// that fault (etcd down, the new owner killed), so the bound is not
	// judged (counted and shown; the next fault's recovery is).
	overlapped bool
}

// serverLog is one server process's requests, from its log.
type serverLog struct {
	name  string
	pid   int
	start int64
	reqs  []int64
}

// loggedPIDs are the processes that wrote a server log in dir, with the
// server each ran.
func loggedPIDs(dir string) map[int]string {
	ents, _ := os.ReadDir(dir)
	out := map[int]string{}
	for _, e := range ents {
		parts := strings.Split(e.Name(), ".")
		if len(parts) == 3 {
			if p, err := strconv.Atoi(parts[1]); err == nil {
				out[p] = parts[0]
			}
		}
	}
	return out
}

func readServerLogs(dir string) ([]*serverLog, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*serverLog
	for _, e := range ents {
		parts := strings.Split(e.Name(), ".")
		if len(parts) != 3 || parts[2] != "log" {
			continue
		}
		pid, _ := strconv.Atoi(parts[1])
		l := &serverLog{name: parts[0], pid: pid}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			ts, what, _ := strings.Cut(sc.Text(), " ")
			t, err := strconv.ParseInt(ts, 10, 64)
			if err != nil {
				continue // a line cut by a kill
			}
			switch what {
			case "start":
				l.start = t
			case "req":
				l.reqs = append(l.reqs, t)
			}
		}
		f.Close()
		out = append(out, l)
	}
	return out, nil
}

// The slack of the checks on time: a call may end this long after its
// deadline; a killed member's server may read, this long after the kill,
// what was written to its pipe before.
const (
	deadlineSlack = 5 * time.Second
	pipeSlack     = time.Second
	residualSpan  = 10 * time.Millisecond
)

func (r *clusterReport) analyze(dir, logDir string) error {
	r.byClass = map[string]int64{}
	for i := range r.byOp {
		r.byOp[i] = map[string]int64{}
	}
	// Successful calls by server, for recovery: (start, end).
	type span struct {
		start, end int64
		proc       string
	}
	ok := make([][]span, len(r.servers))
	for _, c := range r.procs {
		seen := map[uint32]int{}
		procName := fmt.Sprintf("%s#%d", c.name, c.inst)
		err := readClusterHistory(historyPath(dir, c.name, c.inst), func(rec *clusterRec) {
			r.calls++
			seen[rec.ID]++
			name := clusterClassName(rec.Class)
			r.byClass[name]++
			if int(rec.Op) < len(r.byOp) {
				r.byOp[rec.Op][name]++
			}
			if rec.Class == ccUnknown {
				r.unknown++
			}
			if rec.End-rec.Start > rec.Limit+int64(deadlineSlack) {
				r.overDeadline++
			}
			if (rec.Class == ccResult || rec.Class == ccToolError) && int(rec.Server) < len(ok) {
				ok[rec.Server] = append(ok[rec.Server], span{rec.Start, rec.End, procName})
			}
		})
		if err != nil && !c.killed {
			return fmt.Errorf("history of %s: %w", procName, err)
		}
		if c.killed || c.result == nil {
			// Its calls in flight died with it, unended: only a call
			// recorded twice is judged.
			r.notJudgedProcs++
			for _, n := range seen {
				if n > 1 {
					r.dups++
				}
			}
			continue
		}
		for id := uint32(1); id <= c.result.Issued; id++ {
			switch n := seen[id]; {
			case n == 0:
				r.missing++
			case n > 1:
				r.dups++
			}
			r.judgedCalls++
		}
		for id, n := range seen {
			if id > c.result.Issued || id == 0 {
				r.dups += int64(n)
			}
		}
		if b, err := os.ReadFile(c.errPath); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if strings.Contains(l, "unclassified:") && len(r.unclassified) < 5 {
					r.unclassified = append(r.unclassified, l)
				}
			}
		}
	}
	for i := range ok {
		sort.Slice(ok[i], func(a, b int) bool { return ok[i][a].end < ok[i][b].end })
	}

	// The probe's quiet baseline.
	r.probeBase, _ = r.probe.p99(r.loadStart, r.quietEnd)
	probeLimit := max(time.Duration(float64(r.probeBase)*r.cfg.probeBound), r.cfg.probeFloor)

	// Recovery: every identity the fault touched answers a call that
	// started after the fault (on a member other than the one faulted)
	// within the lease TTL plus the connect bound.
	index := map[string]int{}
	for i, s := range r.servers {
		index[s] = i
	}
	for k, f := range r.faults {
		if f.Err != "" {
			continue
		}
		next := r.loadEnd
		if k+1 < len(r.faults) {
			next = r.faults[k+1].At
		}
		from := f.At
		var touched []string
		switch f.Kind {
		case fEtcdRestart:
			from = f.End
			touched = r.servers
		default:
			for _, name := range f.Servers {
				touched = append(touched, name)
			}
		}
		rc := recovery{fault: f, bound: r.cfg.ttl + r.cfg.connectBound}
		if from+int64(rc.bound) > r.loadEnd {
			continue // the load ended first: not measured
		}
		faulted := fmt.Sprintf("%s#%d", f.Member, f.Inst)
		for _, name := range uniq(touched) {
			i, found := index[name]
			if !found {
				continue
			}
			var first int64
			for _, s := range ok[i] {
				if s.start >= from && (f.Kind == fServerKill || f.Kind == fEtcdRestart || s.proc != faulted) {
					first = s.end
					break
				}
			}
			if first == 0 {
				rc.never = append(rc.never, name)
				continue
			}
			rc.took = max(rc.took, time.Duration(first-from))
		}
		if (len(rc.never) > 0 || rc.took > rc.bound) && next < from+int64(rc.bound) {
			rc.overlapped = true
		}
		var n int
		rc.probe, n = r.probe.p99(from, from+int64(rc.bound))
		rc.judged = n > 0 && rc.probe <= probeLimit
		r.recoveries = append(r.recoveries, rc)
	}

	// Fencing, from the servers' own logs.
	logs, err := readServerLogs(logDir)
	if err != nil {
		return err
	}
	r.serverProcs = len(logs)
	byPID := map[int]*serverLog{}
	for _, l := range logs {
		byPID[l.pid] = l
		r.requests += int64(len(l.reqs))
	}
	// excused are receipts that no write after the lapse explains: at a
	// frozen machine's old servers, in the pipe slack after the thaw, the
	// requests written before the freeze; at a paused member's, the one
	// write under way at the pause (docs/cluster.md, "Fencing": one write
	// of at most 64 KiB, read at once, here a burst within residualSpan).
	excused := map[int]map[int64]bool{}
	excuse := func(pid int, t int64) {
		if excused[pid] == nil {
			excused[pid] = map[int64]bool{}
		}
		excused[pid][t] = true
	}
	for _, f := range r.faults {
		for pid, name := range f.Servers {
			l := byPID[pid]
			if l == nil {
				continue
			}
			var late []int64
			var first int64
			for _, t := range l.reqs {
				switch f.Kind {
				case fMemberPause:
					// Nothing can be written while the member is stopped;
					// after SIGCONT its lease has lapsed (the pause is
					// longer than the TTL).
					if t < f.End {
						continue
					}
					if first == 0 {
						first = t
					}
					if t-first <= int64(residualSpan) {
						r.residual++
						excuse(pid, t)
						continue
					}
				case fMachineFreeze:
					if t < f.End {
						continue
					}
					if t < f.End+int64(pipeSlack) {
						r.thawReads++
						excuse(pid, t)
						continue
					}
				case fMemberKill:
					if t < f.At {
						continue
					}
					if t < f.At+int64(pipeSlack) {
						excuse(pid, t)
						continue
					}
				default:
					continue
				}
				late = append(late, t)
			}
			if len(late) > 0 {
				r.lateWrites = append(r.lateWrites, fmt.Sprintf("%s (pid %d of %s#%d): %d requests after the %s, the first %v after it ended",
					name, pid, f.Member, f.Inst, len(late), f.Kind, time.Duration(late[0]-f.End).Round(time.Millisecond)))
			}
		}
	}
	for pid, ex := range excused {
		l := byPID[pid]
		l.reqs = slices.DeleteFunc(l.reqs, func(t int64) bool { return ex[t] })
	}
	byName := map[string][]*serverLog{}
	for _, l := range logs {
		if len(l.reqs) > 0 {
			byName[l.name] = append(byName[l.name], l)
		}
	}
	for name, ls := range byName {
		sort.Slice(ls, func(a, b int) bool { return ls[a].reqs[0] < ls[b].reqs[0] })
		for i := 1; i < len(ls); i++ {
			prev, cur := ls[i-1], ls[i]
			if last := prev.reqs[len(prev.reqs)-1]; cur.reqs[0] < last {
				n := 0
				for _, t := range prev.reqs {
					if t > cur.reqs[0] {
						n++
					}
				}
				r.overlaps = append(r.overlaps, fmt.Sprintf("%s: pid %d received %d requests after pid %d's first (overlap %v)",
					name, prev.pid, n, cur.pid, time.Duration(last-cur.reqs[0]).Round(time.Millisecond)))
			}
		}
	}
	slices.Sort(r.overlaps)
	r.makeChecks()
	return nil
}

func uniq(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

func readClusterHistory(path string, f func(*clusterRec)) error {
	return readRecords(path, f)
}

func (r *clusterReport) makeChecks() {
	add := func(name string, pass bool, format string, args ...any) {
		r.checks = append(r.checks, check{Name: name, Pass: pass, Detail: fmt.Sprintf(format, args...)})
	}
	add("every call ends exactly once", r.missing == 0 && r.dups == 0,
		"%d calls recorded; of the %d calls of the member processes that were not killed, %d never ended, %d ended twice (%d killed processes' histories not judged: their callers died with them)",
		r.calls, r.judgedCalls, r.missing, r.dups, r.notJudgedProcs)
	add("every call classified", r.unknown == 0, "%d unclassified%s", r.unknown, listSuffix(r.unclassified))
	add("every call ends by its deadline", r.overDeadline == 0, "%d calls ended more than %v after their %v deadline", r.overDeadline, deadlineSlack, r.cfg.callLimit)

	var missed, unjudged, overlapped []string
	worst := time.Duration(0)
	for _, rc := range r.recoveries {
		if len(rc.never) == 0 && rc.took <= rc.bound {
			worst = max(worst, rc.took)
			continue
		}
		if rc.overlapped {
			overlapped = append(overlapped, fmt.Sprintf("%s %s#%d", rc.fault.Kind, rc.fault.Member, rc.fault.Inst))
			continue
		}
		worst = max(worst, rc.took)
		what := fmt.Sprintf("%s %s#%d: %v (no answer: %v; probe p99 %v)", rc.fault.Kind, rc.fault.Member, rc.fault.Inst, rc.took.Round(time.Millisecond), rc.never, rc.probe.Round(time.Millisecond))
		if rc.judged {
			missed = append(missed, what)
		} else {
			unjudged = append(unjudged, what)
		}
	}
	rec := check{Name: "recovery within TTL + connect bound", Pass: len(missed) == 0 && len(unjudged) == 0,
		Detail: fmt.Sprintf("%d faults measured, %d of them overlapped (the next fault struck before they had recovered and before the bound was up: not judged)%s; slowest of the rest %v (bound %v = TTL %v + %v)%s",
			len(r.recoveries), len(overlapped), listSuffix(overlapped), worst.Round(time.Millisecond), r.cfg.ttl+r.cfg.connectBound, r.cfg.ttl, r.cfg.connectBound, listSuffix(missed))}
	if len(missed) == 0 && len(unjudged) > 0 {
		rec.Inconclusive = true
		rec.Detail += fmt.Sprintf("; over the bound while the control probe says the machine was starved (p99 over %v): %s", max(time.Duration(float64(r.probeBase)*r.cfg.probeBound), r.cfg.probeFloor), strings.Join(unjudged, "; "))
	}
	r.checks = append(r.checks, rec)

	var leaks []string
	for _, c := range r.procs {
		if c.killed {
			continue
		}
		p := fmt.Sprintf("%s#%d", c.name, c.inst)
		switch {
		case c.resErr != nil:
			leaks = append(leaks, p+": "+c.resErr.Error())
		case c.result.Stuck > 0 || c.result.StopErr != "" || c.result.HistoryErr != "" || c.result.After.Children > 0 ||
			c.result.After.Goroutines > c.result.Base.Goroutines+memberLeakSlack || c.result.After.FDs > c.result.Base.FDs+memberLeakSlack:
			leaks = append(leaks, fmt.Sprintf("%s: %d calls stuck, stop error %q, history error %q; goroutines %d→%d, fds %d→%d, children %d",
				p, c.result.Stuck, c.result.StopErr, c.result.HistoryErr, c.result.Base.Goroutines, c.result.After.Goroutines, c.result.Base.FDs, c.result.After.FDs, c.result.After.Children))
		}
	}
	add("no leak after stop", len(leaks) == 0, "every member process not killed stopped its calls and servers, and came back to its baseline (slack %d goroutines and fds)%s", memberLeakSlack, listSuffix(leaks))

	var orphans []string
	kills := 0
	for _, f := range r.faults {
		if f.Kind == fMemberKill {
			kills++
			if len(f.Orphans) > 0 {
				orphans = append(orphans, fmt.Sprintf("%s#%d: pids %v alive %v after the kill", f.Member, f.Inst, f.Orphans, r.cfg.orphanBound))
			}
		}
	}
	if len(r.leftServers) > 0 {
		orphans = append(orphans, fmt.Sprintf("server pids %v alive after every member stopped", r.leftServers))
	}
	add("no orphan server left working", len(orphans) == 0, "%d member kills; %d server processes in all%s", kills, r.serverProcs, listSuffix(orphans))
	add("fencing: no request written after the owner's lease lapsed", len(r.lateWrites) == 0,
		"%d requests received by %d server processes; none at a paused member's old servers after SIGCONT (its lease had lapsed) beyond the one write under way at the pause (%d requests in such writes), none at a frozen machine's after the thaw + %v (%d read at the thaw, written before the freeze), none at a killed member's after the kill + %v%s",
		r.requests, r.serverProcs, r.residual, pipeSlack, r.thawReads, pipeSlack, listSuffix(r.lateWrites))
	add("fencing: one identity, one server receiving", len(r.overlaps) == 0, "per identity, no two server processes' requests interleave (the excused reads above left out)%s", listSuffix(r.overlaps))
}

func (r *clusterReport) verdict() verdict {
	v := verdictPass
	for _, c := range r.checks {
		switch {
		case c.Inconclusive:
			if v == verdictPass {
				v = verdictInconclusive
			}
		case !c.Pass:
			return verdictFail
		}
	}
	return v
}

func (r *clusterReport) failures() string {
	var out []string
	for _, c := range r.checks {
		if !c.Pass {
			out = append(out, c.Name+": "+c.Detail)
		}
	}
	return strings.Join(out, "; ")
}

func (r *clusterReport) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cluster soak: seed %d, %d members, %d servers, %d callers per member, lease TTL %v, %v of load (%v quiet)\n",
		r.cfg.seed, r.cfg.members, len(r.servers), r.cfg.callers, r.cfg.ttl, time.Duration(r.loadEnd-r.loadStart).Round(time.Second), r.cfg.quiet)
	counts := map[string]int{}
	for _, f := range r.faults {
		counts[f.Kind]++
		fmt.Fprintf(&b, "  fault at %6.1fs: %s %s#%d %s%s\n", time.Duration(f.At-r.loadStart).Seconds(), f.Kind, f.Member, f.Inst, f.Detail, errSuffix(f.Err))
	}
	classes := slices.Sorted(maps.Keys(r.byClass))
	b.WriteString("  calls by outcome:")
	for _, c := range classes {
		fmt.Fprintf(&b, " %s %d;", c, r.byClass[c])
	}
	b.WriteString("\n")
	for op, m := range r.byOp {
		fmt.Fprintf(&b, "    %s:", clusterOpNames[op])
		for _, c := range slices.Sorted(maps.Keys(m)) {
			fmt.Fprintf(&b, " %s %d;", c, m[c])
		}
		b.WriteString("\n")
	}
	for _, c := range r.procs {
		switch {
		case c.killed:
			fmt.Fprintf(&b, "  member %s#%d: killed\n", c.name, c.inst)
		case c.result != nil:
			fmt.Fprintf(&b, "  member %s#%d: %d calls; Stop took %v; goroutines %d→%d, fds %d→%d, children %d after\n", c.name, c.inst,
				c.result.Issued, c.result.StopTook.Round(time.Millisecond), c.result.Base.Goroutines, c.result.After.Goroutines, c.result.Base.FDs, c.result.After.FDs, c.result.After.Children)
		}
	}
	for _, rc := range r.recoveries {
		note := ""
		if rc.overlapped {
			note = "; overlapped by the next fault"
		}
		fmt.Fprintf(&b, "  recovery after %s %s#%d: %v (probe p99 %v%s)\n", rc.fault.Kind, rc.fault.Member, rc.fault.Inst, rc.took.Round(time.Millisecond), rc.probe.Round(time.Millisecond), note)
	}
	for _, c := range r.checks {
		mark := "PASS"
		switch {
		case c.Inconclusive:
			mark = "INCONCLUSIVE"
		case !c.Pass:
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "  %-12s %s: %s\n", mark, c.Name, c.Detail)
	}
	return b.String()
}
