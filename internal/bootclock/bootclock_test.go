package bootclock

import (
	"testing"
	"time"
)

// TestNowAdvances: the clock never goes backwards and counts at least the
// time a sleep took.
func TestNowAdvances(t *testing.T) {
	prev := Now()
	for range 1000 {
		d := Now()
		if d < prev {
			t.Fatalf("Now went backwards: %v after %v", d, prev)
		}
		prev = d
	}
	start, mono := Now(), time.Now()
	time.Sleep(20 * time.Millisecond)
	if got, slept := Now()-start, time.Since(mono); got < slept-time.Millisecond {
		t.Fatalf("Now advanced %v over a sleep Go's clock measured as %v", got, slept)
	}
}
