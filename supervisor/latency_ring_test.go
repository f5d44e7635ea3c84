package supervisor

import (
	"sync"
	"testing"
	"time"
)

// The ring keeps its last latencySlots durations to the microsecond: the
// median and the 99th percentile are those of the calls still in it, and
// a duration past what 32 bits of microseconds hold is kept as that most.
func TestLatencyRingPercentiles(t *testing.T) {
	var l latencyRing
	if p50, p99 := l.percentiles(); p50 != 0 || p99 != 0 {
		t.Fatalf("empty ring: %v, %v", p50, p99)
	}
	// Older calls, pushed out by the next latencySlots.
	for range latencySlots {
		l.record(time.Hour)
	}
	for i := range latencySlots {
		l.record(time.Duration(i+1)*time.Millisecond + 400*time.Nanosecond)
	}
	p50, p99 := l.percentiles()
	if p50 != 256*time.Millisecond || p99 != 506*time.Millisecond {
		t.Errorf("percentiles %v, %v; want 256ms, 506ms", p50, p99)
	}
	for range latencySlots {
		l.record(100 * time.Hour)
	}
	if _, p99 := l.percentiles(); p99 < 71*time.Minute || p99 > 72*time.Minute {
		t.Errorf("a 100-hour call kept as %v, want the most 32 bits of microseconds hold (71m35s)", p99)
	}
}

// A server called a few times keeps latencyFirstSlots slots, and the ring
// grows to latencySlots without losing the durations it had.
func TestLatencyRingGrowsWithUse(t *testing.T) {
	var l latencyRing
	for i := range latencyFirstSlots {
		l.record(time.Duration(i+1) * time.Millisecond)
	}
	if n := len(*l.slots.Load()); n != latencyFirstSlots {
		t.Fatalf("%d slots after %d calls, want %d", n, latencyFirstSlots, latencyFirstSlots)
	}
	if p50, p99 := l.percentiles(); p50 != 8*time.Millisecond || p99 != 15*time.Millisecond {
		t.Errorf("percentiles of the first calls %v, %v; want 8ms, 15ms", p50, p99)
	}
	l.record(17 * time.Millisecond)
	if n := len(*l.slots.Load()); n != latencySlots {
		t.Fatalf("%d slots after %d calls, want %d", n, latencyFirstSlots+1, latencySlots)
	}
	if p50, p99 := l.percentiles(); p50 != 9*time.Millisecond || p99 != 16*time.Millisecond {
		t.Errorf("percentiles after growing %v, %v; want 9ms, 16ms", p50, p99)
	}
}

// Callers record at once, the first ones racing to grow the ring: every
// slot a call reached holds a duration. Run with -race.
func TestLatencyRingConcurrentGrowth(t *testing.T) {
	var l latencyRing
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				l.record(time.Millisecond)
			}
		})
	}
	wg.Wait()
	if n := len(*l.slots.Load()); n != latencySlots {
		t.Fatalf("%d slots after 800 calls, want %d", n, latencySlots)
	}
	if p50, _ := l.percentiles(); p50 != time.Millisecond {
		t.Errorf("median %v, want 1ms", p50)
	}
}
