package measure

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// BenchClient connects a client with dial (given 30 s), measures it with
// BenchCalls, n in flight, and closes it.
func BenchClient(b *testing.B, load Load, n int, dial func(ctx context.Context) (Client, error)) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	c, err := dial(ctx)
	cancel()
	if err != nil {
		b.Fatalf("connect: %v", err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Close(ctx)
	}()
	BenchCalls(b, c, load, n)
}

// BenchCalls is the throughput measurement in testing.B form, for `make
// bench` and benchstat: b.N calls of echo with unique messages, n in
// flight, every answer checked. ns/op is wall time per call (the inverse
// of throughput), and calls/s is reported too. It has no rounds, no
// warm-up and no percentiles: the commands are the reference.
func BenchCalls(b *testing.B, c Caller, load Load, n int) {
	ctx := context.Background()
	var seq atomic.Int64
	call := func() bool {
		args, want := load.Call(0, int(seq.Add(1)))
		got, err := c.Call(ctx, load.Tool, args)
		if err != nil || got != want {
			b.Errorf("call: want %q, got %q, err %v", clip(want), clip(got), err)
			return false
		}
		return true
	}
	b.ReportAllocs()
	b.ResetTimer()
	if n == 1 {
		for b.Loop() {
			if !call() {
				return
			}
		}
	} else {
		// RunParallel starts parallelism*GOMAXPROCS goroutines: exactly n
		// when n is a multiple of GOMAXPROCS.
		procs := runtime.GOMAXPROCS(0)
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
}
