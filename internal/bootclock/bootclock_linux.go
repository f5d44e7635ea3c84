package bootclock

import (
	"time"

	"golang.org/x/sys/unix"
)

// boottime is CLOCK_BOOTTIME (Linux 2.6.39 and later). A kernel or a
// seccomp policy that refuses it leaves the process on Go's monotonic
// clock for its whole life: mixing two clocks' readings would make
// differences meaningless.
func boottime() (time.Duration, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

var now = func() func() time.Duration {
	if _, ok := boottime(); !ok {
		return monotonic
	}
	// Once the probe succeeded no call can fail: clock_gettime's only
	// errors are an unknown clock and a bad address.
	return func() time.Duration {
		d, _ := boottime()
		return d
	}
}()
