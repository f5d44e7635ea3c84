package measure

import (
	"syscall"
	"time"
)

// ProcessCPU is the user plus system CPU time this process has used. The
// benchmarks run their clients in the measuring process and their servers
// in processes of their own, so the difference of two readings is the
// client side's CPU cost, garbage collection included.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// familyCPU is the user and system CPU time of this process and of its
// children that have been waited for: all the CPU a measurement caused,
// once its server processes have ended.
func familyCPU() time.Duration {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0
	}
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}
