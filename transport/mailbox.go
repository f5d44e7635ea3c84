package transport

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// ownMailbox is the transport actors' mailbox (over HTTP without a home:
// httpMailbox). It behaves as
// protoactor's default one (system messages first, suspension, a panic
// escalated to the supervisor, a yield every Throughput messages) but for
// who runs the actor, and when:
//
//   - A wake-up of an idle mailbox by the transport's own reader or writer
//     (a run of frames, a finished write) handles the messages on that
//     goroutine, at most inlineBudget of them, instead of starting a
//     goroutine: these goroutines only hand the actor their result and
//     then wait for more input, so nothing of theirs is delayed, and the
//     actor's code never waits for them (the writer's next batch goes
//     into a channel that is empty while it runs here).
//   - A caller's request that finds the mailbox idle is handled on the
//     caller's goroutine, and only that request (scheduleOwn): a caller
//     is never made to run the actor for others (over stdio only while
//     at most 64 calls are in flight, stdioMailbox). Over stdio the frame
//     it queued is then written as the run ends (runEnd,
//     batchWriter.flushOwed) when the pipe takes it at once; over HTTP
//     the run hands the POST back to the caller, which runs it
//     (http_caller_posts.go), or, for a caller that takes progress,
//     starts it on a goroutine waiting for one (http_post_workers.go).
//     Either way no goroutine is woken to send a request.
//   - Other wake-ups, and what a run leaves when its budget is spent, go
//     to the mailbox's home, the stdio writer goroutine, when it is idle
//     (mailboxHome); when the writer is busy writing, a goroutine is
//     started as protoactor's does: a write that blocks never holds the
//     actor up. A caller's request (over stdio, with more than 64 calls
//     in flight) that finds the writer busy with anything but a wait for
//     room in the pipe is left to it instead, as a run it owes when done
//     (mailboxHome.owe): at 256 calls in flight two calls in three
//     started a goroutine before (BenchmarkCallToolEcho, goroutines/op).
//   - The function a goroutine runs is made once, not at every wake-up.
//
// Only one goroutine runs the actor at a time, as with any mailbox: the
// state flag is taken by compare-and-swap.
//
// The way back: MCPACTOR_TRANSPORT_MAILBOX=default, read once at start
// (mailboxEnv), gives stdio transports protoactor's default mailbox
// instead, and the writer is then nobody's home. The tests run a
// representative part of the stdio suite under both
// (TestStdioUnderTheOtherMailbox).
//
// What it buys over the default mailbox is measured in
// docs/benchmarks.md, "The stdio transport's mailbox".
type ownMailbox struct {
	mu         sync.Mutex
	user       queue
	system     queue
	userCount  atomic.Int32
	sysCount   atomic.Int32
	running    atomic.Bool
	suspended  atomic.Bool
	invoker    actor.MessageInvoker
	dispatcher actor.Dispatcher
	process    func() // m.processMessages, made once
	home       atomic.Pointer[mailboxHome]
	// runEnd, if set, is called as each run of the actor ends, by the
	// goroutine that ran it and while it still holds the actor (set
	// by the actor itself, from a run: the running flag orders it
	// before the runs that read it).
	runEnd func()
	// callerRuns, if set, says whether a caller whose request finds the
	// mailbox idle runs the actor for it (scheduleOwn) rather than
	// handing it to the home; nil: always. Set as the mailbox is made.
	callerRuns func() bool
}

// inlineBudget bounds the messages a reader or writer goroutine handles
// for the actor before handing the rest to a goroutine of the mailbox's own.
const inlineBudget = 64

func newOwnMailbox() actor.Mailbox {
	m := &ownMailbox{}
	m.process = func() { m.processMessages(-1) }
	return m
}

// queue is a FIFO of messages under the mailbox's mutex; its array is
// reused as it empties.
type queue struct {
	items []any
	head  int
}

func (q *queue) push(v any) { q.items = append(q.items, v) }

func (q *queue) pop() (any, bool) {
	if q.head == len(q.items) {
		return nil, false
	}
	v := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
		if cap(q.items) > 4096 {
			q.items = nil // a burst is over: let its array go
		}
	}
	return v, true
}

func (m *ownMailbox) PostUserMessage(msg any) {
	m.mu.Lock()
	m.user.push(msg)
	m.mu.Unlock()
	m.userCount.Add(1)
	switch msg.(type) {
	case *inbound, *writeDone, inboundOne:
		// A run of frames or a finished write (stdio), an HTTP answer
		// (inboundOne): from a goroutine of the transport's own, which
		// only waits for more input afterwards.
		m.schedule(true)
	case *call:
		// A caller's request that finds the mailbox idle: the caller
		// runs the actor for its own request only, which sends it
		// from this goroutine instead of waking another. Over HTTP
		// the POST comes back to the caller, which runs it (or, for a
		// caller that takes progress, goes to a goroutine waiting for
		// one); over stdio the frame is written as the run ends
		// (runEnd) when the pipe takes it at once, and the writer is
		// not woken.
		if m.callerRuns == nil || m.callerRuns() {
			m.scheduleOwn()
			return
		}
		// Many calls in flight: the writer, busy, takes the request
		// after its write (mailboxHome.owe) rather than a goroutine
		// started for it.
		if h := m.home.Load(); h != nil && !m.running.Load() && h.owe() {
			return
		}
		m.schedule(false)
	default:
		m.schedule(false)
	}
}

func (m *ownMailbox) PostSystemMessage(msg any) {
	m.mu.Lock()
	m.system.push(msg)
	m.mu.Unlock()
	m.sysCount.Add(1)
	m.schedule(false)
}

func (m *ownMailbox) RegisterHandlers(invoker actor.MessageInvoker, dispatcher actor.Dispatcher) {
	m.invoker, m.dispatcher = invoker, dispatcher
}

func (m *ownMailbox) Start() {}

// atRunEnd sets the function called as each run of the actor ends (see
// the runEnd field); the actor calls it from one of its runs.
func (m *ownMailbox) atRunEnd(f func()) { m.runEnd = f }

func (m *ownMailbox) UserMessageCount() int { return int(m.userCount.Load()) }

func (m *ownMailbox) schedule(inline bool) {
	if !m.running.CompareAndSwap(false, true) {
		return
	}
	if inline {
		m.processMessages(inlineBudget)
		return
	}
	if h := m.home.Load(); h != nil && h.claim() {
		return
	}
	go m.process()
}

// scheduleOwn runs the actor for the message just posted, if the mailbox
// was idle, and leaves what else is owed to a goroutine of the mailbox's
// own (processMessages with a budget of one).
func (m *ownMailbox) scheduleOwn() {
	if m.running.CompareAndSwap(false, true) {
		m.processMessages(1)
	}
}

// mailboxHome is a goroutine that runs its mailbox's actor when a message
// finds the mailbox idle, as long as the goroutine is idle too. The writer
// is the home of a stdio transport's mailbox (batchWriter.start): the
// frames of the requests it handles are the next thing it writes.
//
// The home's loop waits for its own work with receiveAtHome, which marks
// the home idle while it waits. A poster that finds the mailbox idle takes
// the home by compare-and-swap and sends on wake; receiveAtHome then runs
// the actor. When the home's own work arrives, receiveAtHome takes the idle
// flag back, or runs the actor first if a poster took the home already.
//
// A caller's request that finds the home busy (writing) may leave it a run
// owed instead (owe): the home runs the actor as soon as its work is
// done, and the request's frame goes in the batch after the one being
// written, which it could not have joined anyway. That is for requests
// only, while many calls are in flight (ownMailbox.PostUserMessage): the
// transport's reader still runs the actor meanwhile for the answers it
// reads, and every other message still starts a goroutine when the home
// is busy, so that a write that blocks holds up no answer, timeout or
// cancellation. Nor does the home owe runs while it waits for room in the
// pipe (block): a request is held up only by a write that does not wait,
// and its frame would have waited for that write anyway.
type mailboxHome struct {
	state atomic.Int32  // homeBusy, homeIdle, homeOwed, homeBlocked or homeGone
	wake  chan struct{} // holds the one wake-up owed, if any
	m     *ownMailbox
}

// The states of a home.
const (
	homeBusy    int32 = iota // doing its own work (or running the actor)
	homeIdle                 // waiting for its own work: a poster may claim it
	homeOwed                 // busy, and owes a run of the actor when done
	homeBlocked              // in work that may wait for long (a write): owes nothing
	homeGone                 // its goroutine has ended
)

// setHome makes a goroutine's loop the mailbox's home (see mailboxHome).
// A nil mailbox (the actor has protoactor's default one, mailboxEnv) has
// no home: the result is nil, which receiveAtHome takes as plain waiting.
func (m *ownMailbox) setHome() *mailboxHome {
	if m == nil {
		return nil
	}
	h := &mailboxHome{wake: make(chan struct{}, 1), m: m}
	m.home.Store(h)
	return h
}

// claim takes the home for a run of the actor, if it is idle.
func (h *mailboxHome) claim() bool {
	if !h.state.CompareAndSwap(homeIdle, homeBusy) {
		return false
	}
	h.wake <- struct{}{}
	return true
}

// owe leaves the busy home a run of the actor for when its work is done,
// and reports whether it did (not when the home is idle, blocked or gone).
func (h *mailboxHome) owe() bool {
	return h.state.CompareAndSwap(homeBusy, homeOwed) || h.state.Load() == homeOwed
}

// receiveAtHome returns the home's next piece of work from work (ok is
// false once work is closed), running the actor meanwhile whenever a
// poster hands it over. It gives up when timeout fires (timedOut; a nil
// timeout never does).
func receiveAtHome[T any](h *mailboxHome, work <-chan T, timeout <-chan time.Time) (v T, ok, timedOut bool) {
	if h == nil {
		select {
		case v, ok = <-work:
		case <-timeout:
			timedOut = true
		}
		return v, ok, timedOut
	}
	for {
		// From now on a poster may hand the home the actor, unless one
		// left it a run while it was busy: that comes first.
		if !h.state.CompareAndSwap(homeBusy, homeIdle) {
			h.state.Store(homeBusy)
			h.runOwed()
			continue
		}
		select {
		case <-h.wake:
			// The actor may send work here; it is the next thing
			// received.
			h.run()
		case v, ok = <-work:
			h.reclaim()
			return v, ok, false
		case <-timeout:
			h.reclaim()
			return v, false, true
		}
	}
}

// reclaim takes the idle flag back for the home's own work, running the
// actor first if a poster took the home already.
func (h *mailboxHome) reclaim() {
	if !h.state.CompareAndSwap(homeIdle, homeBusy) {
		<-h.wake
		h.run()
	}
}

// leave ends the home: a poster no longer hands it the actor, nor leaves it
// a run. The home's goroutine calls it as it ends, when it is not idle; a
// run owed by then is scheduled elsewhere (schedule).
func (h *mailboxHome) leave() {
	if h == nil {
		return
	}
	h.m.home.CompareAndSwap(h, nil)
	if h.state.Swap(homeGone) == homeOwed {
		h.m.schedule(false)
	}
}

// block tells the home's posters that its work may now wait for long (a
// write the pipe has no room for): no run is left to it until unblock,
// and one left already is scheduled elsewhere (schedule). Only the home's
// goroutine calls it, while busy; a nil home does nothing.
func (h *mailboxHome) block() {
	if h != nil && h.state.Swap(homeBlocked) == homeOwed {
		h.m.schedule(false)
	}
}

// unblock ends block.
func (h *mailboxHome) unblock() {
	if h != nil {
		h.state.Store(homeBusy)
	}
}

// runOwed runs the actor for the run a poster left the home, unless the
// actor is running already: whoever runs it takes the posted messages too.
func (h *mailboxHome) runOwed() {
	if h.m.running.CompareAndSwap(false, true) {
		h.run()
	}
}

// run handles the messages owed: at most inlineBudget of them on the home,
// the rest on a goroutine of the mailbox's own, so that the home's own
// work (a write) waits for a bounded time.
func (h *mailboxHome) run() { h.m.processMessages(inlineBudget) }

// processMessages runs the actor until its mailbox is empty or, when
// budget is not negative, budget messages have been handled: then a
// goroutine takes over the rest.
func (m *ownMailbox) processMessages(budget int) {
	for {
		empty, failed := m.run(&budget)
		if m.runEnd != nil && !failed {
			// Not after a panic: the actor's state is in doubt, and
			// it is being stopped.
			m.runEnd()
		}
		if !empty {
			// Out of budget with messages left: the mailbox stays
			// running, on its home if that is idle, else on a
			// goroutine of its own.
			if h := m.home.Load(); h != nil && h.claim() {
				return
			}
			go m.process()
			return
		}
		m.running.Store(false)
		sys, user := m.sysCount.Load(), m.userCount.Load()
		if sys == 0 && (m.suspended.Load() || user == 0) {
			return
		}
		// Something was posted after the loop ended; take it unless
		// another poster already did.
		if !m.running.CompareAndSwap(false, true) {
			return
		}
	}
}

// run handles messages until there are none it may take (it reports
// empty) or the budget is spent with some left (not empty); failed is set
// when the actor panicked.
func (m *ownMailbox) run(budget *int) (empty, failed bool) {
	var msg any
	defer func() {
		if r := recover(); r != nil {
			m.invoker.EscalateFailure(r, msg)
			empty, failed = true, true // as protoactor's: the loop ends at a panic, and is looked at again
		}
	}()
	throughput := m.dispatcher.Throughput()
	for i := 0; ; i++ {
		if i > throughput {
			i = 0
			runtime.Gosched()
		}
		if *budget == 0 {
			return m.sysCount.Load() == 0 && (m.suspended.Load() || m.userCount.Load() == 0), false
		}
		var v any
		var ok bool
		if m.sysCount.Load() > 0 {
			m.mu.Lock()
			v, ok = m.system.pop()
			m.mu.Unlock()
		}
		if ok {
			msg = v
			m.sysCount.Add(-1)
			switch v.(type) {
			case *actor.SuspendMailbox:
				m.suspended.Store(true)
			case *actor.ResumeMailbox:
				m.suspended.Store(false)
			default:
				m.invoker.InvokeSystemMessage(v)
			}
			continue
		}
		if m.suspended.Load() {
			return true, false
		}
		m.mu.Lock()
		v, ok = m.user.pop()
		m.mu.Unlock()
		if !ok {
			return true, false
		}
		msg = v
		m.userCount.Add(-1)
		if *budget > 0 {
			*budget--
		}
		m.invoker.InvokeUserMessage(v)
	}
}
