package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// clusterConfig is one run of the cluster soak (-cluster N): N members as
// processes over an embedded etcd, a fleet of test servers configured on
// the cluster, callers on every member, and faults drawn at random.
type clusterConfig struct {
	short     bool
	members   int
	servers   int
	duration  time.Duration // the load, quiet baseline included
	quiet     time.Duration
	grace     time.Duration
	callers   int // per member
	pace      time.Duration
	callLimit time.Duration
	ttl       time.Duration // the members' lease TTL
	faultGap  time.Duration // the mean time between one fault's end and the next
	seed      int64
	// connectBound is what recovery may take beyond the lease TTL: a new
	// owner's connect (process start, initialize, tools/list) and the
	// callers' next calls, generous for a loaded machine.
	connectBound time.Duration
	// orphanBound: how long a killed member's servers may outlive it.
	orphanBound time.Duration
	probeBound  float64
	probeFloor  time.Duration
	historyDir  string
	log         io.Writer
}

func longClusterConfig() clusterConfig {
	return clusterConfig{
		members: 3, servers: 9, duration: 15 * time.Minute, quiet: time.Minute, grace: 30 * time.Second,
		callers: 40, pace: 300 * time.Millisecond, callLimit: 30 * time.Second, ttl: 3 * time.Second,
		faultGap: 10 * time.Second, connectBound: 10 * time.Second, orphanBound: 5 * time.Second,
		probeBound: 1.5, probeFloor: 50 * time.Millisecond,
	}
}

// shortClusterConfig is the cluster soak's short mode (cluster_test.go):
// about 75 s, six servers, every fault kind at least once.
func shortClusterConfig() clusterConfig {
	c := longClusterConfig()
	c.short = true
	c.servers = 6
	c.duration = 60 * time.Second
	c.quiet = 8 * time.Second
	c.grace = 20 * time.Second
	c.callers = 12
	c.faultGap = 2 * time.Second
	return c
}

// clusterFault is one fault of the run, as injected.
type clusterFault struct {
	Kind    string
	Member  string // the member faulted (or owning the server killed)
	Inst    int
	At      int64          // unix ns: the kill, the SIGSTOP, etcd's kill
	End     int64          // the SIGCONT, etcd ready again, the member back; = At otherwise
	Servers map[int]string // the member's server processes at the fault (pid: name)
	Orphans []int          // of those, alive orphanBound after a member's kill
	Detail  string
	Err     string
}

const (
	fMemberKill    = "member killed (SIGKILL)"
	fMemberPause   = "member paused past its lease (SIGSTOP, SIGCONT)"
	fEtcdRestart   = "etcd restarted (SIGKILL, start)"
	fMachineFreeze = "whole machine frozen past the lease (member and its servers: SIGSTOP, SIGCONT)"
	fServerKill    = "server killed under its owner (SIGKILL)"
	fMemberAddDrop = "member added, then removed (Stop)"
)

var clusterFaultKinds = []string{fMemberKill, fMemberPause, fMachineFreeze, fEtcdRestart, fServerKill, fMemberAddDrop}

// clusterRun is the run's state.
type clusterRun struct {
	cfg     *clusterConfig
	dir     string
	logDir  string
	etcd    *etcdChild
	rng     *rand.Rand
	mu      sync.Mutex
	members []*memberChild // the live process of each name
	past    []*memberChild // every process, killed ones included
	faults  []*clusterFault
	spec    memberSpec
	probe   *clusterProbe
	extra   int // processes of the member added and removed so far
}

func (r *clusterRun) logf(format string, args ...any) {
	if r.cfg.log != nil {
		fmt.Fprintf(r.cfg.log, "cluster soak %s: %s\n", time.Now().UTC().Format("15:04:05.000"), fmt.Sprintf(format, args...))
	}
}

// runCluster runs the cluster soak and analyses it.
func runCluster(cfg *clusterConfig) (*clusterReport, error) {
	if cfg.seed == 0 {
		cfg.seed = time.Now().UnixNano()
	}
	dir := cfg.historyDir
	var err error
	if dir == "" {
		if dir, err = os.MkdirTemp("", "soak-cluster-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := &clusterRun{cfg: cfg, dir: dir, logDir: filepath.Join(dir, "servers"), rng: rand.New(rand.NewPCG(uint64(cfg.seed), 0))}
	if err := os.MkdirAll(r.logDir, 0o755); err != nil {
		return nil, err
	}
	r.logf("seed %d; %d members, %d servers, %d callers per member, lease TTL %v, for %v", cfg.seed, cfg.members, cfg.servers, cfg.callers, cfg.ttl, cfg.duration)
	if r.etcd, err = newEtcdChild(dir); err != nil {
		return nil, err
	}
	defer r.etcd.stop(false)
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	r.spec = memberSpec{
		Peers: cfg.members, Endpoint: r.etcd.endpoint(), Prefix: "/soak/" + run + "/", Secret: "soak-" + run, TTL: cfg.ttl,
		LogDir: r.logDir, Callers: cfg.callers, Pace: cfg.pace, CallLimit: cfg.callLimit, Grace: cfg.grace, Seed: cfg.seed,
	}
	for i := range cfg.servers {
		r.spec.Servers = append(r.spec.Servers, fmt.Sprintf("s%02d", i+1))
	}
	// Whatever happens, no member is left running.
	defer func() {
		for _, c := range r.past {
			if c.cmd.ProcessState == nil {
				_ = c.cmd.Process.Kill()
				_ = c.cmd.Wait()
			}
		}
	}()
	r.members = make([]*memberChild, cfg.members)
	errs := make([]error, cfg.members)
	var wg sync.WaitGroup
	for i := range cfg.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.members[i], errs[i] = r.startMember(fmt.Sprintf("m%d", i+1), 1)
		}()
	}
	wg.Wait()
	for _, c := range r.members {
		if c != nil {
			r.past = append(r.past, c) // for the deferred kill, whatever follows
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r.logf("%d members ready", cfg.members)

	probeCtx, stopProbe := context.WithCancel(context.Background())
	r.probe = newClusterProbe()
	probeDone := make(chan struct{})
	go func() { defer close(probeDone); r.probe.run(probeCtx) }()

	loadStart := time.Now()
	for _, c := range r.members {
		c.send("load")
	}
	faultCtx, stopFaults := context.WithCancel(context.Background())
	faultsDone := faultsAfterQuiet(faultCtx, cfg.quiet, r.logf, r.injectFaults)
	time.Sleep(cfg.duration)
	loadEnd := time.Now()
	stopFaults()
	<-faultsDone
	r.logf("load over; stopping the members")
	r.mu.Lock()
	live := slices.Clone(r.members)
	r.mu.Unlock()
	for _, c := range live {
		wg.Add(1)
		go func() { defer wg.Done(); c.finish(cfg.grace + 90*time.Second) }()
	}
	wg.Wait()
	stopProbe()
	<-probeDone
	r.etcd.stop(false)
	rep := &clusterReport{cfg: cfg, loadStart: loadStart.UnixNano(), quietEnd: loadStart.Add(cfg.quiet).UnixNano(), loadEnd: loadEnd.UnixNano(),
		faults: r.faults, procs: r.past, servers: r.spec.Servers, probe: r.probe}
	// Every server process the run started must be gone once the members
	// have stopped.
	deadline := time.Now().Add(10 * time.Second)
	for {
		rep.leftServers = nil
		for p, name := range loggedPIDs(r.logDir) {
			if aliveServer(p, name) {
				rep.leftServers = append(rep.leftServers, p)
			}
		}
		if len(rep.leftServers) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := rep.analyze(r.dir, r.logDir); err != nil {
		return nil, err
	}
	return rep, nil
}

func (r *clusterRun) startMember(name string, inst int) (*memberChild, error) {
	spec := r.spec
	spec.Name, spec.Inst = name, inst
	spec.History = historyPath(r.dir, name, inst)
	return startMemberChild(spec, r.dir)
}

// injectFaults draws faults until ctx ends: the kinds in a shuffled
// cycle (every kind once before any twice, so that the short mode meets
// them all), one at a time, a random gap apart.
func (r *clusterRun) injectFaults(ctx context.Context) {
	var cycle []string
	for ctx.Err() == nil {
		if len(cycle) == 0 {
			cycle = slices.Clone(clusterFaultKinds)
			r.rng.Shuffle(len(cycle), func(i, j int) { cycle[i], cycle[j] = cycle[j], cycle[i] })
		}
		kind := cycle[0]
		cycle = cycle[1:]
		f := r.inject(kind)
		r.mu.Lock()
		r.faults = append(r.faults, f)
		r.mu.Unlock()
		r.logf("fault: %s %s#%d %s%s", f.Kind, f.Member, f.Inst, f.Detail, errSuffix(f.Err))
		// A fault that moves identities gets the time a takeover takes
		// (the TTL and a connect) before the next: faults overlap less,
		// so that more recoveries are judged (cluster_checks.go).
		gap := time.Duration(r.rng.ExpFloat64() * float64(r.cfg.faultGap))
		if f.Kind != fServerKill {
			gap = max(gap, time.Duration(f.At)+r.cfg.ttl+3*time.Second-time.Duration(time.Now().UnixNano()))
		}
		select {
		case <-ctx.Done():
		case <-time.After(gap):
		}
	}
}

func errSuffix(s string) string {
	if s == "" {
		return ""
	}
	return " ERROR: " + s
}

func (r *clusterRun) inject(kind string) *clusterFault {
	f := &clusterFault{Kind: kind}
	// A member that owns servers, when one does: a fault on a member
	// that owns none tests nothing of fencing.
	r.mu.Lock()
	var owning []int
	for j, m := range r.members {
		if len(serverProcs(m.pid())) > 0 {
			owning = append(owning, j)
		}
	}
	i := r.rng.IntN(len(r.members))
	if len(owning) > 0 {
		i = owning[r.rng.IntN(len(owning))]
	}
	c := r.members[i]
	r.mu.Unlock()
	switch kind {
	case fMemberKill:
		f.Member, f.Inst = c.name, c.inst
		f.Servers = serverProcs(c.pid())
		f.At = time.Now().UnixNano()
		c.kill()
		// Its servers must die with it (a parent-death signal).
		deadline := time.Now().Add(r.cfg.orphanBound)
		for {
			f.Orphans = nil
			for p, name := range f.Servers {
				if aliveServer(p, name) {
					f.Orphans = append(f.Orphans, p)
				}
			}
			if len(f.Orphans) == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(time.Second)
		nc, err := r.startMember(c.name, c.inst+1)
		f.End = time.Now().UnixNano()
		if err != nil {
			f.Err = err.Error()
			return f
		}
		nc.send("load")
		r.mu.Lock()
		r.members[i] = nc
		r.past = append(r.past, nc)
		r.mu.Unlock()
		f.Detail = fmt.Sprintf("(%d servers; back after %v)", len(f.Servers), time.Duration(f.End-f.At).Round(time.Millisecond))
	case fMemberPause, fMachineFreeze:
		f.Member, f.Inst = c.name, c.inst
		f.Servers = serverProcs(c.pid())
		hold := r.cfg.ttl + time.Second + time.Duration(r.rng.Int64N(int64(2*time.Second)))
		f.At = time.Now().UnixNano()
		// A freeze stops the member and its servers, and resumes them
		// together (as a container's thaw does: the member first, by a
		// hair).
		pids := []int{c.pid()}
		if kind == fMachineFreeze {
			pids = append(pids, slices.Sorted(maps.Keys(f.Servers))...)
		}
		for _, p := range pids {
			if err := syscall.Kill(p, syscall.SIGSTOP); err != nil && p == c.pid() {
				f.Err = err.Error()
			}
		}
		time.Sleep(hold)
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGCONT)
		}
		f.End = time.Now().UnixNano()
		f.Detail = fmt.Sprintf("(%d servers; paused %v)", len(f.Servers), time.Duration(f.End-f.At).Round(time.Millisecond))
	case fEtcdRestart:
		f.Member = "etcd"
		f.At = time.Now().UnixNano()
		r.etcd.stop(true)
		time.Sleep(time.Duration(500+r.rng.IntN(1500)) * time.Millisecond)
		if err := r.etcd.start(); err != nil {
			f.Err = err.Error()
		}
		f.End = time.Now().UnixNano()
		f.Detail = fmt.Sprintf("(down %v)", time.Duration(f.End-f.At).Round(time.Millisecond))
	case fMemberAddDrop:
		// One more member joins and calls for a while, then leaves with
		// Stop: what it came to own moves back, and its calls end.
		r.extra++
		nc, err := r.startMember(fmt.Sprintf("m%d", r.cfg.members+1), r.extra)
		if err != nil {
			f.Err = err.Error()
			return f
		}
		nc.send("load")
		r.mu.Lock()
		r.past = append(r.past, nc)
		r.mu.Unlock()
		time.Sleep(2*time.Second + time.Duration(r.rng.Int64N(int64(3*time.Second))))
		f.Member, f.Inst = nc.name, nc.inst
		f.Servers = serverProcs(nc.pid())
		f.At = time.Now().UnixNano()
		nc.finish(r.cfg.grace + 90*time.Second)
		f.End = time.Now().UnixNano()
		if nc.resErr != nil {
			f.Err = nc.resErr.Error()
		}
		f.Detail = fmt.Sprintf("(%d servers at its Stop, which took %v)", len(f.Servers), time.Duration(f.End-f.At).Round(time.Millisecond))
	case fServerKill:
		// A server of a random member that owns one. Right after a fault
		// that moved every identity (etcd's restart) none may be owned
		// yet: an identity is started again at its next call, within the
		// recovery bound, which is as long as this waits for one.
		deadline := time.Now().Add(r.cfg.ttl + r.cfg.connectBound)
		for {
			if r.killOwnedServer(f) {
				return f
			}
			if time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		f.At = time.Now().UnixNano()
		f.End = f.At
		f.Err = "no member owned a server"
	}
	return f
}

// killOwnedServer kills a server of a random member that owns one, and
// records it in f; false if no member owns a server.
func (r *clusterRun) killOwnedServer(f *clusterFault) bool {
	r.mu.Lock()
	order := r.rng.Perm(len(r.members))
	cands := slices.Clone(r.members)
	r.mu.Unlock()
	for _, j := range order {
		procs := serverProcs(cands[j].pid())
		if len(procs) == 0 {
			continue
		}
		p := slices.Sorted(maps.Keys(procs))[r.rng.IntN(len(procs))]
		f.Member, f.Inst = cands[j].name, cands[j].inst
		f.Servers = map[int]string{p: procs[p]}
		f.At = time.Now().UnixNano()
		if proc, err := os.FindProcess(p); err == nil {
			_ = proc.Signal(syscall.SIGKILL)
		}
		f.End = f.At
		f.Detail = fmt.Sprintf("(%s, pid %d)", procs[p], p)
		return true
	}
	return false
}
