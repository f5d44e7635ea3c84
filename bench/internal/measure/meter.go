package measure

import (
	"runtime"
	"time"
)

// Meter reads what a measurement costs the client: this process's CPU
// time, heap allocations and bytes, and its children's (the server's) CPU
// time, between StartMeter and Stop.
type Meter struct {
	cpu, server time.Duration
	mem         runtime.MemStats
}

// StartMeter starts a Meter. The heap is read last here and first in
// Stop, so that the meter's own allocations are not the client's: reading
// the children's CPU walks /proc, some 850 allocations each time, which
// read as 0.1 allocations per call at 1 in flight on every client.
func StartMeter() *Meter {
	m := new(Meter)
	m.cpu, m.server = ProcessCPU(), ChildrenCPU()
	runtime.ReadMemStats(&m.mem)
	return m
}

// Stop sets s's per-call costs over s.Calls calls from what was used since
// StartMeter.
func (m *Meter) Stop(s *Sample) {
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	cpu, server := ProcessCPU()-m.cpu, ChildrenCPU()-m.server
	if s.Calls == 0 {
		return
	}
	n := time.Duration(s.Calls)
	s.CPUPerCall, s.ServerCPUPerCall = cpu/n, server/n
	s.Allocs = float64(mem.Mallocs-m.mem.Mallocs) / float64(s.Calls)
	s.Bytes = float64(mem.TotalAlloc-m.mem.TotalAlloc) / float64(s.Calls)
}
