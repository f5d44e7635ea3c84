package cluster

import (
	"context"
	"math/rand/v2"
	"time"
)

// backoff is a jittered exponential backoff: each wait is a random
// duration in [d/2, d], d doubling from min to max. protoactor's own
// retries wait 50 to 450 ns; ours wait long enough for the cluster to
// change in between.
type backoff struct {
	min, max, cur time.Duration
}

func newBackoff(min, max time.Duration) *backoff {
	return &backoff{min: min, max: max, cur: min}
}

func (b *backoff) reset() { b.cur = b.min }

// next returns the next wait and doubles the following one.
func (b *backoff) next() time.Duration {
	d := b.cur/2 + rand.N(b.cur/2+1)
	b.cur = min(b.cur*2, b.max)
	return d
}

// sleep waits the next duration; false if ctx ended first.
func (b *backoff) sleep(ctx context.Context) bool {
	t := time.NewTimer(b.next())
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
