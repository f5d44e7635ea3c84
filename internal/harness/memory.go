package harness

import (
	"bytes"
	"context"
	"runtime"
	"sync"
	"testing"
)

// StackInuse is the stack memory in use after two garbage collections.
func StackInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.StackInuse
}

// LiveHeap is the heap still in use after two garbage collections.
func LiveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// ParkedIn counts the goroutines whose stack holds fn.
func ParkedIn(fn string) int {
	buf := make([]byte, 16<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return bytes.Count(buf, []byte(fn))
}

// StackPerGoroutine starts n goroutines running park (which must return
// once its context ends), waits (WaitFor) until each of ready says they
// are all where they are to be measured, and returns the stack memory
// each holds there. The goroutines end before it returns.
func StackPerGoroutine(t testing.TB, n int, park func(context.Context), ready ...func() bool) uint64 {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	before := StackInuse()
	for range n {
		wg.Go(func() { park(ctx) })
	}
	for _, r := range ready {
		WaitFor(t, "the goroutines to park", r)
	}
	after := StackInuse()
	if after < before {
		return 0
	}
	return (after - before) / uint64(n)
}
