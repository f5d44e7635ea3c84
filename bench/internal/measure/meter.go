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

// StartMeter starts a Meter.
func StartMeter() *Meter {
	m := new(Meter)
	runtime.ReadMemStats(&m.mem)
	m.cpu, m.server = ProcessCPU(), ChildrenCPU()
	return m
}

// Stop sets s's per-call costs over s.Calls calls from what was used since
// StartMeter.
func (m *Meter) Stop(s *Sample) {
	cpu, server := ProcessCPU()-m.cpu, ChildrenCPU()-m.server
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	if s.Calls == 0 {
		return
	}
	n := time.Duration(s.Calls)
	s.CPUPerCall, s.ServerCPUPerCall = cpu/n, server/n
	s.Allocs = float64(mem.Mallocs-m.mem.Mallocs) / float64(s.Calls)
	s.Bytes = float64(mem.TotalAlloc-m.mem.TotalAlloc) / float64(s.Calls)
}
