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
	runIfChild()
	os.Exit(m.Run())
}

// BenchmarkEcho is the harness's measurement in testing.B form, for
// `make bench` and benchstat: one sub-benchmark per client and in-flight
// level (measure.BenchCalls). The stdiobench command, with its rounds,
// interleaving and latency percentiles, is the reference; see
// docs/benchmarks.md. The server is mcpactor's test server.
func BenchmarkEcho(b *testing.B) {
	srv := stdioServer(serverTestserver, "")
	for _, n := range []int{1, 16, 256} {
		for _, name := range measure.ClientOrder {
			b.Run(fmt.Sprintf("client=%s/inflight=%d", name, n), func(b *testing.B) {
				measure.BenchClient(b, n, func(ctx context.Context) (measure.Client, error) { return dialers[name](ctx, srv) })
			})
		}
	}
}
