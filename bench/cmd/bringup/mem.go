package main

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
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
	m.rss, m.hwm = procStatus()
	return m
}

// procStatus reads VmRSS and VmHWM from /proc/self/status, in bytes.
func procStatus() (rss, hwm int64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "VmRSS":
			rss = n << 10
		case "VmHWM":
			hwm = n << 10
		}
	}
	return rss, hwm
}
