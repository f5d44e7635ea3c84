package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// noClient is the idle measurement's row for the process that connects
// nothing: what the binary itself holds (its runtime, and the package
// initialisation of every client linked into it), which every other row
// of the same run includes.
const noClient = "none"

// idleLoad is the load name of the idle measurement's results.
const idleLoad = "idle"

// idleSample is what an idle measurement's process reports: its memory
// once connected to one stdio server and one warm-up call answered.
type idleSample struct {
	RSS int64 `json:"rss"` // VmRSS as it is, bytes
	// Floor is VmRSS after runtime.GC and debug.FreeOSMemory: the garbage
	// collected and the freed pages given back, what the process cannot
	// do without.
	Floor int64 `json:"floor"`
	// Heap, Stacks and Runtime are read at the floor (runtime.MemStats):
	// the heap in use, the goroutine stacks in use, and what the runtime
	// has obtained for its own structures (spans, GC metadata, caches,
	// profiling buckets; obtained, not necessarily resident).
	Heap       int64  `json:"heap"`
	Stacks     int64  `json:"stacks"`
	Runtime    int64  `json:"runtime"`
	Goroutines int    `json:"goroutines"`
	Errors     uint64 `json:"errors"`
	FirstErr   string `json:"firstErr"`
}

// idleHere is one idle measurement, in this process: client connects to
// srv and answers one call of load, then the process reads its memory.
// The pause lets the connection's goroutines settle (a handshake's
// helpers end, timers fire) as they would in a program that has just
// connected and is waiting for work.
func idleHere(client string, ms int, srv measure.StdioServer) idleSample {
	var s idleSample
	startProfile(client, 0)
	if client != noClient {
		load := measure.Sleep(ms)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute+time.Duration(ms)*time.Millisecond)
		defer cancel()
		if client == measure.EventLoopName {
			e, err := measure.StartEventLoop(ctx, srv)
			if err != nil {
				return idleSample{Errors: 1, FirstErr: "connect: " + err.Error()}
			}
			defer closeQuietly(e.Close)
			if r := measure.RefLoad(load); e.RunCount(ctx, r, 1, nil).Calls != 1 {
				return idleSample{Errors: 1, FirstErr: "warm-up call failed"}
			}
		} else {
			c, err := measure.DialStdio(ctx, client, srv)
			if err != nil {
				return idleSample{Errors: 1, FirstErr: "connect: " + err.Error()}
			}
			defer closeQuietly(c.Close)
			args, want := load.Call(0, 0)
			if got, err := c.Call(ctx, load.Tool, args); err != nil || got != want {
				return idleSample{Errors: 1, FirstErr: fmt.Sprintf("warm-up call: %q, %v", got, err)}
			}
		}
	}
	time.Sleep(200 * time.Millisecond)
	s.RSS, _ = measure.ProcStatus()
	runtime.GC()
	debug.FreeOSMemory()
	s.Floor, _ = measure.ProcStatus()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.Heap, s.Stacks = int64(m.HeapInuse), int64(m.StackInuse)
	s.Runtime = int64(m.MSpanInuse + m.MCacheInuse + m.BuckHashSys + m.GCSys + m.OtherSys)
	s.Goroutines = runtime.NumGoroutine()
	if dir := os.Getenv(envProfile); dir != "" {
		writeHeapProfile(filepath.Join(dir, "idle-"+client+".pb.gz"))
	}
	return s
}

// runIdle measures every client (and the process alone) rounds times,
// each in a process of its own, and renders the medians, with the results
// cmd/benchrun reads (each client's memory over the process alone).
func runIdle(cfg *config) (string, []measure.Result) {
	names := append([]string{noClient}, cfg.clients...)
	got := make(map[string][]idleSample)
	for round := range cfg.rounds {
		for i := range names {
			name := names[(i+round)%len(names)]
			var s idleSample
			if err := runChild(cfg, name, 0, &s); err != nil {
				s = idleSample{Errors: 1, FirstErr: err.Error()}
			}
			got[name] = append(got[name], s)
			fmt.Fprintf(os.Stderr, "round %d/%d  idle  %-9s  RSS %s  floor %s  heap %s  stacks %s  goroutines %d %s\n", round+1, cfg.rounds, name,
				measure.Bytes(float64(s.RSS)), measure.Bytes(float64(s.Floor)), measure.Bytes(float64(s.Heap)), measure.Bytes(float64(s.Stacks)), s.Goroutines, s.FirstErr)
		}
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, "### Resident memory with one stdio server connected: medians over %d rounds\n\n", cfg.rounds)
	measure.WriteRunInfo(&b, "inflight")
	fmt.Fprintf(&b, "- server: %s\n", measure.StdioServerDesc(cfg.server, "", "inflight"))
	fmt.Fprintf(&b, "- each measurement is a process of its own: connect, one call of a %d ms tool, 200 ms of rest, then VmRSS; the floor is VmRSS after runtime.GC and debug.FreeOSMemory. The row %q connects nothing: every client is linked into this one binary, so every row includes that row's memory (the Go runtime and every library's package initialisation); \"over none\" is the client's own share\n\n", cfg.ms, noClient)
	b.WriteString("| client | VmRSS | over none | floor | over none | heap in use | stacks | runtime's own (obtained) | goroutines | status |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	median := func(ss []idleSample, f func(idleSample) int64) float64 {
		var v []float64
		for _, s := range ss {
			if s.Errors == 0 {
				v = append(v, float64(f(s)))
			}
		}
		return measure.Median(v)
	}
	base := median(got[noClient], func(s idleSample) int64 { return s.RSS })
	baseFloor := median(got[noClient], func(s idleSample) int64 { return s.Floor })
	var results []measure.Result
	for _, name := range names {
		ss := got[name]
		rss := median(ss, func(s idleSample) int64 { return s.RSS })
		floor := median(ss, func(s idleSample) int64 { return s.Floor })
		status := "ok"
		var errs uint64
		for _, s := range ss {
			if s.Errors > 0 && errs == 0 {
				status = "**FLAGGED**: " + measure.OneLine(s.FirstErr)
			}
			errs += s.Errors
		}
		if name != noClient {
			results = append(results, measure.Result{Bench: "inflight", Server: cfg.server, Load: idleLoad, Client: name, InFlight: 1, Errors: errs,
				Extra: map[string]float64{"rss": rss, "rssOverNone": rss - base, "floor": floor, "floorOverNone": floor - baseFloor}})
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %s |\n", name,
			measure.Bytes(rss), measure.Bytes(rss-base), measure.Bytes(floor), measure.Bytes(floor-baseFloor),
			measure.Bytes(median(ss, func(s idleSample) int64 { return s.Heap })),
			measure.Bytes(median(ss, func(s idleSample) int64 { return s.Stacks })),
			measure.Bytes(median(ss, func(s idleSample) int64 { return s.Runtime })),
			median(ss, func(s idleSample) int64 { return int64(s.Goroutines) }), status)
	}
	b.WriteString("\n")
	return b.String(), results
}
