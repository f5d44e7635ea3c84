package main

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// TestMain lets the test binary serve as the test server and as the go-sdk
// stdio server when re-executed.
func TestMain(m *testing.M) {
	measure.RunStdioServerIfChild()
	os.Exit(m.Run())
}

// BenchmarkEcho is the harness's measurement in testing.B form, for
// `make bench` and benchstat: one sub-benchmark per client and in-flight
// level (measure.BenchCalls). The stdiobench command, with its rounds,
// interleaving and latency percentiles, is the reference; see
// docs/benchmarks.md. The server is the fast server, the load echo-fixed.
func BenchmarkEcho(b *testing.B) {
	srv := measure.StdioServerOf(measure.ServerFast, "")
	for _, n := range []int{1, 16, 256} {
		for _, name := range measure.StdioClients {
			if name == measure.EventLoopName {
				continue // it has no blocking Call
			}
			b.Run(fmt.Sprintf("client=%s/inflight=%d", name, n), func(b *testing.B) {
				measure.BenchClient(b, measure.EchoFixed, n, func(ctx context.Context) (measure.Client, error) { return measure.DialStdio(ctx, name, srv) })
			})
		}
	}
}
