package cluster

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// inbox is the member's endpoint on the remote layer, registered in the
// actor system's process registry under actorName in place of an actor.
// protoactor's endpoint reader hands it each message on the reader's own
// goroutine: an actor would add a mailbox, a goroutine switch per message
// and one goroutine decoding every member's messages in turn, and a
// request is handed to a worker anyway (it may take minutes) while a
// response only wakes its caller.
type inbox struct{ m *Member }

func (in inbox) SendUserMessage(_ *actor.PID, message any) {
	in.m.receive(actor.UnwrapEnvelopeMessage(message))
}

// SendSystemMessage ignores system messages: nobody watches the inbox,
// and it has no life of its own to stop or restart.
func (inbox) SendSystemMessage(*actor.PID, any) {}

func (inbox) Stop(*actor.PID) {}

// workers runs the requests of other members on goroutines that are kept
// for a while between requests. A goroutine of its own per request would
// start each on a small stack and grow it again on the way to the server
// (the runtime's telemetry, the manager, the codec): that copying was
// 13% of an owner's CPU time at 64 callers (BenchmarkHop's profile). There is no bound on
// the requests running at once (as with a goroutine each): a request
// finds an idle worker or starts one; at most maxIdleWorkers wait.
type workers struct {
	ctx  context.Context // ends the idle workers
	wg   *sync.WaitGroup
	jobs chan func() // unbuffered: a send succeeds only to an idle worker
	idle atomic.Int32
}

const (
	maxIdleWorkers = 256
	workerIdle     = 2 * time.Second
)

func newWorkers(ctx context.Context, wg *sync.WaitGroup) *workers {
	return &workers{ctx: ctx, wg: wg, jobs: make(chan func())}
}

// run runs job on an idle worker or a new one. The caller holds a count
// of wg, so that adding the new worker's does not race wg.Wait.
func (w *workers) run(job func()) {
	select {
	case w.jobs <- job:
		return
	default:
	}
	w.wg.Add(1)
	go w.work(job)
}

func (w *workers) work(job func()) {
	defer w.wg.Done()
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		job()
		if w.idle.Add(1) > maxIdleWorkers {
			w.idle.Add(-1)
			return
		}
		idle.Reset(workerIdle)
		select {
		case job = <-w.jobs:
			w.idle.Add(-1)
		case <-idle.C:
			w.idle.Add(-1)
			return
		case <-w.ctx.Done():
			w.idle.Add(-1)
			return
		}
	}
}

// pidCache keeps the PIDs of other members' inboxes. A PID remembers the
// process the registry resolved it to (for another address, protoactor's
// remote process, which holds no state of the connection), so that a
// kept one skips the registry's lookup and its allocations on each send.
type pidCache struct {
	mu   sync.RWMutex
	pids map[pidKey]*actor.PID
}

type pidKey struct{ address, id string }

// maxCachedPIDs bounds the cache of a member that outlives many
// addresses (members restarted on new ports): past it, it starts again.
const maxCachedPIDs = 4096

func (c *pidCache) get(address, id string) *actor.PID {
	k := pidKey{address, id}
	c.mu.RLock()
	pid := c.pids[k]
	c.mu.RUnlock()
	if pid != nil {
		return pid
	}
	pid = actor.NewPID(address, id)
	c.mu.Lock()
	if c.pids == nil || len(c.pids) >= maxCachedPIDs {
		c.pids = map[pidKey]*actor.PID{}
	}
	c.pids[k] = pid
	c.mu.Unlock()
	return pid
}
