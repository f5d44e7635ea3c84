package main

import (
	"runtime"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// Each measurement runs in a process of its own, this program started
// again with the measurement's spec in its environment; it prints its
// result as one JSON line.

// envMeasure, when set, makes this program one measurement: its value is
const envMeasure = "MCPACTOR_BRINGUP_MEASURE"

// resultPrefix starts the line a measurement prints its result on.
const resultPrefix = "bringup-result "

// spec is one measurement, as the parent hands it to a child.
type spec struct {
	Client     string        `json:"client"`
	Kind       string        `json:"kind"` // "testserver" or "everything"
	Servers    int           `json:"servers"`
	ServerPath string        `json:"serverPath,omitempty"` // -server
	MemProfile string        `json:"memProfile,omitempty"`
	CPUProfile string        `json:"cpuProfile,omitempty"`
	Timeout    time.Duration `json:"timeout"`
}

// result is one measurement.
type result struct {
	Client     string        `json:"client"`
	Kind       string        `json:"kind"`
	Servers    int           `json:"servers"`
	Elapsed    time.Duration `json:"elapsed"`    // start until every server has answered tools/list
	CPU        time.Duration `json:"cpu"`        // this process's user+system CPU time over Elapsed
	HeapInuse  int64         `json:"heapInuse"`  // MemStats.HeapInuse after minus before
	HeapAlloc  int64         `json:"heapAlloc"`  // MemStats.HeapAlloc (live objects) after minus before
	StackInuse int64         `json:"stackInuse"` // MemStats.StackInuse after minus before
	RSS        int64         `json:"rss"`        // VmRSS after minus before
	PeakRSS    int64         `json:"peakRSS"`    // VmHWM at the end minus VmRSS before
	Goroutines int           `json:"goroutines"` // after minus before
	Tools      int           `json:"tools"`      // tools per server (all servers agree)
	Errors     int           `json:"errors"`     // servers not brought up, or with unexpected tools
	FirstErr   string        `json:"firstErr,omitempty"`
	Close      time.Duration `json:"close"` // closing everything (not part of the bring-up)
}

// measureInChild runs one measurement in a fresh process: this program,
// with envMeasure set.
func measureInChild(sp spec) result {
	r, err := measure.RunChild[spec, result](envMeasure, resultPrefix, sp)
	if err != nil {
		return result{Client: sp.Client, Kind: sp.Kind, Servers: sp.Servers, Errors: sp.Servers, FirstErr: err.Error()}
	}
	return r
}

// runIfChild serves and exits when this program was started as a child:
// as mcpactor's test server (testserver.Command), or as a measurement
// process, which performs the measurement envMeasure describes and prints
// its result. Otherwise it returns at once.
func runIfChild() {
	testserver.RunIfChild()
	sp, ok, err := measure.ChildSpec[spec](envMeasure)
	if !ok {
		return
	}
	if err != nil {
		fatalf("%v", err)
	}
	if sp.MemProfile != "" {
		// Every allocation sampled, so that the profile accounts for each
		// session's bytes (it costs time: the bring-up measured with it is
		// slower).
		runtime.MemProfileRate = 1
	}
	measure.ChildReply(resultPrefix, bringUp(sp))
}
