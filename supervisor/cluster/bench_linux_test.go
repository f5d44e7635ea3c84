//go:build linux

package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// The cluster's costs, measured by bench/cmd/clusterbench (make bench),
// which runs these benchmarks and writes docs/benchmarks.md's cluster
// section:
//
//   - BenchmarkHop: a tools/call at 64 callers, three ways between the
//     same processes (the test process and one member child): local, on
//     a server this process owns (what one machine costs); cluster, the
//     same call to a server the member child owns; grpc, a hand-written
//     gRPC unary round trip of the same payload to the member child (the
//     floor of any hop). The hop costs cluster - local; the goal is at
//     most 1.3 times grpc. A fourth way, protoactor, is a bare request
//     and response of the same payload over protoactor's remote between
//     the same processes (a future, an echo actor): the floor our
//     cluster path sits on, since it rides that remote unpatched. Each
//     way reports the CPU time and heap allocations per call of the test
//     process and (but local) of the member child, so that a change is
//     judged by what it costs, not by a noisy machine's latency; with
//     MCPACTOR_CLUSTER_BENCH_CHILD_CPUPROFILE=<prefix> the member child
//     writes a CPU profile of each way to <prefix>.<way> (go test's
//     -cpuprofile has the test process's).
//   - BenchmarkFailover: 1,000 calls in flight to a member killed with
//     SIGKILL; how soon they all end, how many end other than with a
//     result or a typed error (lost), and how soon the server answers
//     again on another member.
//   - BenchmarkBringUp: 100 servers across 3 members, from the first
//     call until every one has answered.
//
// go test -run '^$' -bench . -benchtime 2s ./supervisor/cluster/ runs them.

const (
	benchArgs    = `{"message":"hello"}`
	benchCallers = 64
)

// The sizes of BenchmarkFailover and BenchmarkBringUp; clusterbench's
// smoke mode makes them small.
var (
	failoverCalls  = flag.Int("cluster.failover-calls", 1000, "BenchmarkFailover: calls in flight when the owner is killed")
	bringUpServers = flag.Int("cluster.bringup-servers", 100, "BenchmarkBringUp: servers across the 3 members")
)

func BenchmarkHop(b *testing.B) {
	b.Run("local", func(b *testing.B) {
		rt, err := mcpactor.Start(mcpactor.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer rt.Stop(context.Background())
		path, args, env := testserver.Command(testserver.Options{})
		c, err := rt.Connect(context.Background(), "local", mcpactor.ServerConfig{Command: path, Args: args, Env: harness.EnvMap(env)})
		if err != nil {
			b.Fatal(err)
		}
		measureCalls(b, nil, func(ctx context.Context) error {
			_, err := c.CallTool(ctx, "echo", map[string]any{"message": "hello"})
			return err
		})
	})
	c := newBenchCluster(b)
	b.Run("cluster", func(b *testing.B) {
		ctx := context.Background()
		if _, err := c.driver.CallTool(ctx, "alpha", "echo", map[string]any{"message": "warm"}); err != nil {
			b.Fatal(err)
		}
		measureCalls(b, c.child, func(ctx context.Context) error {
			_, err := c.driver.CallTool(ctx, "alpha", "echo", map[string]any{"message": "hello"})
			return err
		})
	})
	b.Run("protoactor", func(b *testing.B) {
		owner, ok := c.driver.view.member(c.child.name)
		if !ok {
			b.Fatalf("the driver does not see %s", c.child.name)
		}
		echo := actor.NewPID(owner.Address, benchEchoActor)
		measureCalls(b, c.child, func(ctx context.Context) error {
			_, err := c.driver.sys.Root.RequestFuture(echo, wrapperspb.Bytes([]byte(benchArgs)), waitLimit).Result()
			return err
		})
	})
	b.Run("grpc", func(b *testing.B) {
		conn, err := grpc.NewClient(c.benchGRPC, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawCodec{})))
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		measureCalls(b, c.child, func(ctx context.Context) error {
			out := new([]byte)
			in := []byte(benchArgs)
			return conn.Invoke(ctx, "/bench.Echo/Echo", &in, out)
		})
	})
}

// measureCalls runs call from benchCallers goroutines and reports calls/s
// and the latency's p50 and p99 beside ns/op, and the CPU time and heap
// allocations per call of this process and of child (if not nil).
func measureCalls(b *testing.B, child *memberProc, call func(context.Context) error) {
	ctx := context.Background()
	var mu sync.Mutex
	var all []time.Duration
	b.SetParallelism(max(1, benchCallers/runtime.GOMAXPROCS(0)))
	profile := os.Getenv(envChildProfile)
	if child != nil && profile != "" {
		way := b.Name()[strings.LastIndex(b.Name(), "/")+1:]
		way, _, _ = strings.Cut(way, "-") // the -GOMAXPROCS suffix
		child.control(control{Op: "cpuprofile", Tool: profile + "." + way})
		defer child.control(control{Op: "cpuprofile"})
	}
	var childBefore processUsage
	if child != nil {
		childBefore = child.usage()
	}
	selfBefore := selfUsage()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			t0 := time.Now()
			if err := call(ctx); err != nil {
				b.Error(err)
				return
			}
			mine = append(mine, time.Since(t0))
		}
		mu.Lock()
		all = append(all, mine...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if len(all) == 0 {
		return
	}
	n := float64(len(all))
	self := selfUsage().minus(selfBefore)
	b.ReportMetric(float64(self.CPU.Microseconds())/n, "cpu-µs/call")
	b.ReportMetric(float64(self.Mallocs)/n, "allocs/call")
	if child != nil {
		c := child.usage().minus(childBefore)
		b.ReportMetric(float64(c.CPU.Microseconds())/n, "child-cpu-µs/call")
		b.ReportMetric(float64(c.Mallocs)/n, "child-allocs/call")
	}
	slices.Sort(all)
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkFailover kills the owner of a server with -cluster.failover-calls
// calls in flight to it. Each iteration is a cluster of its own.
func BenchmarkFailover(b *testing.B) {
	failoverCalls := *failoverCalls
	const ttl = 2 * time.Second
	var ended, again, lost []float64
	for range b.N {
		b.StopTimer()
		c := newCluster(b, 3, ttl)
		ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
		info, err := c.driver.Info(ctx, "alpha")
		if err != nil {
			b.Fatal(err)
		}
		c.eventually("alpha's tools cached", func() bool { return c.driver.view.cachedTools(Identity{Server: "alpha"}) != nil })
		results := make(chan error, failoverCalls)
		for range failoverCalls {
			go func() {
				_, err := c.driver.CallTool(ctx, "alpha", "sleep", map[string]any{"ms": 60000})
				results <- err
			}()
		}
		c.eventually("the calls are in flight", func() bool { return c.inFlight() == failoverCalls })
		b.StartTimer()
		killed := time.Now()
		c.member(info.Member).signal(syscall.SIGKILL)
		var missing int
		deadline := time.After(waitLimit)
	collect:
		for i := range failoverCalls {
			select {
			case err := <-results:
				if !errors.Is(err, ErrMemberLost) {
					missing++ // ended, but not with the typed error
				}
			case <-deadline:
				missing += failoverCalls - i // never ended
				break collect
			}
		}
		ended = append(ended, float64(time.Since(killed).Milliseconds()))
		for {
			cctx, ccancel := context.WithTimeout(ctx, 3*time.Second)
			_, err := c.driver.CallTool(cctx, "alpha", "echo", map[string]any{"message": "again"})
			ccancel()
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				b.Fatalf("alpha never answered again: %v", err)
			}
		}
		again = append(again, float64(time.Since(killed).Milliseconds()))
		lost = append(lost, float64(missing))
		b.StopTimer()
		cancel()
	}
	b.ReportMetric(median(ended), "all-ended-ms")
	b.ReportMetric(median(again), "answers-again-ms")
	b.ReportMetric(median(lost), "lost")
	b.ReportMetric(float64(failoverCalls), "in-flight")
	b.ReportMetric(ttl.Seconds()*1000, "ttl-ms")
}

// BenchmarkBringUp brings up -cluster.bringup-servers servers across 3
// members: from the first call until every server has answered one,
// through the call-only driver, benchCallers calls at a time.
func BenchmarkBringUp(b *testing.B) {
	bringUpServers := *bringUpServers
	var took []float64
	for range b.N {
		b.StopTimer()
		// A long lease: starting a hundred processes at once starves a
		// small machine, and a member fenced for it would measure the
		// machine, not the bring-up.
		c := newClusterWith(b, etcdFor(b), 3, memberSpec{TTL: 10 * time.Second, Servers: bringUpServers})
		names := c.base.serverNames()
		ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
		b.StartTimer()
		start := time.Now()
		sem := make(chan struct{}, benchCallers)
		errs := make(chan error, len(names))
		for _, name := range names {
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				_, err := c.driver.CallTool(ctx, name, "echo", map[string]any{"message": "up"})
				errs <- err
			}()
		}
		var first error
		for range names {
			if err := <-errs; err != nil && first == nil {
				first = err
				cancel() // the others end too, before the benchmark fails
			}
		}
		if first != nil {
			b.Fatal(first)
		}
		took = append(took, float64(time.Since(start).Milliseconds()))
		b.StopTimer()
		cancel()
	}
	b.ReportMetric(median(took), "bring-up-ms")
	b.ReportMetric(float64(bringUpServers), "servers")
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// e benchCluster is one member child (owning everything) and the driver.
type benchCluster struct {
	driver    *Member
	child     *memberProc
	benchGRPC string
}

func newBenchCluster(b *testing.B) *benchCluster {
	b.Helper()
	e := privateEtcd(b)
	spec := memberSpec{Name: "m1", Endpoint: e.endpoint(), Prefix: "/bench/", TTL: 3 * time.Second, Run: "bench", BenchGRPC: true}
	p := startMember(b, spec)
	driverSpec := spec
	driverSpec.Name, driverSpec.CallOnly, driverSpec.BenchGRPC = "driver", true, false
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	d, err := Start(ctx, driverSpec.config())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = d.Stop(context.Background()) })
	return &benchCluster{driver: d, child: p, benchGRPC: p.ready.Text}
}

// serveBenchGRPC serves /bench.Echo/Echo (the request bytes back) on a
// free loopback port and returns its address.
func serveBenchGRPC() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	s := grpc.NewServer(grpc.ForceServerCodecV2(rawCodec{}))
	s.RegisterService(&grpc.ServiceDesc{
		ServiceName: "bench.Echo",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "Echo", Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			in := new([]byte)
			if err := dec(in); err != nil {
				return nil, err
			}
			return in, nil
		}}},
	}, struct{}{})
	go s.Serve(l)
	return l.Addr().String(), nil
}

// rawCodec sends *[]byte as is.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "raw" }

// benchEchoActor is the member child's echo actor of BenchmarkHop's
// protoactor way: it answers each BytesValue with itself.
const benchEchoActor = "bench-echo"

func serveBenchEcho(m *Member) error {
	_, err := m.sys.Root.SpawnNamed(actor.PropsFromFunc(func(c actor.Context) {
		if msg, ok := c.Message().(*wrapperspb.BytesValue); ok {
			c.Respond(msg)
		}
	}), benchEchoActor)
	return err
}

// envChildProfile names the file prefix of the member child's CPU
// profiles (measureCalls).
const envChildProfile = "MCPACTOR_CLUSTER_BENCH_CHILD_CPUPROFILE"

// processUsage is a process's CPU time (user and system) and heap
// allocations so far.
type processUsage struct {
	CPU     time.Duration `json:"cpu"`
	Mallocs uint64        `json:"mallocs"`
}

func selfUsage() processUsage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return processUsage{CPU: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), Mallocs: ms.Mallocs}
}

func (u processUsage) minus(v processUsage) processUsage {
	return processUsage{CPU: u.CPU - v.CPU, Mallocs: u.Mallocs - v.Mallocs}
}

// usage asks the member child for its processUsage.
func (p *memberProc) usage() processUsage {
	p.t.Helper()
	r := p.control(control{Op: "usage"})
	var u processUsage
	if err := json.Unmarshal([]byte(r.Text), &u); err != nil {
		p.t.Fatalf("member %s usage %q: %v", p.name, r.Text, err)
	}
	return u
}

// control runs a control line that must succeed.
func (p *memberProc) control(c control) controlReply {
	p.t.Helper()
	r := p.do(c)
	if r.Err != "" {
		p.t.Fatalf("member %s %s: %s", p.name, c.Op, r.Err)
	}
	return r
}

// benchProfile is the member child's CPU profile in progress.
var benchProfile struct {
	mu   sync.Mutex
	file *os.File
}

// benchControl answers the member child's measuring control lines:
// "usage", and "cpuprofile" (Tool names the file to write; "" stops).
func benchControl(c control) (string, error) {
	switch c.Op {
	case "usage":
		b, err := json.Marshal(selfUsage())
		return string(b), err
	case "cpuprofile":
		benchProfile.mu.Lock()
		defer benchProfile.mu.Unlock()
		if f := benchProfile.file; f != nil {
			pprof.StopCPUProfile()
			benchProfile.file = nil
			if err := f.Close(); err != nil {
				return "", err
			}
		}
		if c.Tool == "" {
			return "", nil
		}
		f, err := os.Create(c.Tool)
		if err != nil {
			return "", err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return "", err
		}
		benchProfile.file = f
		return "", nil
	}
	return "", fmt.Errorf("unknown control %q", c.Op)
}
