package main

import (
	"flag"
	"os"
	"testing"
	"time"
)

// benchServers is how many servers each operation of BenchmarkBringUp
// brings up: 20 keeps `make bench` short; 100 is the command's default,
// for a profile of the bring-up the command measures
// (go test -bench 'BringUp/client=manage$' -bringup.servers 100 -cpuprofile ...).
var benchServers = flag.Int("bringup.servers", 20, "servers per operation of BenchmarkBringUp")

// benchServer is the test server's binary; "" re-executes the test binary
// as the server (heavier to start than bench/cmd/benchserver, built with
// go build -o FILE ./cmd/benchserver).
var benchServer = flag.String("bringup.server", "", "test server binary for BenchmarkBringUp; empty: this test binary")

// TestMain lets the test binary serve as the test server, and as a
// measurement process, when re-executed.
func TestMain(m *testing.M) {
	runIfChild()
	os.Exit(m.Run())
}

// BenchmarkBringUp is the harness's measurement in testing.B form, for
// `make bench` and benchstat: one sub-benchmark per client, each operation
// the bring-up of 20 test servers (-bringup.servers; this test binary
// re-executed), closed after it. ns/op is the bring-up's wall time;
// cpuµs/session this process's CPU time during it, per server;
// heapKB/session and stackKB/session are the memory measured as the harness does, but in one
// process for all operations. The bringup command, with a fresh process
// per measurement, rounds and 100 servers, is the reference; see
// docs/benchmarks.md.
func BenchmarkBringUp(b *testing.B) {
	servers := *benchServers
	for _, d := range drivers {
		b.Run("client="+d.name, func(b *testing.B) {
			var heap, stack float64
			var elapsed, cpu time.Duration
			for b.Loop() {
				r := bringUp(spec{Client: d.name, Kind: "testserver", Servers: servers, ServerPath: *benchServer, Timeout: time.Minute})
				if r.Errors > 0 {
					b.Fatalf("%d servers failed: %s", r.Errors, r.FirstErr)
				}
				heap += float64(r.HeapInuse) / float64(servers) / 1024
				stack += float64(r.StackInuse) / float64(servers) / 1024
				elapsed += r.Elapsed
				cpu += r.CPU
			}
			b.ReportMetric(float64(elapsed)/float64(b.N), "ns/op")
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/float64(servers), "cpuµs/session")
			b.ReportMetric(heap/float64(b.N), "heapKB/session")
			b.ReportMetric(stack/float64(b.N), "stackKB/session")
		})
	}
}
