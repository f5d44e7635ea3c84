package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/cluster"
)

// envClusterMember carries a member child's spec, as JSON.
const envClusterMember = "MCPACTOR_SOAK_CLUSTER_MEMBER"

// memberSpec is what a member child is told: who it is, where etcd is,
// the fleet, and its share of the load.
type memberSpec struct {
	Name      string
	Inst      int // 1 for the first process of this name, 2 after its first kill...
	Peers     int // members to see alive, this one included, before the first call
	Endpoint  string
	Prefix    string
	Secret    string
	TTL       time.Duration
	Servers   []string
	LogDir    string // the servers' request logs
	History   string // this process's call history
	Callers   int
	Pace      time.Duration
	CallLimit time.Duration
	Grace     time.Duration
	Seed      int64
}

// memberResult is what a member child prints when it has stopped.
type memberResult struct {
	Issued     uint32 // call IDs given out: 1..Issued
	Stuck      int    // calls still in flight after the grace period
	StopErr    string
	StopTook   time.Duration
	Base       baseline // before cluster.Start
	After      baseline // after Stop, settled
	HistoryErr string
}

// runMemberChild is one member process: it starts a cluster member,
// waits until every server's tools are listed, says "ready", runs its
// callers through member.Exposed() from "load" until "stop" (or the end
// of stdin), waits for the calls in flight, stops the member, and prints
// its result as one JSON line.
func runMemberChild(specJSON string) int {
	var spec memberSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "soak member:", err)
		return 1
	}
	runtime.GC()
	var res memberResult
	res.Base = baseline{Goroutines: runtime.NumGoroutine(), FDs: openFDs(), Children: len(children())}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak member:", err)
		return 1
	}
	servers := map[string]mcpactor.ServerConfig{}
	for _, name := range spec.Servers {
		servers[name] = mcpactor.ServerConfig{
			Command:        exe,
			Env:            map[string]string{envClusterServer: name, envClusterLogDir: spec.LogDir},
			ConnectTimeout: 10 * time.Second,
			RequestTimeout: 20 * time.Second,
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	m, err := cluster.Start(ctx, cluster.Config{
		Name:     spec.Name,
		Etcd:     cluster.EtcdConfig{Endpoints: []string{spec.Endpoint}, Prefix: spec.Prefix},
		LeaseTTL: spec.TTL,
		Secret:   spec.Secret,
		Servers:  servers,
		// Ownership events (activations started and stopped, fences,
		// members lost) go to the member's stderr, which the run keeps
		// beside the history (member.NAME.INST.err): what a failed
		// fencing check needs to be explained.
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
	if err != nil {
		cancel()
		fmt.Fprintln(os.Stderr, "soak member: start:", err)
		return 1
	}
	ex := m.Exposed()
	// The first calls place the identities (an identity starts on its
	// owner at its first call, and stays there): made before the other
	// members are seen, they would all land here.
	for len(m.Members()) < spec.Peers && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
	}
	// Ready: every server's tools listed (an identity starts on its owner
	// at its first call).
	for {
		tools, _ := ex.LoadTools(ctx)
		got := map[string]bool{}
		for _, t := range tools {
			got[t.Server] = true
		}
		if len(got) == len(spec.Servers) {
			break
		}
		if ctx.Err() != nil {
			cancel()
			fmt.Fprintf(os.Stderr, "soak member %s: tools of %d of %d servers after 60 s\n", spec.Name, len(got), len(spec.Servers))
			_ = m.Stop(context.Background())
			return 1
		}
		time.Sleep(300 * time.Millisecond)
	}
	cancel()
	h, err := newHistory(spec.History)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak member:", err)
		return 1
	}
	fmt.Println("ready")

	in := bufio.NewScanner(os.Stdin)
	for in.Scan() && strings.TrimSpace(in.Text()) != "load" {
	}
	loadCtx, stopLoad := context.WithCancel(context.Background())
	var ids atomic.Uint32
	var inflight atomic.Int64
	var wg sync.WaitGroup
	flushDone := make(chan struct{})
	go func() {
		defer close(flushDone)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-loadCtx.Done():
				return
			case <-t.C:
				h.flush()
			}
		}
	}()
	for c := range spec.Callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(spec.Seed), uint64(spec.Inst*1000+c)))
			for loadCtx.Err() == nil {
				time.Sleep(time.Duration(rng.ExpFloat64() * float64(spec.Pace)))
				if loadCtx.Err() != nil {
					return
				}
				inflight.Add(1)
				clusterCall(ex, h, &ids, rng, spec)
				inflight.Add(-1)
			}
		}()
	}
	for in.Scan() && strings.TrimSpace(in.Text()) != "stop" {
	}
	stopLoad()
	<-flushDone
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(spec.Grace):
	}
	res.Stuck = int(inflight.Load())
	res.Issued = ids.Load()
	if err := h.close(); err != nil {
		res.HistoryErr = err.Error()
	}
	sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
	t0 := time.Now()
	if err := m.Stop(sctx); err != nil {
		res.StopErr = errText(err)
	}
	scancel()
	res.StopTook = time.Since(t0)
	<-done // the callers return once their calls have (Stop ends them)
	deadline := time.Now().Add(20 * time.Second)
	for {
		runtime.GC()
		res.After = baseline{Goroutines: runtime.NumGoroutine(), FDs: openFDs(), Children: len(children())}
		if (res.After.Goroutines <= res.Base.Goroutines+memberLeakSlack && res.After.FDs <= res.Base.FDs+memberLeakSlack && res.After.Children == 0) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	b, _ := json.Marshal(res)
	fmt.Println(string(b))
	return 0
}

// memberLeakSlack: goroutines and descriptors over the baseline that a
// stopped member may keep (the standard library's signal watcher and
// poller, gRPC's and etcd's client process-wide goroutines once used).
const memberLeakSlack = 8

// The cluster soak's operations: a mix of quick echoes, slow calls (up
// to 1.5 s, so that faults find calls in flight) and tool errors.
const (
	copEcho uint8 = iota
	copSlow
	copFail
	nClusterOps
)

var clusterOpNames = [nClusterOps]string{"echo", "slow", "tool error"}

// clusterCall makes one call through the member's Manager-style API and
// records it.
func clusterCall(ex cluster.Exposed, h *history, ids *atomic.Uint32, rng *rand.Rand, spec memberSpec) {
	srv := rng.IntN(len(spec.Servers))
	var op uint8
	switch x := rng.IntN(10); {
	case x < 7:
		op = copEcho
	case x < 9:
		op = copSlow
	default:
		op = copFail
	}
	name := "mcp__" + spec.Servers[srv] + "__"
	var args map[string]any
	switch op {
	case copEcho:
		name += "echo"
		args = map[string]any{"message": "soak"}
	case copSlow:
		name += "sleep"
		args = map[string]any{"ms": 100 + rng.IntN(1400)}
	case copFail:
		name += "fail"
		args = map[string]any{"message": "soak"}
	}
	id := ids.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), spec.CallLimit)
	rec := clusterRec{ID: id, Server: uint16(srv), Op: op, Start: time.Now().UnixNano(), Limit: int64(spec.CallLimit)}
	res, err := ex.CallTool(ctx, name, args)
	rec.End = time.Now().UnixNano()
	cancel()
	rec.Class = classifyCluster(res, err)
	if rec.Class == ccUnknown {
		// The member's stderr is a file the report quotes.
		fmt.Fprintf(os.Stderr, "soak member %s: unclassified: %s\n", spec.Name, errText(err))
	}
	h.add(&rec)
}

// clusterRec is one call of a member's history (history.go's file).
// Times are wall-clock nanoseconds: every process of the run is on one
// machine, and the servers' logs use the same clock.
type clusterRec struct {
	ID     uint32
	Server uint16
	Op     uint8
	Class  uint8 // a clusterClass
	Start  int64
	End    int64
	Limit  int64
}

// clusterClass is how a cluster call ended: the cluster's own errors
// first, then the runtime's classes (classify.go) after them.
type clusterClass = uint8

const (
	ccUnknown clusterClass = iota
	ccResult
	ccToolError
	ccMemberLost
	ccNotOwner
	ccEtcdUnavailable
	ccBacklogged
	ccNoMember
	ccStopped
	ccRuntime // + the runtime's class (classify.go), for the others
)

var clusterClassNames = []string{"unknown", "result", "tool error", "member lost", "not owner", "etcd unavailable", "backlogged", "no live member", "member stopped"}

func clusterClassName(c clusterClass) string {
	if int(c) < len(clusterClassNames) {
		return clusterClassNames[c]
	}
	if rc := class(c - ccRuntime); rc < nClasses {
		return "runtime: " + rc.String()
	}
	return fmt.Sprintf("class %d", c)
}

// classifyCluster tells a cluster call's outcome with errors.Is and
// errors.As, as a caller would: the cluster's errors, then the root
// package's (which errors from the owner keep across the hop).
func classifyCluster(res *messages.CallToolResult, err error) clusterClass {
	var (
		lost    *cluster.MemberLostError
		notOwn  *cluster.NotOwnerError
		noEtcd  *cluster.EtcdUnavailableError
		backlog *cluster.BackloggedError
	)
	switch {
	case err == nil:
		if res != nil && res.IsError {
			return ccToolError
		}
		return ccResult
	case errors.As(err, &lost) || errors.Is(err, cluster.ErrMemberLost):
		return ccMemberLost
	case errors.As(err, &notOwn) || errors.Is(err, cluster.ErrNotOwner):
		return ccNotOwner
	case errors.As(err, &noEtcd) || errors.Is(err, cluster.ErrEtcdUnavailable):
		return ccEtcdUnavailable
	case errors.As(err, &backlog) || errors.Is(err, cluster.ErrBacklogged):
		return ccBacklogged
	case errors.Is(err, cluster.ErrNoMember):
		return ccNoMember
	case errors.Is(err, cluster.ErrStopped):
		return ccStopped
	}
	if c, _ := classify(res, err); c != cUnknown {
		return ccRuntime + clusterClass(c)
	}
	return ccUnknown
}

// historyPath is a member process's call history in the run's directory.
func historyPath(dir, member string, inst int) string {
	return filepath.Join(dir, fmt.Sprintf("calls.%s.%d.bin", member, inst))
}
