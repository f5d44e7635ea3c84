package transport

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// deadlines keeps the request timeouts of all a transport actor's pending
// calls: a min-heap of calls by deadline and one timer, armed for the
// earliest. A call used to arm a timer of its own (a timer and a closure
// per request, and a timer-heap insertion and removal in the runtime);
// here a call costs a heap push and pop inside the actor, and the timer is
// reset only when a call's deadline is earlier than the one it is armed
// for. With one timeout for every call, deadlines arrive in order and the
// timer is touched about once per timeout period, not once per call.
//
// It belongs to the actor, like the pending table: only Receive touches it.
// When the timer fires it sends the actor deadlineTick, and the actor
// retires every call whose deadline has passed exactly as a caller's
// cancellation would (rpcCore.retire), so a call still ends once.
type deadlines struct {
	heap  []*call
	timer *time.Timer
	armed time.Time // what timer is set for; zero when it is not
	root  *actor.RootContext
	self  *actor.PID
}

// deadlineTick: the earliest deadline may have passed.
type deadlineTick struct{}

// add records c's deadline (c.deadline is not zero).
func (d *deadlines) add(ctx actor.Context, c *call) {
	c.heapIndex = int32(len(d.heap))
	d.heap = append(d.heap, c)
	d.up(len(d.heap) - 1)
	if c.heapIndex == 0 && (d.armed.IsZero() || c.deadline.Before(d.armed)) {
		d.arm(ctx, c.deadline)
	}
}

// remove forgets c's deadline, if it has one. The timer is left as it is:
// at worst it fires early, finds nothing due and is armed again.
func (d *deadlines) remove(c *call) {
	i := int(c.heapIndex)
	if i < 0 || i >= len(d.heap) || d.heap[i] != c {
		return
	}
	last := len(d.heap) - 1
	if i != last {
		d.swap(i, last)
	}
	d.heap[last] = nil
	d.heap = d.heap[:last]
	c.heapIndex = -1
	if i != last {
		d.down(i)
		d.up(i)
	}
	if len(d.heap) == 0 && cap(d.heap) > 1024 {
		d.heap = nil // a burst is over: let its memory go
	}
}

// due removes and returns the earliest call whose deadline is not after
// now, or nil.
func (d *deadlines) due(now time.Time) *call {
	if len(d.heap) == 0 || d.heap[0].deadline.After(now) {
		return nil
	}
	c := d.heap[0]
	d.remove(c)
	return c
}

// rearm sets the timer for the earliest deadline left, after a tick.
func (d *deadlines) rearm(ctx actor.Context) {
	d.armed = time.Time{}
	if len(d.heap) > 0 {
		d.arm(ctx, d.heap[0].deadline)
	}
}

func (d *deadlines) arm(ctx actor.Context, at time.Time) {
	d.armed = at
	wait := time.Until(at)
	if d.timer == nil {
		d.root, d.self = ctx.ActorSystem().Root, ctx.Self()
		root, self := d.root, d.self
		d.timer = time.AfterFunc(wait, func() { root.Send(self, deadlineTick{}) })
		return
	}
	d.timer.Reset(wait)
}

// stop disarms the timer for good (the transport is ending).
func (d *deadlines) stop() {
	if d.timer != nil {
		d.timer.Stop()
	}
	d.armed = time.Time{}
}

func (d *deadlines) less(i, j int) bool { return d.heap[i].deadline.Before(d.heap[j].deadline) }

func (d *deadlines) swap(i, j int) {
	d.heap[i], d.heap[j] = d.heap[j], d.heap[i]
	d.heap[i].heapIndex = int32(i)
	d.heap[j].heapIndex = int32(j)
}

func (d *deadlines) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !d.less(j, i) {
			return
		}
		d.swap(i, j)
		j = i
	}
}

func (d *deadlines) down(i int) {
	n := len(d.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && d.less(r, l) {
			j = r
		}
		if !d.less(j, i) {
			return
		}
		d.swap(i, j)
		i = j
	}
}
