package transport

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// Byte budgets. Counting messages bounds nothing when one message can be
// 16 MiB, so every queue a transport keeps has a budget in bytes as well as
// a count (docs/architecture.md, "Bounded everything"). Each queue has one
// policy when its budget is spent: the write side makes callers wait,
// progress drops the oldest, the reader stops reading.

// Default byte budgets; StdioConfig can change each of them.
const (
	// defaultMaxWriteBytes bounds the bytes of frames waiting to be
	// written or being written. Callers beyond it wait (bounded by their
	// context), so a server that stops reading its input costs at most
	// this much, not every frame ever sent to it.
	defaultMaxWriteBytes = 8 << 20
	// defaultMaxProgressBytes bounds the progress notifications waiting for
	// their callers, over all of one connection's calls.
	defaultMaxProgressBytes = 16 << 20
	// defaultMaxCallProgressBytes bounds one call's waiting progress
	// notifications; beyond it the oldest are dropped. A single
	// notification larger than this is still delivered when it is alone.
	defaultMaxCallProgressBytes = 1 << 20
	// defaultInboundBytes bounds the decoded frames a reader has handed to
	// the actor and the actor has not yet dispatched. It must hold at least
	// one frame of the largest size accepted.
	defaultInboundBytes = 32 << 20
)

// maxUnbudgetedBytes bounds the frames the actor writes on its own account
// (notifications/cancelled, errors for invalid server requests) while the
// writer is stuck. They are small and follow from calls that already hold
// budget, but a server that floods invalid requests without reading our
// answers must not grow them without limit: past this they are dropped and
// counted.
const maxUnbudgetedBytes = 1 << 20

// frameOverhead is what the JSON-RPC envelope adds to a request's method and
// params, rounded up ({"jsonrpc":"2.0","id":N,"method":"","params":}\n).
const frameOverhead = 64

// writeBudget is the write side's byte budget. Callers acquire a frame's
// weight before handing it to the actor; the actor releases it when the
// frame has been written or dropped. A frame larger than the whole budget
// weighs the whole budget, so it can always go, alone.
type writeBudget struct {
	sem  *semaphore.Weighted
	size int64
}

func newWriteBudget(size int) *writeBudget {
	return &writeBudget{sem: semaphore.NewWeighted(int64(size)), size: int64(size)}
}

// weigh returns the weight of a frame carrying payload bytes.
func (b *writeBudget) weigh(payload int) int64 {
	return min(int64(payload+frameOverhead), b.size)
}

// acquire takes w, waiting while the budget is spent. life ends with the
// transport, so that nobody waits for a writer that is gone.
func (b *writeBudget) acquire(ctx, life context.Context, w int64) error {
	if b.sem.TryAcquire(w) {
		return nil
	}
	ctx, stop := mergeDone(ctx, life)
	defer stop()
	return b.sem.Acquire(ctx, w)
}

func (b *writeBudget) release(w int64) {
	if w > 0 {
		b.sem.Release(w)
	}
}

// mergeDone returns a context that ends when ctx or also ends. It is used
// only on slow paths (a full budget), where one more goroutine-free
// AfterFunc registration costs nothing that matters.
func mergeDone(ctx, also context.Context) (context.Context, func()) {
	merged, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(also, func() { cancel(context.Cause(also)) })
	return merged, func() {
		stop()
		cancel(nil)
	}
}

// byteCredits bounds the bytes one producer (a reader goroutine) may have
// handed to the actor and not yet had back. It has a single waiter, so one
// buffered wake-up channel is enough.
type byteCredits struct {
	limit int64
	used  atomic.Int64
	wake  chan struct{}
}

func newByteCredits(limit int) *byteCredits {
	return &byteCredits{limit: int64(limit), wake: make(chan struct{}, 1)}
}

// take waits until n bytes fit, or until quit closes (false). A frame
// larger than the limit is let through when nothing else is outstanding.
func (c *byteCredits) take(n int64, quit <-chan struct{}) bool {
	for {
		used := c.used.Load()
		if used == 0 || used+n <= c.limit {
			if c.used.CompareAndSwap(used, used+n) {
				return true
			}
			continue
		}
		select {
		case <-c.wake:
		case <-quit:
			return false
		}
	}
}

// give returns n bytes and wakes the producer if it waits.
func (c *byteCredits) give(n int64) {
	if n == 0 {
		return
	}
	c.used.Add(-n)
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// limits holds the progress budgets that a Conn's callers and its actor
// share: the actor adds what it queues, callers subtract what they take.
type limits struct {
	callProgress  int64
	connProgress  int64
	progressBytes atomic.Int64 // waiting, over all calls
}

// tookProgress accounts for p leaving c's queue.
func (l *limits) tookProgress(c *call, p json.RawMessage) {
	n := int64(len(p))
	c.progressBytes.Add(-n)
	l.progressBytes.Add(-n)
}
