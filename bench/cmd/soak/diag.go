package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// The diagnostics of a run (-diag, with -history): what the process and
// the machine did second by second, with the control probe's latency
// (probe.go) a second at a time and a second probe in a process of its
// own, so that a slow window can be told apart: the runtime's queues, or
// the machine's CPU (the fleet's processes and the soak's on two cores).
// Written beside the history: diag.jsonl (a line a second),
// probe-ext.jsonl and probe-ext-trips.txt (the external probe), run.json
// (the fault log, the state events); with -profiles, a CPU profile of
// the soak process per isolation window. The in-process probe's every
// slot is in probe.bin, there in every run.

// diagSample is one second of the process and the machine.
type diagSample struct {
	At float64 `json:"at"` // seconds since the run's start
	// The machine: CPU busy and the runnable tasks (procs_running).
	MachBusy float64 `json:"mach_busy"` // cores busy over the interval (0..NumCPU)
	Runnable int     `json:"runnable"`
	// This process: its CPU over the interval, in cores.
	SelfCPU float64 `json:"self_cpu"`
	// The Go runtime over the interval: the scheduler's latency (a
	// goroutine runnable until it runs), GC CPU, GC cycles, the pauses.
	SchedP50  float64 `json:"sched_p50_ms"`
	SchedP99  float64 `json:"sched_p99_ms"`
	SchedMax  float64 `json:"sched_max_ms"`
	GCCPU     float64 `json:"gc_cpu"` // cores spent on GC
	GCCycles  uint64  `json:"gc_cycles"`
	PauseMax  float64 `json:"pause_max_ms"`
	HeapLive  int64   `json:"heap_live"`
	Gor       int     `json:"goroutines"`
	InFlight  int64   `json:"inflight"`
	Calls     int64   `json:"calls"`
	ProbeP99  float64 `json:"probe_p99_ms"`
	ProbeMax  float64 `json:"probe_max_ms"`
	ProbeN    int     `json:"probe_n"`
	ChildCPU  float64 `json:"child_cpu"` // cores of the fleet's processes still alive (from /proc/<pid>/stat)
	NodeCPU   float64 `json:"node_cpu"`  // of which node processes
	Processes int     `json:"processes"` // children alive
	// The time the threads of this process, and of the fleet's
	// processes, were runnable but waiting for a CPU (the kernel's
	// schedstat): the machine's contention, apart from Go's scheduler.
	SelfRQWait  float64 `json:"self_rq_wait_ms"`  // ms per second, summed over threads
	FleetRQWait float64 `json:"fleet_rq_wait_ms"` // ms per second
}

type diag struct {
	r   *runner
	dir string

	tap *probeTap // the control probe's latencies (probe.go)

	childPrev map[int]uint64 // pid -> utime+stime ticks last seen
	rqPrev    map[int]uint64 // pid -> run-queue wait (ns) last seen, self included
}

var diagMetrics = []string{
	"/sched/latencies:seconds",
	"/cpu/classes/gc/total:cpu-seconds",
	"/gc/cycles/total:gc-cycles",
	"/sched/pauses/total/gc:seconds",
	"/gc/heap/live:bytes",
}

// runDiag samples every second until ctx ends.
func (r *runner) runDiag(ctx context.Context, dir string, tap *probeTap) {
	d := &diag{r: r, dir: dir, tap: tap, childPrev: map[int]uint64{}, rqPrev: map[int]uint64{}}
	f, err := os.Create(filepath.Join(dir, "diag.jsonl"))
	if err != nil {
		r.logf("diag: %v", err)
		return
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	defer w.Flush()
	r.startExternalProbe(ctx, dir)

	ms := make([]metrics.Sample, len(diagMetrics))
	for i, n := range diagMetrics {
		ms[i].Name = n
	}
	metrics.Read(ms)
	prevSched := cloneHist(ms[0].Value.Float64Histogram())
	prevPause := cloneHist(ms[3].Value.Float64Histogram())
	prevGC, prevCycles := ms[1].Value.Float64(), ms[2].Value.Uint64()
	prevBusy, prevTotal := machStat()
	prevSelf := selfTicks()
	prevAt := time.Now()
	prevCalls := r.hist.count.Load()
	d.childCPU(0) // prime
	d.rqWait(0)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		dt := now.Sub(prevAt).Seconds()
		prevAt = now
		metrics.Read(ms)
		sched := ms[0].Value.Float64Histogram()
		pause := ms[3].Value.Float64Histogram()
		s := diagSample{At: r.since().Seconds()}
		s.SchedP50, s.SchedP99, s.SchedMax = histDelta(prevSched, sched)
		_, _, s.PauseMax = histDelta(prevPause, pause)
		prevSched, prevPause = cloneHist(sched), cloneHist(pause)
		gc, cycles := ms[1].Value.Float64(), ms[2].Value.Uint64()
		s.GCCPU, s.GCCycles = (gc-prevGC)/dt, cycles-prevCycles
		prevGC, prevCycles = gc, cycles
		s.HeapLive = int64(ms[4].Value.Uint64())
		busy, total := machStat()
		if total > prevTotal {
			s.MachBusy = float64(busy-prevBusy) / float64(total-prevTotal) * float64(runtime.NumCPU())
		}
		prevBusy, prevTotal = busy, total
		s.Runnable = procsRunning()
		self := selfTicks()
		s.SelfCPU = float64(self-prevSelf) / clkTck / dt
		prevSelf = self
		s.ChildCPU, s.NodeCPU, s.Processes = d.childCPU(dt)
		s.SelfRQWait, s.FleetRQWait = d.rqWait(dt)
		s.Gor = runtime.NumGoroutine()
		s.InFlight = r.inflight.Load()
		c := r.hist.count.Load()
		s.Calls, prevCalls = c-prevCalls, c
		lat := d.tap.drain()
		s.ProbeN = len(lat)
		if len(lat) > 0 {
			v := make([]float32, len(lat))
			for i, x := range lat {
				v[i] = float32(x)
			}
			s.ProbeP99, s.ProbeMax = pct(v, 0.99), pct(v, 1)
		}
		b, _ := json.Marshal(s)
		w.Write(b)
		w.WriteByte('\n')
	}
}

// childCPU sums the CPU of this process's live children over the
// interval (a child that ended within it is missed: its last second).
func (d *diag) childCPU(dt float64) (all, node float64, n int) {
	seen := map[int]uint64{}
	for _, c := range children() {
		if c.state == 'Z' {
			continue
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(c.pid) + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+2:]))
		if len(f) < 13 {
			continue
		}
		ut, _ := strconv.ParseUint(f[11], 10, 64)
		st, _ := strconv.ParseUint(f[12], 10, 64)
		ticks := ut + st
		seen[c.pid] = ticks
		n++
		if dt == 0 {
			continue
		}
		prev, ok := d.childPrev[c.pid]
		if !ok {
			prev = 0 // born within the interval (or its start-up before)
		}
		x := float64(ticks-prev) / clkTck / dt
		all += x
		if strings.Contains(string(b[:i]), "(node") || strings.Contains(string(b[:i]), "(MainThread") {
			node += x
		}
	}
	d.childPrev = seen
	return all, node, n
}

const clkTck = 100.0

func machStat() (busy, total uint64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	for i, x := range f[1:] {
		v, _ := strconv.ParseUint(x, 10, 64)
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, total
}

func procsRunning() int {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "procs_running "); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

func selfTicks() uint64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+2:]))
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	return ut + st
}

func cloneHist(h *metrics.Float64Histogram) *metrics.Float64Histogram {
	return &metrics.Float64Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: h.Buckets}
}

// histDelta gives the p50, p99 and max (upper bucket bounds, ms) of the
// observations between two readings of a cumulative histogram.
func histDelta(prev, cur *metrics.Float64Histogram) (p50, p99, mx float64) {
	var total uint64
	delta := make([]uint64, len(cur.Counts))
	for i := range cur.Counts {
		delta[i] = cur.Counts[i] - prev.Counts[i]
		total += delta[i]
	}
	if total == 0 {
		return 0, 0, 0
	}
	q := func(f float64) float64 {
		want := uint64(f*float64(total) + 0.5)
		if want < 1 {
			want = 1
		}
		var acc uint64
		for i, c := range delta {
			acc += c
			if acc >= want {
				return upper(cur.Buckets, i)
			}
		}
		return upper(cur.Buckets, len(delta)-1)
	}
	p50, p99 = q(0.5), q(0.99)
	for i := len(delta) - 1; i >= 0; i-- {
		if delta[i] > 0 {
			mx = upper(cur.Buckets, i)
			break
		}
	}
	return
}

func upper(b []float64, i int) float64 {
	v := b[i+1]
	if v > 1e9 {
		v = b[i]
	}
	return v * 1000
}

// cpuProfiles writes a CPU profile of the soak process per window of
// the given length into dir, until ctx ends: cpu-<start seconds>.pprof.
func (r *runner) cpuProfiles(ctx context.Context, dir string, every time.Duration) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.logf("profiles: %v", err)
		return
	}
	for ctx.Err() == nil {
		name := filepath.Join(dir, fmt.Sprintf("cpu-%04.0f.pprof", r.since().Seconds()))
		f, err := os.Create(name)
		if err != nil {
			r.logf("profiles: %v", err)
			return
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			r.logf("profiles: %v", err)
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(every):
		}
		pprof.StopCPUProfile()
		f.Close()
	}
}

// writeDiagLogs writes the fault log and the state events beside the
// history.
func (r *runner) writeDiagLogs(dir string, faults []*faultRec, loadStart, quietEnd, loadEnd time.Duration) {
	fleet := make([]map[string]any, len(r.fleet))
	for i, s := range r.fleet {
		fleet[i] = map[string]any{"idx": s.idx, "name": s.name, "kind": s.kind}
	}
	out := map[string]any{
		"fleet": fleet, "faults": faults, "events": r.events, "removals": r.removals,
		"start_unix": float64(r.start.UnixNano()) / 1e9,
		"load_start": loadStart.Seconds(), "quiet_end": quietEnd.Seconds(), "load_end": loadEnd.Seconds(),
		"window": r.cfg.window.Seconds(), "quiet": r.cfg.quiet.Seconds(), "seed": r.cfg.seed,
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "run.json"), b, 0o644)
	}
	if err != nil {
		r.logf("diag: %v", err)
	}
}

// envProbe makes this binary the external control probe when
// re-executed: the same round trip as the in-process probe, from a
// process of its own, which shares the machine with the soak but not its
// Go scheduler, heap or GC. It writes a line a second to the file named.
const envProbe = "MCPACTOR_SOAK_PROBE"

// runProbeIfChild runs the external probe and exits, in the child.
func runProbeIfChild() {
	path := os.Getenv(envProbe)
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		os.Exit(1)
	}
	w := bufio.NewWriter(f)
	tf, err := os.Create(strings.TrimSuffix(path, ".jsonl") + "-trips.txt")
	if err != nil {
		os.Exit(1)
	}
	tw := bufio.NewWriter(tf)
	cmd := exec.Command("cat")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		os.Exit(1)
	}
	// The parent's end: stdin closed (the parent gone) ends the probe.
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		w.Flush()
		os.Exit(0)
	}()
	rd := bufio.NewReader(out)
	var lat []float32
	next := time.Now().Add(time.Second)
	for {
		time.Sleep(20 * time.Millisecond)
		t0 := time.Now()
		if _, err := in.Write([]byte("probe\n")); err != nil {
			os.Exit(1)
		}
		if _, err := rd.ReadString('\n'); err != nil {
			os.Exit(1)
		}
		lat = append(lat, float32(time.Since(t0))/float32(time.Millisecond))
		fmt.Fprintf(tw, "%.4f %.3f\n", float64(t0.UnixNano())/1e9, lat[len(lat)-1])
		if now := time.Now(); now.After(next) {
			fmt.Fprintf(w, `{"unix":%.3f,"n":%d,"p99_ms":%.3f,"max_ms":%.3f}`+"\n", float64(now.UnixNano())/1e9, len(lat), pct(lat, 0.99), pct(lat, 1))
			w.Flush()
			tw.Flush()
			lat, next = lat[:0], now.Add(time.Second)
		}
	}
}

// startExternalProbe starts the external probe; it ends when ctx does.
func (r *runner) startExternalProbe(ctx context.Context, dir string) {
	self, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), envProbe+"="+filepath.Join(dir, "probe-ext.jsonl"))
	in, err := cmd.StdinPipe()
	if err != nil {
		return
	}
	if err := cmd.Start(); err != nil {
		r.logf("external probe: %v", err)
		return
	}
	// The run's start in unix seconds, to align the probe's lines.
	r.logf("external probe: pid %d; run start unix %.3f", cmd.Process.Pid, float64(r.start.UnixNano())/1e9)
	go func() {
		<-ctx.Done()
		in.Close()
		_ = cmd.Wait()
	}()
}

// rqWait sums the run-queue wait of every thread of this process and of
// its children over the interval, in ms per second.
func (d *diag) rqWait(dt float64) (self, fleet float64) {
	me := os.Getpid()
	pids := []int{me}
	for _, c := range children() {
		if c.state != 'Z' {
			pids = append(pids, c.pid)
		}
	}
	seen := map[int]uint64{}
	for _, pid := range pids {
		dir := "/proc/" + strconv.Itoa(pid) + "/task"
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		var sum uint64
		for _, e := range ents {
			b, err := os.ReadFile(dir + "/" + e.Name() + "/schedstat")
			if err != nil {
				continue
			}
			f := strings.Fields(string(b))
			if len(f) >= 2 {
				v, _ := strconv.ParseUint(f[1], 10, 64)
				sum += v
			}
		}
		seen[pid] = sum
		if dt == 0 {
			continue
		}
		prev := d.rqPrev[pid]
		if sum < prev {
			prev = 0 // threads gone: their wait went with them
		}
		ms := float64(sum-prev) / 1e6 / dt
		if pid == me {
			self = ms
		} else {
			fleet += ms
		}
	}
	d.rqPrev = seen
	return self, fleet
}
