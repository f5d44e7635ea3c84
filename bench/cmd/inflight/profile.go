package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// envProfile, when set to a directory, makes each measurement's process
// a diagnostic one: allocations are sampled every 512 bytes, heap
// profiles are written to the directory halfway through the calls
// (heap-CLIENT-N.pb.gz) and once they have all returned
// (end-CLIENT-N.pb.gz), both after a collection, so that in-use is what is
// live then and alloc_space between the two is what answering cost; and
// a line of memory figures goes to stderr every 25 ms (RSS, heap, stacks,
// collections, goroutines). Its figures are not the benchmark's: the
// sampling, the collections and the stop-the-world reads change them.
// Run one measurement's process directly to see the lines:
//
//	MCPACTOR_INFLIGHT_PROFILE=/tmp/prof MCPACTOR_INFLIGHT_CHILD="mcpactor 10000 1000 fast" inflight
//
// (the idle measurement, N = 0, writes idle-CLIENT.pb.gz at its floor).
const envProfile = "MCPACTOR_INFLIGHT_PROFILE"

// profile is a diagnostic measurement's state; its methods do nothing
// when the measurement is not one.
type profile struct {
	dir, client string
	n           int
	halfway     *time.Timer
	stop        chan struct{}
}

// startProfile starts sampling allocations, before the client connects,
// when envProfile is set.
func startProfile(client string, n int) *profile {
	dir := os.Getenv(envProfile)
	if dir == "" {
		return &profile{}
	}
	runtime.MemProfileRate = 512
	return &profile{dir: dir, client: client, n: n}
}

// calls is told that the calls start, each taking ms.
func (p *profile) calls(ms int) {
	if p.dir == "" {
		return
	}
	p.halfway = time.AfterFunc(time.Duration(ms)*time.Millisecond/2, func() {
		p.write(fmt.Sprintf("heap-%s-%d.pb.gz", p.client, p.n))
	})
	p.stop = make(chan struct{})
	go p.timeline()
}

// end is told that every call has returned.
func (p *profile) end() {
	if p.dir == "" {
		return
	}
	p.halfway.Stop()
	close(p.stop)
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	rss, hwm := measure.ProcStatus()
	fmt.Fprintf(os.Stderr, "end: rss %.1f hwm %.1f stackInuse %.1f heapInuse %.1f goroutines %d gc %d\n",
		mb(rss), mb(hwm), mb(int64(m.StackInuse)), mb(int64(m.HeapInuse)), runtime.NumGoroutine(), m.NumGC)
	p.write(fmt.Sprintf("end-%s-%d.pb.gz", p.client, p.n))
}

// write writes a heap profile after a collection (a heap profile is as of
// the last one).
func (p *profile) write(name string) {
	runtime.GC()
	writeHeapProfile(filepath.Join(p.dir, name))
}

func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "inflight: %v\n", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		fmt.Fprintf(os.Stderr, "inflight: %s: %v\n", path, err)
	}
}

// timeline prints the process's memory every 25 ms until end.
func (p *profile) timeline() {
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	var m runtime.MemStats
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
		rss, hwm := measure.ProcStatus()
		runtime.ReadMemStats(&m)
		fmt.Fprintf(os.Stderr, "%5dms rss %6.1f hwm %6.1f heapInuse %6.1f heapAlloc %6.1f stackInuse %6.1f heapSys %6.1f released %6.1f gc %d goroutines %d\n",
			time.Since(start).Milliseconds(), mb(rss), mb(hwm), mb(int64(m.HeapInuse)), mb(int64(m.HeapAlloc)),
			mb(int64(m.StackInuse)), mb(int64(m.HeapSys)), mb(int64(m.HeapReleased)), m.NumGC, runtime.NumGoroutine())
	}
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }
