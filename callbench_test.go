//go:build unix

package mcpactor_test

import (
	"context"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// BenchmarkCallToolEcho measures the client's side of an echo CallTool over
// stdio, with the default (global, no-op) OpenTelemetry providers, at 1,
// 16 and 256 calls in flight. The server is this test binary run as a
// subprocess (testserver.Command), so allocs/op and B/op are the client's
// alone; cpu-ns/op is this process's CPU time (user+system, from
// getrusage) per call, which leaves the server's out too.
//
//	go test -run '^$' -bench CallToolEcho -benchmem -count 5 .
func BenchmarkCallToolEcho(b *testing.B) {
	for _, inFlight := range []int{1, 16, 256} {
		b.Run("inflight="+strconv.Itoa(inFlight), func(b *testing.B) { benchEcho(b, inFlight) })
	}
}

func benchEcho(b *testing.B, inFlight int) {
	ctx := context.Background()
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		stop, cancel := context.WithTimeout(ctx, waitLimit)
		defer cancel()
		if err := rt.Stop(stop); err != nil {
			b.Errorf("Stop: %v", err)
		}
	}()
	c, err := rt.Connect(ctx, "echo", testServerConfig(testserver.Options{}))
	if err != nil {
		b.Fatal(err)
	}
	// The arguments are the caller's and made once: what is measured is
	// the runtime's cost per call.
	const text = "hello, benchmark"
	args := map[string]any{"message": text}
	call := func() {
		res, err := c.CallTool(ctx, "echo", args)
		if err != nil {
			b.Error(err)
			return
		}
		if len(res.Content) != 1 || res.Content[0].Text != text {
			b.Errorf("echo answered %+v", res.Content)
		}
	}
	for range 100 { // warm up: buffers grown, pools filled
		call()
	}

	b.ReportAllocs()
	before := cpuTime()
	reads, writes, haveIO := syscalls()
	spawned, haveSpawned := goroutinesCreated()
	b.ResetTimer()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range inFlight {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				call()
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
	if n, ok := goroutinesCreated(); ok && haveSpawned {
		// Goroutines started per call, the benchmark's own included
		// (one per caller, once): each is a hand-off the runtime
		// schedules.
		b.ReportMetric(float64(n-spawned)/float64(b.N), "goroutines/op")
	}
	if r, w, ok := syscalls(); ok && haveIO {
		// Reads and writes are the stdio pipes' system calls, the
		// largest share of the client's CPU: how well frames are
		// gathered into runs and batches shows here.
		b.ReportMetric(float64(r-reads)/float64(b.N), "reads/op")
		b.ReportMetric(float64(w-writes)/float64(b.N), "writes/op")
	}
}

// syscalls returns this process's read and write system calls so far
// (Linux's /proc/self/io; ok is false elsewhere).
func syscalls() (reads, writes int64, ok bool) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, 0, false
	}
	for line := range strings.Lines(string(b)) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ": ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "syscr":
			reads = n
		case "syscw":
			writes = n
		}
	}
	return reads, writes, true
}

// goroutinesCreated is the number of goroutines this process has started
// (ok is false where the runtime does not count them).
func goroutinesCreated() (n uint64, ok bool) {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0, false
	}
	return s[0].Value.Uint64(), true
}

// cpuTime is the CPU time this process has used so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
