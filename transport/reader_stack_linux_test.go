//go:build linux

package transport

import (
	"runtime"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// A server at rest costs the process its reader's stack and little else
// (its stderr is drained by the shared watch): the reader waits for input
// in a frame shallow enough for the runtime to shrink its stack to 4 KiB,
// however deep it went to hand the last answers on. (make test-invariants
// runs it without the race detector, whose instrumentation deepens every
// frame.)
func TestQuietReaderFitsInFourKiB(t *testing.T) {
	if raceOn {
		t.Skip("the race detector deepens every frame; this bound is measured without it (make test-invariants)")
	}
	// In a process of its own: stack spans other tests left partly used
	// would take the readers' stacks without growing StackInuse.
	if !harness.InChild(t, "MCPACTOR_TEST_QUIET_READER") {
		return
	}
	quietFor(t, 50*time.Millisecond)
	const servers = 100
	sys := harness.ActorSystem(t)
	before := harness.StackInuse()
	ss := make([]*server, servers)
	for i := range ss {
		ss[i] = startServer(t, testserver.Options{}, nil, sys, func(c *StdioConfig) { c.StderrLine = nil })
	}
	for _, s := range ss {
		if _, err := s.conn.Call(harness.Context(t), "tools/call", toolParams("echo", map[string]any{"message": "up"}), RequestOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(200 * time.Millisecond) // quiet: the readers wait with their buffers given back
	// The runtime halves a stack at most once a collection.
	for range 4 {
		runtime.GC()
	}
	after := harness.StackInuse()
	per := int64(after-before) / servers
	t.Logf("%d bytes of stack per quiet server", per)
	// 4 KiB each, and the process's shared goroutines and the stack spans'
	// rounding spread over the servers; a reader left at 8 KiB reads 9 KB
	// or more.
	if per < 0 || per > 7<<10 {
		t.Errorf("a quiet server holds %d bytes of stack; its reader should wait in 4 KiB", per)
	}
}
