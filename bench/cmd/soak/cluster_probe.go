package main

import (
	"context"
	"slices"
	"sync"
	"time"
)

// clusterProbe is the cluster soak's control: a goroutine of the soak
// process (not a member, not the runtime) that sleeps 20 ms at a time
// and records how late it wakes. Where it wakes late the machine was
// starved, and a bound on time there says nothing of the cluster: a
// missed recovery in such a window is inconclusive, not a failure.
type clusterProbe struct {
	mu       sync.Mutex
	at       []int64 // unix ns
	lateness []time.Duration
}

const probeTick = 20 * time.Millisecond

func newClusterProbe() *clusterProbe { return &clusterProbe{} }

func (p *clusterProbe) run(ctx context.Context) {
	for ctx.Err() == nil {
		t0 := time.Now()
		time.Sleep(probeTick)
		late := time.Since(t0) - probeTick
		p.mu.Lock()
		p.at = append(p.at, time.Now().UnixNano())
		p.lateness = append(p.lateness, late)
		p.mu.Unlock()
	}
}

// p99 is the probe's 99th percentile lateness over [from, to] (unix ns),
// and how many samples it had.
func (p *clusterProbe) p99(from, to int64) (time.Duration, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var v []time.Duration
	for i, t := range p.at {
		if t >= from && t <= to {
			v = append(v, p.lateness[i])
		}
	}
	if len(v) == 0 {
		return 0, 0
	}
	slices.Sort(v)
	return v[min(len(v)-1, len(v)*99/100)], len(v)
}
