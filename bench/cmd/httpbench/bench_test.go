package main

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// BenchmarkHTTPEcho is the harness's measurement in testing.B form, for
// `make bench` and benchstat: one sub-benchmark per server, client and
// in-flight level (1 and 16; 16 only for the stateless servers), each
// measure.BenchCalls against a server of its own. The httpbench command,
// with its rounds, interleaving, percentiles and client CPU, is the
// reference; see docs/benchmarks.md.
func BenchmarkHTTPEcho(b *testing.B) {
	for _, srvKind := range serverOrder {
		levels := []int{1, 16}
		if statelessServer(srvKind) {
			levels = []int{16}
		}
		for _, n := range levels {
			for _, name := range clientOrder {
				b.Run(fmt.Sprintf("server=%s/client=%s/inflight=%d", srvKind, name, n), func(b *testing.B) {
					srv, err := startServer(srvKind)
					if err != nil {
						b.Fatal(err)
					}
					defer func() { _ = srv.Stop(5 * time.Second) }()
					measure.BenchClient(b, measure.EchoUnique, n, func(ctx context.Context) (measure.Client, error) { return dialers[name](ctx, srv.url, n) })
				})
			}
		}
	}
}

// TestMain lets the test binary serve as the test server, the go-sdk echo
// server and the fast server when re-executed.
func TestMain(m *testing.M) {
	runIfChild()
	os.Exit(m.Run())
}
