package supervisor

import (
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
