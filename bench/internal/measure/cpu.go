package measure

import (
	"bytes"
	"os"
	"strconv"
	"strings"
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

// ChildrenCPU is the user plus system CPU time used so far by this
// process's live children, read from /proc (the servers of a measurement,
// which have not been waited for yet, so RUSAGE_CHILDREN does not count
// them). It is 0 where /proc is not there.
func ChildrenCPU() time.Duration {
	self := os.Getpid()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var ticks uint64
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name (field 2) is in parentheses and may hold
		// spaces: the fields that follow are counted from its end.
		end := bytes.LastIndexByte(stat, ')')
		if end < 0 {
			continue
		}
		f := strings.Fields(string(stat[end+1:]))
		// f[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
		if len(f) < 13 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid != self {
			continue
		}
		u, _ := strconv.ParseUint(f[11], 10, 64)
		s, _ := strconv.ParseUint(f[12], 10, 64)
		ticks += u + s
	}
	// USER_HZ is 100 on every Linux a benchmark runs on.
	return time.Duration(ticks) * (time.Second / 100)
}
