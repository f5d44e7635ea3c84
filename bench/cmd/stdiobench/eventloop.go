package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// measureEventLoop measures the event-loop reference as DialAndMeasure
// does a client that has a blocking Call: connect (given 30 s), warm up,
// collect garbage, measure, close (given 10 s). The reference keeps
// spec.InFlight calls outstanding itself, with no goroutine per call, and
// records each answer's latency on its reading goroutine.
func measureEventLoop(srv measure.StdioServer, spec measure.CallSpec) measure.Sample {
	ctx, cancel := context.WithTimeout(context.Background(), spec.Warmup+spec.Duration+90*time.Second)
	defer cancel()
	dctx, dcancel := context.WithTimeout(ctx, 30*time.Second)
	e, err := measure.StartEventLoop(dctx, srv)
	dcancel()
	if err != nil {
		return measure.Sample{Errors: 1, FirstErr: "connect: " + err.Error()}
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		if err := e.Close(cctx); err != nil {
			fmt.Fprintf(os.Stderr, "  %s close: %v\n", measure.EventLoopName, err)
		}
	}()
	load := measure.RefLoad(spec.Load)
	if spec.Warmup > 0 {
		e.Run(ctx, load, spec.InFlight, spec.Warmup, nil)
	}
	runtime.GC()
	var h measure.Latencies
	meter := measure.StartMeter()
	r := e.Run(ctx, load, spec.InFlight, spec.Duration, h.Record)
	s := measure.Sample{
		Calls: r.Calls, Elapsed: r.Elapsed, Errors: r.Errors, Mismatches: r.Mismatches, FirstErr: r.FirstErr,
		P50: h.Quantile(0.50), P99: h.Quantile(0.99), Protocol: e.Protocol(),
	}
	if r.Elapsed > 0 {
		s.Rate = float64(r.Calls) / r.Elapsed.Seconds()
	}
	meter.Stop(&s)
	return s
}
