package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

func writeHeapProfile(path string) {
	if pf, err := os.Create(path); err == nil {
		_ = pprof.WriteHeapProfile(pf)
		_ = pf.Close()
	}
}

// mem is a reading of this process's memory, taken after garbage
// collection and after returning free memory to the OS.
type mem struct {
	heapInuse, heapAlloc, stackInuse uint64
	rss, hwm                         int64 // bytes; 0 where /proc is not there
	goroutines                       int
}

func readMem() mem {
	runtime.GC()
	debug.FreeOSMemory() // a second collection, and free pages returned
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := mem{heapInuse: ms.HeapInuse, heapAlloc: ms.HeapAlloc, stackInuse: ms.StackInuse, goroutines: runtime.NumGoroutine()}
	m.rss, m.hwm = measure.ProcStatus()
	return m
}
