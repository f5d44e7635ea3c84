// Command hotpath shows where mcpactor's time and allocations go on the
// stdio echo hot path, from profiles it takes itself: a CPU profile of
// echo-fixed calls against the fast server at -inflight calls in flight,
// summed by area (mcpactor's packages, protoactor, the Go runtime's
// garbage collector, allocator, scheduler and system calls) and by
// function; then every allocation of a fixed number of calls
// (runtime.MemProfileRate = 1), per call, by the function that made it.
//
//	go -C bench run ./cmd/hotpath [-inflight 256] [-duration 3s] [-calls 20000]
//	    [-out file.md] [-json file.json]
//
// The numbers are the profiles' own: the CPU measurement runs with the
// profiler on and the allocation measurement with every allocation
// recorded, so they say where the cost is, not how fast the client is
// (cmd/stdiobench says that).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/google/pprof/profile"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

func main() {
	measure.RunStdioServerIfChild()
	inflight := flag.Int("inflight", 256, "calls in flight")
	duration := flag.Duration("duration", 3*time.Second, "the CPU profile's measurement")
	calls := flag.Int("calls", 20000, "calls whose every allocation is recorded")
	out := flag.String("out", "", "also write the markdown report to this file")
	jsonOut := flag.String("json", "", "also write the results to this file as JSON (for cmd/benchrun)")
	flag.Parse()

	dir, err := os.MkdirTemp("", "hotpath-")
	if err != nil {
		fatalf("%v", err)
	}
	defer os.RemoveAll(dir)
	srv := measure.StdioServerOf(measure.ServerFast, "")
	ctx := context.Background()
	c, err := measure.DialStdio(ctx, measure.OursName, srv)
	if err != nil {
		fatalf("connect: %v", err)
	}
	defer c.Close(ctx)

	cpuFile := filepath.Join(dir, "cpu.pprof")
	spec := measure.CallSpec{Load: measure.EchoFixed, InFlight: *inflight, Warmup: 500 * time.Millisecond, Duration: *duration, CPUProfile: cpuFile}
	s, err := measure.MeasureCalls(ctx, c, spec)
	if err != nil {
		fatalf("%v", err)
	}
	if s.Errors+s.Mismatches > 0 {
		fatalf("%d errors, %d mismatches: %s", s.Errors, s.Mismatches, s.FirstErr)
	}
	cpu, err := readProfile(cpuFile)
	if err != nil {
		fatalf("%v", err)
	}

	allocs, n, err := allocationProfile(ctx, c, *inflight, *calls)
	if err != nil {
		fatalf("%v", err)
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, "### Where mcpactor's time and allocations go: stdio echo-fixed, %d in flight, the fast server\n\n", *inflight)
	measure.WriteRunInfo(&b, "hotpath")
	fmt.Fprintf(&b, "- CPU: a profile of %s of calls (%d calls, %s of client CPU per call with the profiler on), summed by the function that was running (flat)\n", *duration, s.Calls, measure.Dur(s.CPUPerCall))
	fmt.Fprintf(&b, "- allocations: every allocation of %d calls (`runtime.MemProfileRate = 1`), per call, by the first function outside the runtime that made it\n\n", n)
	areas := writeCPU(&b, cpu)
	writeAllocs(&b, allocs, n)
	r := measure.Result{Bench: "hotpath", Server: measure.ServerFast, Load: measure.EchoFixed.Name, Client: measure.OursName, InFlight: *inflight,
		Rate: s.Rate, CPU: float64(s.CPUPerCall) / float64(time.Microsecond), Extra: areas}
	if err := measure.WriteOutputs(b.String(), *out, []measure.Result{r}, *jsonOut); err != nil {
		fatalf("%v", err)
	}
}

// allocationProfile makes calls echo calls, inflight at a time, with
// every allocation recorded, and returns the allocations they made.
func allocationProfile(ctx context.Context, c measure.Caller, inflight, calls int) (*profile.Profile, int, error) {
	per := calls / inflight
	if per < 1 {
		per = 1
	}
	args, want := measure.EchoFixed.Call(0, 0)
	run := func() error {
		errs := make(chan error, inflight)
		for range inflight {
			go func() {
				for range per {
					if got, err := c.Call(ctx, measure.EchoFixed.Tool, args); err != nil || got != want {
						errs <- fmt.Errorf("call: %q, %v", got, err)
						return
					}
				}
				errs <- nil
			}()
		}
		var first error
		for range inflight {
			if err := <-errs; err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	// The profile is cumulative since the program started: the
	// difference of two profiles around the calls is theirs.
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = 512 * 1024 }()
	before, err := heapProfile()
	if err != nil {
		return nil, 0, err
	}
	if err := run(); err != nil {
		return nil, 0, err
	}
	runtime.GC() // the profile shows the allocations of the last completed cycle
	runtime.GC()
	after, err := heapProfile()
	if err != nil {
		return nil, 0, err
	}
	before.Scale(-1)
	diff, err := profile.Merge([]*profile.Profile{after, before})
	if err != nil {
		return nil, 0, err
	}
	return diff, per * inflight, nil
}

func heapProfile() (*profile.Profile, error) {
	var b bytes.Buffer
	if err := pprof.Lookup("allocs").WriteTo(&b, 0); err != nil {
		return nil, err
	}
	return profile.Parse(&b)
}

func readProfile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return profile.Parse(f)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "hotpath: "+format+"\n", args...)
	os.Exit(2)
}
