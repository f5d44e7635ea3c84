package main

import (
	"os"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the test server, and as a
// measurement process, when re-executed.
func TestMain(m *testing.M) {
	runIfChild()
	os.Exit(m.Run())
}

// BenchmarkBringUp is the harness's measurement in testing.B form, for
// `make bench` and benchstat: one sub-benchmark per client, each operation
// the bring-up of 20 test servers (this test binary re-executed), closed
// after it. ns/op is the bring-up's wall time; heapKB/session and
// stackKB/session are the memory measured as the harness does, but in one
// process for all operations. The bringup command, with a fresh process
// per measurement, rounds and 100 servers, is the reference; see
// docs/benchmarks.md.
func BenchmarkBringUp(b *testing.B) {
	const servers = 20
	for _, d := range drivers {
		b.Run("client="+d.name, func(b *testing.B) {
			var heap, stack float64
			var elapsed time.Duration
			for b.Loop() {
				r := bringUp(spec{Client: d.name, Kind: "testserver", Servers: servers, Timeout: time.Minute})
				if r.Errors > 0 {
					b.Fatalf("%d servers failed: %s", r.Errors, r.FirstErr)
				}
				heap += float64(r.HeapInuse) / servers / 1024
				stack += float64(r.StackInuse) / servers / 1024
				elapsed += r.Elapsed
			}
			b.ReportMetric(float64(elapsed)/float64(b.N), "ns/op")
			b.ReportMetric(heap/float64(b.N), "heapKB/session")
			b.ReportMetric(stack/float64(b.N), "stackKB/session")
		})
	}
}
