package transport

import (
	"context"
	"encoding/json"
	"testing"
	"unsafe"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// Invariants of the hot path that no functional test would notice losing:
// each one fails here, in `go test`, rather than in a later benchmark.

// A call waiting for its answer holds its record (call.go): 192 bytes is
// the allocator's size class it fits today; one field more moves it to the
// next class (224 bytes), for every call in flight, and 16,384 calls can
// be in flight per connection (docs/architecture.md, "Bounded
// everything").
func TestCallRecordFitsItsSizeClass(t *testing.T) {
	var c call
	if n := unsafe.Sizeof(c); n > 192 {
		t.Errorf("a call record is %d bytes, more than 192: memory per in-flight call grows by a size class; pack the small fields (call.go) or say in docs/benchmarks.md why it must grow", n)
	}
}

// A waiting caller keeps its goroutine's stack for as long as the call is
// in flight, so the wait path (Conn.Call down to Conn.await's select) must
// fit in a 4 KiB stack: a goroutine starts with 2 KiB and doubles as it
// needs, and one frame too many on that path makes every waiting call hold
// 8 KiB (docs/architecture.md, "One CallTool, end to end", step 3).
//
// How: 2000 calls wait on a server that never answers; after two garbage
// collections (which give back the stacks that grew only on the way there,
// and shrink those whose wait uses under a quarter of them) the stack
// memory they hold is read from runtime.MemStats.StackInuse, less what it
// was before. It measures the stack the runtime actually keeps, not a
// time, so a loaded machine does not change it. Goroutines parked in a
// plain receive are measured the same way first, as the floor: what any
// goroutine costs in this process.
func TestWaitPathFitsInFourKiB(t *testing.T) {
	const n = 2000
	const limit, slack = 4096, 512 // slack: the stack spans' own rounding
	idle := harness.StackPerGoroutine(t, n, func(ctx context.Context) { <-ctx.Done() })

	s := startServer(t, testserver.Options{NeverAnswer: true}, nil, nil, nil)
	params := json.RawMessage(`{"name":"echo","arguments":{"message":"never answered"}}`)
	waiting := harness.StackPerGoroutine(t, n, func(ctx context.Context) {
		s.conn.Call(ctx, "tools/call", params, RequestOptions{})
	}, func() bool { return harness.ParkedIn("transport.(*Conn).await(") >= n })
	t.Logf("stack per goroutine: %d bytes waiting for a call, %d parked in a receive", waiting, idle)
	if waiting > limit+slack {
		t.Errorf("a call waiting for its answer holds %d bytes of stack, more than %d: a frame on the wait path (Conn.Call, Conn.await and what they call before the select) has grown; move the cold part into a function of its own", waiting, limit)
	}
}
