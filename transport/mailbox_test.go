package transport

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// seq is a message numbered by its sender.
type seq struct{ from, n int }

// TestOwnMailbox: messages posted from many goroutines at once, some of
// them the kinds handled on the poster's goroutine (*inbound) and some
// not, all reach the actor, each sender's in order, one at a time; a
// panic is escalated and the actor stopped as with protoactor's mailbox.
func TestOwnMailbox(t *testing.T) {
	sys := harness.ActorSystem(t)
	const senders, each = 8, 2000
	var inside atomic.Bool
	var overlap atomic.Int32
	last := make([]int, senders)
	var received atomic.Int32
	done := make(chan struct{})
	stopped := make(chan struct{})
	props := actor.PropsFromFunc(func(c actor.Context) {
		if !inside.CompareAndSwap(false, true) {
			overlap.Add(1)
		}
		defer inside.Store(false)
		var s seq
		switch m := c.Message().(type) {
		case seq:
			s = m
		case *inbound:
			s = seq{from: int(m.bytes >> 32), n: int(m.bytes & 0xffffffff)}
		case string:
			panic(m)
		case *actor.Stopped:
			close(stopped)
			return
		default:
			return
		}
		if s.n != last[s.from]+1 {
			t.Errorf("sender %d: message %d after %d", s.from, s.n, last[s.from])
		}
		last[s.from] = s.n
		if received.Add(1) == senders*each {
			close(done)
		}
	}, actor.WithMailbox(newOwnMailbox), actor.WithGuardian(stopOnPanic))
	pid := sys.Root.Spawn(props)
	var wg sync.WaitGroup
	for from := range senders {
		wg.Go(func() {
			for n := 1; n <= each; n++ {
				if from%2 == 0 {
					sys.Root.Send(pid, &inbound{bytes: int64(from)<<32 | int64(n)})
				} else {
					sys.Root.Send(pid, seq{from, n})
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-done:
	case <-time.After(harness.Bound):
		t.Fatalf("%d of %d messages received", received.Load(), senders*each)
	}
	if n := overlap.Load(); n != 0 {
		t.Errorf("the actor ran %d times while it was already running", n)
	}
	sys.Root.Send(pid, "boom")
	select {
	case <-stopped:
	case <-time.After(harness.Bound):
		t.Fatal("a panic did not stop the actor")
	}
}
