package measure

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Caller is one connected client as the throughput benchmarks drive it:
// Call makes tools/call of tool with args (a JSON object, already encoded)
// and returns the text of the result's first content item. A JSON-RPC
// error, a tool error (isError) and a first item that is not text are
// errors.
type Caller interface {
	Call(ctx context.Context, tool string, args json.RawMessage) (string, error)
}

// Client is a connected client as the commands hold it.
type Client interface {
	Caller
	// Protocol is the protocol version the client negotiated.
	Protocol() string
	Close(ctx context.Context) error
}

// Sample is one measurement of one client at one number of calls in
// flight.
type Sample struct {
	Calls      uint64 // calls answered with the message sent
	Elapsed    time.Duration
	Rate       float64 // Calls per second of Elapsed
	P50, P99   time.Duration
	CPUPerCall time.Duration // this process's CPU time (user+system) per call
	// ServerCPUPerCall is the CPU time of this process's children (the
	// server) per call, where it can be read (Linux); 0 elsewhere.
	ServerCPUPerCall time.Duration
	// Allocs and Bytes are this process's heap allocations and bytes
	// allocated per call (runtime.MemStats), the driver's own included:
	// none for a fixed load, one message per call for a unique one.
	Allocs, Bytes float64
	Errors        uint64 // failed calls (and, set by the caller, failed connects)
	Mismatches    uint64 // answers whose text was not the message sent
	FirstErr      string
	Protocol      string // the protocol version the client negotiated
}

// CallSpec says how to measure: Warmup of calls not measured, then
// Duration of calls measured, with InFlight calls of Load in flight (one
// goroutine each). CPUProfile, when set, is a file for a CPU profile of
// the measured part.
type CallSpec struct {
	Load             Load
	InFlight         int
	Warmup, Duration time.Duration
	CPUProfile       string
}

// DialAndMeasure connects a client with dial (given 30 s), measures it
// as spec says, and closes it (given 10 s). A failed connect is one error
// of the sample; an error from Close is written on stderr, not counted
// (some clients report the server's exit on close as an error). A
// watchdog ends the calls of a client that stops answering, 60 s after
// the measurement should have ended, so that it fails its calls instead
// of hanging the run. The error is MeasureCalls'.
func DialAndMeasure(name string, spec CallSpec, dial func(ctx context.Context) (Client, error)) (Sample, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dctx, dcancel := context.WithTimeout(ctx, 30*time.Second)
	c, err := dial(dctx)
	dcancel()
	if err != nil {
		return Sample{Errors: 1, FirstErr: "connect: " + err.Error()}, nil
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		if err := c.Close(cctx); err != nil {
			fmt.Fprintf(os.Stderr, "  %s close: %v\n", name, err)
		}
	}()
	watchdog := time.AfterFunc(spec.Warmup+spec.Duration+60*time.Second, cancel)
	defer watchdog.Stop()
	s, err := MeasureCalls(ctx, c, spec)
	s.Protocol = c.Protocol()
	return s, err
}

// MeasureCalls warms c up, collects garbage, and measures it. The error is
// only for a CPU profile that could not be written; failed calls are
// counted in the sample.
func MeasureCalls(ctx context.Context, c Caller, spec CallSpec) (Sample, error) {
	var s Sample
	if spec.Warmup > 0 {
		callFor(ctx, c, spec.Load, spec.InFlight, spec.Warmup)
	}
	runtime.GC()
	if spec.CPUProfile != "" {
		f, err := os.Create(spec.CPUProfile)
		if err != nil {
			return s, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			_ = f.Close()
			return s, err
		}
		defer func() {
			pprof.StopCPUProfile()
			_ = f.Close()
		}()
	}
	meter := StartMeter()
	workers, elapsed := callFor(ctx, c, spec.Load, spec.InFlight, spec.Duration)
	var h Latencies
	for _, w := range workers {
		h.Merge(&w.h)
		s.Calls += w.calls
		s.Errors += w.errors
		s.Mismatches += w.mismatches
		if s.FirstErr == "" {
			s.FirstErr = w.firstErr
		}
	}
	s.Elapsed = elapsed
	s.Rate = float64(s.Calls) / elapsed.Seconds()
	s.P50, s.P99 = h.Quantile(0.50), h.Quantile(0.99)
	meter.Stop(&s)
	return s, nil
}

// worker is one caller goroutine's tally; each has its own, so that
// recording shares no memory with the others.
type worker struct {
	h          Latencies
	calls      uint64
	errors     uint64
	mismatches uint64
	firstErr   string
}

// callFor runs n goroutines, each making the load's calls in a loop
// until d has passed. Calls in flight at the deadline are
// waited for and counted; the elapsed time runs until the last of them is
// back. A goroutine stops early when ctx ends or after 100 errors.
func callFor(ctx context.Context, c Caller, load Load, n int, d time.Duration) ([]*worker, time.Duration) {
	workers := make([]*worker, n)
	for i := range workers {
		workers[i] = new(worker)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	start := time.Now()
	for g, w := range workers {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				args, want := load.Call(g, i)
				t0 := time.Now()
				got, err := c.Call(ctx, load.Tool, args)
				lat := time.Since(t0)
				switch {
				case err != nil:
					w.errors++
					if w.firstErr == "" {
						w.firstErr = err.Error()
					}
					if ctx.Err() != nil || w.errors >= 100 {
						return
					}
				case got != want:
					w.mismatches++
					if w.firstErr == "" {
						w.firstErr = fmt.Sprintf("want %q, got %q", clip(want), clip(got))
					}
				default:
					w.calls++
					w.h.Record(lat)
				}
			}
		})
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
	return workers, time.Since(start)
}

// clip shortens s for an error text.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…(" + strconv.Itoa(len(s)) + " bytes)"
	}
	return s
}
