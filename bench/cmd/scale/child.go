package main

import (
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// Each measurement runs in a process of its own, this program started
// again with the measurement's spec in its environment, so that the
// resident memory it reads is one client's alone; it prints its result as
// one JSON line.

// envMeasure, when set, makes this program one measurement: its value is
// the spec, as JSON.
const envMeasure = "MCPACTOR_SCALE_MEASURE"

// resultPrefix starts the line a measurement prints its result on.
const resultPrefix = "scale-result "

// spec is one measurement, as the parent hands it to a child.
type spec struct {
	Scenario string `json:"scenario"`
	Client   string `json:"client"`
	Sessions int    `json:"sessions"`
	// Parallel bounds the sessions being brought up at once, for every
	// client alike (mcpactor's Manager: ManageOptions.MaxConnecting).
	Parallel int `json:"parallel"`
	// InFlight, Warmup and Duration shape the calls spread over every
	// session after the memory is read; Duration 0 makes none.
	InFlight int           `json:"inflight"`
	Warmup   time.Duration `json:"warmup"`
	Duration time.Duration `json:"duration"`
	// Rest is how long the sessions rest before VmRSS is read.
	Rest    time.Duration `json:"rest"`
	Timeout time.Duration `json:"timeout"` // bound on the bring-up
	// ServerPath is the fast server's binary ("" re-executes this
	// program as the fast server).
	ServerPath string `json:"serverPath,omitempty"`
}

// result is one measurement.
type result struct {
	Scenario string `json:"scenario"`
	Client   string `json:"client"`
	Sessions int    `json:"sessions"`
	// BringUp is the time from before the first session is started until
	// every one has answered its first call; BringUpCPU this process's
	// CPU time meanwhile.
	BringUp    time.Duration `json:"bringUp"`
	BringUpCPU time.Duration `json:"bringUpCPU"`
	// The memory the sessions hold, after minus before: RSSRest is VmRSS
	// after Rest (no collection forced, as a program at rest has it);
	// Floor is VmRSS after runtime.GC and debug.FreeOSMemory; HeapInuse
	// and Stacks are MemStats' after the same collection.
	RSSRest    int64 `json:"rssRest"`
	Floor      int64 `json:"floor"`
	HeapInuse  int64 `json:"heapInuse"`
	Stacks     int64 `json:"stacks"`
	Goroutines int   `json:"goroutines"`
	// Calls is the measurement of calls spread over every session (zero
	// when the scenario makes none).
	Calls    measure.Sample `json:"calls"`
	Protocol string         `json:"protocol,omitempty"`
	// Errors counts sessions not brought up or whose first call failed,
	// and the failed calls of Calls.
	Errors   int    `json:"errors"`
	FirstErr string `json:"firstErr,omitempty"`
}

// fail records err against n sessions.
func (r *result) fail(n int, err error) {
	r.Errors += n
	if r.FirstErr == "" && err != nil {
		r.FirstErr = err.Error()
	}
}

// measureInChild runs one measurement in a fresh process: this program,
// with envMeasure set.
func measureInChild(sp spec) result {
	got, err := measure.RunChild[spec, result](envMeasure, resultPrefix, sp)
	if err != nil {
		r := result{Scenario: sp.Scenario, Client: sp.Client, Sessions: sp.Sessions}
		r.fail(sp.Sessions, err)
		return r
	}
	return got
}

// runIfChild serves and exits when this program was started as a child:
// as a stdio server (measure.RunStdioServerIfChild), as mcpactor's test
// server in HTTP mode, or as a measurement process, which performs the
// measurement envMeasure describes and prints its result. Otherwise it
// returns at once.
func runIfChild() {
	measure.RunStdioServerIfChild()
	sp, ok, err := measure.ChildSpec[spec](envMeasure)
	if !ok {
		return
	}
	if err != nil {
		fatalf("%v", err)
	}
	measure.ChildReply(resultPrefix, measureHere(sp))
}
