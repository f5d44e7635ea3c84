package main

import (
	"context"
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// sample is the process at one moment of the run.
type sample struct {
	At         time.Duration
	Calls      int64   // calls ended since the last sample
	Rate       float64 // calls/s over the interval
	RSS        int64
	HeapLive   int64 // live heap after the last GC
	Goroutines int
	InFlight   int64 // the callers' calls under way
	FDs        int
	Children   int
	Zombies    []int // children left unreaped (zombies twice, 500 ms apart)
}

// liveHeap reads the heap marked live by the last GC: what a leak grows,
// without forcing a GC on a run that measures latency.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// sampleNow takes a sample (calls and rate left to the caller).
func sampleNow(at time.Duration) sample {
	rss, _ := measure.ProcStatus()
	return sample{
		At: at, RSS: rss, HeapLive: liveHeap(), Goroutines: runtime.NumGoroutine(),
		FDs: openFDs(), Children: len(children()), Zombies: zombies(),
	}
}

// runSampler samples every cfg.sampleEvery until ctx ends.
func (r *runner) runSampler(ctx context.Context) {
	t := time.NewTicker(r.cfg.sampleEvery)
	defer t.Stop()
	last, lastAt := r.hist.count.Load(), time.Since(r.start)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		at := time.Since(r.start)
		s := sampleNow(at)
		s.InFlight = r.inflight.Load()
		n := r.hist.count.Load()
		s.Calls = n - last
		s.Rate = float64(s.Calls) / (at - lastAt).Seconds()
		last, lastAt = n, at
		r.mu.Lock()
		r.samples = append(r.samples, s)
		r.mu.Unlock()
	}
}
