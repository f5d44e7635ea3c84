package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// TestMain lets the test binary serve as the benchmark server when
// re-executed by testserver.Command.
func TestMain(m *testing.M) {
	testserver.RunIfChild()
	os.Exit(m.Run())
}

// BenchmarkEcho is the harness's measurement in testing.B form, for
// `make bench` and benchstat: one sub-benchmark per client and in-flight
// level. ns/op is wall time per call (the inverse of throughput). The
// stdiobench command, with its rounds, interleaving and latency
// percentiles, is the reference; see docs/benchmarks.md.
func BenchmarkEcho(b *testing.B) {
	srv := benchServer("")
	procs := runtime.GOMAXPROCS(0)
	for _, n := range []int{1, 16, 256} {
		for _, name := range clientOrder {
			b.Run(fmt.Sprintf("client=%s/inflight=%d", name, n), func(b *testing.B) {
				ctx := context.Background()
				dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				c, err := dialers[name](dctx, srv)
				cancel()
				if err != nil {
					b.Fatalf("connect: %v", err)
				}
				defer func() {
					cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
					defer cancel()
					_ = c.Close(cctx)
				}()
				var seq atomic.Int64
				call := func() bool {
					msg := "hello-" + strconv.FormatInt(seq.Add(1), 10)
					got, err := c.Call(ctx, msg)
					if err != nil || got != msg {
						b.Errorf("call: sent %q, got %q, err %v", msg, got, err)
						return false
					}
					return true
				}
				b.ResetTimer()
				if n == 1 {
					for b.Loop() {
						if !call() {
							return
						}
					}
				} else {
					// RunParallel starts parallelism*GOMAXPROCS goroutines:
					// exactly n when n is a multiple of GOMAXPROCS.
					b.SetParallelism((n + procs - 1) / procs)
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							if !call() {
								return
							}
						}
					})
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			})
		}
	}
}
