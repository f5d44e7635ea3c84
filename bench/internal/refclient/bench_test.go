package refclient

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// The benchmarks show what the references cost per call on this machine
// (with fastserver's share in it); they assert nothing.

func BenchmarkBlockingEcho(b *testing.B) {
	c, err := StartBlocking(context.Background(), fastserver())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(context.Background())
	args := json.RawMessage(`{"message":"hello, world"}`)
	b.SetParallelism(8) // 8 callers per P: calls in flight, as the benchmarks run them
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if got, err := c.Call(context.Background(), "echo", args); err != nil || got != "hello, world" {
				b.Errorf("%q, %v", got, err)
				return
			}
		}
	})
}

func BenchmarkEventLoopEcho(b *testing.B) {
	e, err := StartEventLoop(context.Background(), fastserver())
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(context.Background())
	load := Load{
		Tool: "echo",
		Args: func(b []byte, _ uint64) []byte { return append(b, `{"message":"hello, world"}`...) },
		Want: func(b []byte, _ uint64) []byte { return append(b, "hello, world"...) },
	}
	// Run's own clock, not b.N: the loop keeps 16 calls in flight for
	// a second, and the time per call is the metric.
	var r Result
	for b.Loop() {
		r = e.Run(context.Background(), load, 16, time.Second, nil)
	}
	if r.Errors != 0 || r.Mismatches != 0 || r.Calls == 0 {
		b.Fatalf("%+v", r)
	}
	b.ReportMetric(float64(r.Elapsed.Nanoseconds())/float64(r.Calls), "ns/call")
}
