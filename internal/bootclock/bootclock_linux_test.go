package bootclock

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestNowIsBoottime: on Linux Now reads CLOCK_BOOTTIME, the clock that
// counts a suspended machine's sleep, not Go's monotonic clock
// (CLOCK_MONOTONIC), which does not.
func TestNowIsBoottime(t *testing.T) {
	read := func() time.Duration {
		var ts unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
			t.Fatalf("CLOCK_BOOTTIME: %v", err)
		}
		return time.Duration(ts.Nano())
	}
	before := read()
	got := Now()
	after := read()
	if got < before || got > after {
		t.Fatalf("Now() = %v, not between two CLOCK_BOOTTIME readings %v and %v", got, before, after)
	}
}
