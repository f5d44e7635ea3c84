package transport

import (
	"bytes"
	"runtime"
	"slices"
	"strconv"
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

// TestMailboxHome: a message that finds the mailbox idle is handled on the
// home goroutine while the home is idle, and on a goroutine of the
// mailbox's own while the home is busy (as the writer is in a write that
// blocks): a busy home never holds the actor up.
func TestMailboxHome(t *testing.T) {
	p := startHomeProbe(t, nil)
	sys, pid, mb, h, inHome, got := p.sys, p.pid, p.mb, p.h, &p.inHome, p.got

	// The home's own work, as a write is the writer's: a piece of work
	// blocks the home until unblock.
	work, blocked, unblock, stop := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			inHome.Store(true)
			_, ok, _ := receiveAtHome(h, work, nil)
			inHome.Store(false)
			if !ok {
				return
			}
			blocked <- struct{}{}
			select {
			case <-unblock:
			case <-stop:
				return
			}
		}
	})
	defer wg.Wait()
	defer close(work)
	defer close(stop)

	idle := func() { // the mailbox and its home wait for messages
		t.Helper()
		for end := time.Now().Add(harness.Bound); mb.running.Load() || h.state.Load() != homeIdle; time.Sleep(time.Millisecond) {
			if time.Now().After(end) {
				t.Fatal("the mailbox or its home never became idle")
			}
		}
	}
	expect := func(n int, onHome bool) {
		t.Helper()
		sys.Root.Send(pid, seq{n: n})
		select {
		case home := <-got:
			if home != onHome {
				t.Errorf("message %d handled on the home: %v, want %v", n, home, onHome)
			}
		case <-time.After(harness.Bound):
			t.Fatalf("message %d was not handled", n)
		}
	}
	idle()
	expect(1, true)
	work <- struct{}{}
	<-blocked
	expect(2, false)
	close(unblock)
	idle()
	expect(3, true)
}

// homeProbe is an actor with our mailbox and a home, whose goroutine the
// test drives: the actor reports on got, for each request (*call) and
// each seq it handles, whether it ran on the home (inHome).
type homeProbe struct {
	sys    *actor.ActorSystem
	pid    *actor.PID
	mb     *ownMailbox
	h      *mailboxHome
	inHome atomic.Bool
	got    chan bool
}

// startHomeProbe starts a homeProbe whose mailbox has callerRuns.
func startHomeProbe(t *testing.T, callerRuns func() bool) *homeProbe {
	p := &homeProbe{sys: harness.ActorSystem(t), got: make(chan bool, 8)}
	started := make(chan struct{})
	props := actor.PropsFromFunc(func(c actor.Context) {
		switch c.Message().(type) {
		case *actor.Started:
			close(started)
		case *call, seq:
			p.got <- p.inHome.Load()
		}
	}, actor.WithMailbox(func() actor.Mailbox {
		p.mb = newOwnMailbox().(*ownMailbox)
		p.mb.callerRuns = callerRuns
		return p.mb
	}))
	p.pid = p.sys.Root.Spawn(props)
	<-started
	p.h = p.mb.setHome()
	return p
}

// TestMailboxHomeOwesRequests: with many calls in flight, a request that
// finds the mailbox idle and its home busy is handled on the home when
// the home's work is done, not on a goroutine started for it; while the
// home's work may wait for long (block, as a write that waits for room
// in the pipe), a request and a run already owed go to a goroutine of
// the mailbox's own, so that nothing waits for that work. Other messages
// never wait for the home.
func TestMailboxHomeOwesRequests(t *testing.T) {
	// As above gatherAbove calls in flight: callers do not run the actor.
	p := startHomeProbe(t, func() bool { return false })
	sys, pid, h, inHome, got := p.sys, p.pid, p.h, &p.inHome, p.got

	// The home's work, until release: blocked (block) from its start,
	// or from a second step (blockLater: busy, then blocked after a
	// first release).
	type job struct{ block, blockLater bool }
	work, busy, release := make(chan job), make(chan struct{}), make(chan struct{})
	stop := make(chan struct{}) // a failed test's end: the home gives up its work
	wait := func(c chan struct{}, send bool) bool {
		if send {
			select {
			case c <- struct{}{}:
				return true
			case <-stop:
				return false
			}
		}
		select {
		case <-c:
			return true
		case <-stop:
			return false
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			inHome.Store(true)
			j, ok, _ := receiveAtHome(h, work, nil)
			inHome.Store(false)
			if !ok {
				h.leave()
				return
			}
			if j.block {
				h.block()
			}
			if !wait(busy, true) || !wait(release, false) {
				return
			}
			if j.blockLater {
				h.block()
				if !wait(release, false) {
					return
				}
			}
			if j.block || j.blockLater {
				h.unblock()
			}
		}
	})
	defer wg.Wait()
	defer close(work)
	defer close(stop)

	handled := func(what string, onHome bool) {
		t.Helper()
		select {
		case home := <-got:
			if home != onHome {
				t.Errorf("%s handled on the home: %v, want %v", what, home, onHome)
			}
		case <-time.After(harness.Bound):
			t.Fatalf("%s was not handled", what)
		}
	}
	// A goroutine that ran the actor for the last message may not have
	// let go of it yet; a message posted meanwhile is that run's, which
	// is right, but not what the next step looks at.
	settled := func() {
		t.Helper()
		harness.WaitFor(t, "the mailbox to be idle", func() bool { return !p.mb.running.Load() })
	}
	notYet := func(what string) {
		t.Helper()
		select {
		case <-got:
			t.Fatalf("%s was handled while the home was busy", what)
		case <-time.After(50 * time.Millisecond):
		}
	}

	// Busy, not blocked: the request waits for the home; another
	// message does not.
	work <- job{}
	<-busy
	settled()
	sys.Root.Send(pid, &call{})
	notYet("a request")
	sys.Root.Send(pid, seq{n: 1})
	handled("a message other than a request", false)
	// The goroutine that ran the actor for it took the request too.
	handled("the request", false)
	settled()
	sys.Root.Send(pid, &call{})
	notYet("a second request")
	release <- struct{}{}
	handled("the second request", true)

	// Blocked: the request goes to a goroutine of the mailbox's own.
	work <- job{block: true}
	<-busy
	sys.Root.Send(pid, &call{})
	handled("a request while the home is blocked", false)
	release <- struct{}{}

	// A run owed when the home blocks starts at once elsewhere.
	work <- job{blockLater: true}
	<-busy
	settled()
	sys.Root.Send(pid, &call{})
	notYet("a third request")
	release <- struct{}{} // the home blocks
	handled("the third request", false)
	release <- struct{}{}
}

// fakeInvoker stands for the actor behind a mailbox under test: it records
// what it is handed, in order, with the goroutine that handled each user
// message, and calls onUser (if set) before recording a user message.
type fakeInvoker struct {
	mu        sync.Mutex
	user      []any
	gids      []uint64 // the goroutine of each user message
	system    []any
	all       []any // system and user messages, in the order handled
	escalated []any // the messages whose handling panicked
	reasons   []any
	onUser    func(any)
	inside    atomic.Bool
	overlaps  atomic.Int32
}

func (f *fakeInvoker) InvokeSystemMessage(m any) {
	f.mu.Lock()
	f.system = append(f.system, m)
	f.all = append(f.all, m)
	f.mu.Unlock()
}

func (f *fakeInvoker) InvokeUserMessage(m any) {
	if !f.inside.CompareAndSwap(false, true) {
		f.overlaps.Add(1)
	}
	defer f.inside.Store(false)
	if f.onUser != nil {
		f.onUser(m)
	}
	gid := goroutineID()
	f.mu.Lock()
	f.user = append(f.user, m)
	f.gids = append(f.gids, gid)
	f.all = append(f.all, m)
	f.mu.Unlock()
}

func (f *fakeInvoker) EscalateFailure(reason, m any) {
	f.mu.Lock()
	f.reasons = append(f.reasons, reason)
	f.escalated = append(f.escalated, m)
	f.mu.Unlock()
}

// snapshot returns copies of what was handed over so far.
func (f *fakeInvoker) snapshot() (user []any, gids []uint64, system []any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]any(nil), f.user...), append([]uint64(nil), f.gids...), append([]any(nil), f.system...)
}

// goroutineID is the calling goroutine's number, from its stack's first
// line ("goroutine 17 [running]:").
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, _ = bytes.CutPrefix(b, []byte("goroutine "))
	b, _, _ = bytes.Cut(b, []byte(" "))
	id, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		panic("unreadable goroutine header: " + string(buf[:]))
	}
	return id
}

// newTestMailbox makes one of our mailboxes with f as its actor.
func newTestMailbox(f *fakeInvoker) *ownMailbox {
	m := newOwnMailbox().(*ownMailbox)
	m.RegisterHandlers(f, actor.NewDefaultDispatcher(300))
	m.Start()
	return m
}

// quiesce waits until no goroutine runs m's actor. Every post that finds
// the mailbox idle marks it running before it returns, and the mark is
// cleared only once the run it started has nothing more it may take, so
// after the posts have returned, "not running" means everything they
// allowed has been handled.
func quiesce(t *testing.T, m *ownMailbox) {
	t.Helper()
	harness.WaitFor(t, "the mailbox to go idle", func() bool { return !m.running.Load() })
}

// sysMark is a system message of the test's own, which the mailbox hands
// to the actor as it does protoactor's (Stop, Watch, ...).
type sysMark struct{ n int }

// A suspended mailbox holds user messages and still delivers system ones;
// resumed, it delivers what it held, in order. protoactor suspends an
// actor's mailbox while its supervisor decides about a failure, and
// resumes it on the Resume and Restart directives.
func TestOwnMailboxSuspendResume(t *testing.T) {
	f := &fakeInvoker{}
	m := newTestMailbox(f)
	m.PostSystemMessage(&actor.SuspendMailbox{})
	for n := 1; n <= 3; n++ {
		m.PostUserMessage(seq{n: n})
	}
	m.PostSystemMessage(sysMark{1})
	quiesce(t, m)
	user, _, system := f.snapshot()
	if len(user) != 0 {
		t.Fatalf("a suspended mailbox delivered %v", user)
	}
	if len(system) != 1 || system[0] != (sysMark{1}) {
		t.Fatalf("a suspended mailbox delivered the system messages %v, want [sysMark{1}]", system)
	}
	if n := m.UserMessageCount(); n != 3 {
		t.Fatalf("%d user messages held, want 3", n)
	}

	m.PostSystemMessage(&actor.ResumeMailbox{})
	quiesce(t, m)
	user, _, system = f.snapshot()
	if want := []any{seq{n: 1}, seq{n: 2}, seq{n: 3}}; !slices.Equal(user, want) {
		t.Errorf("resumed, the mailbox delivered %v, want %v", user, want)
	}
	if len(system) != 1 {
		t.Errorf("the actor was handed %v: suspension and resumption are the mailbox's own", system)
	}
	if n := m.UserMessageCount(); n != 0 {
		t.Errorf("%d user messages left after resumption", n)
	}
}

// System messages overtake user messages waiting in the mailbox: a Stop or
// a supervisor's directive is not queued behind a backlog of requests.
func TestOwnMailboxSystemMessagesFirst(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	f := &fakeInvoker{}
	f.onUser = func(msg any) {
		if msg == (seq{n: 1}) {
			close(entered)
			<-release
		}
	}
	m := newTestMailbox(f)
	m.PostUserMessage(seq{n: 1}) // runs on a goroutine of the mailbox's own
	<-entered
	// The actor is busy with message 1: these wait.
	m.PostUserMessage(seq{n: 2})
	m.PostUserMessage(seq{n: 3})
	m.PostSystemMessage(sysMark{1})
	m.PostSystemMessage(sysMark{2})
	close(release)
	quiesce(t, m)
	// Both system messages were handled before message 2: the run loop
	// looks at the system queue before each user message.
	f.mu.Lock()
	all := append([]any(nil), f.all...)
	f.mu.Unlock()
	if want := []any{seq{n: 1}, sysMark{1}, sysMark{2}, seq{n: 2}, seq{n: 3}}; !slices.Equal(all, want) {
		t.Errorf("handled %v, want %v", all, want)
	}
}

// A panic while a poster's goroutine runs the actor (the reader handing
// over a run of frames) is the actor's failure, not the poster's: the
// mailbox escalates it with the message that caused it, as protoactor's
// does, the poster carries on, and later messages are still delivered.
// What the actor's supervisor then does is TestReaderPathPanicStopsTheTransport's.
func TestOwnMailboxPanicOnTheInlinePath(t *testing.T) {
	f := &fakeInvoker{}
	f.onUser = func(msg any) {
		if in, ok := msg.(*inbound); ok && in.bytes == 3 {
			panic("boom")
		}
	}
	m := newTestMailbox(f)
	poster := goroutineID()
	for n := 1; n <= 5; n++ {
		m.PostUserMessage(&inbound{bytes: int64(n)}) // a panic here would fail the test
	}
	quiesce(t, m)
	f.mu.Lock()
	reasons, escalated := f.reasons, f.escalated
	f.mu.Unlock()
	if len(reasons) != 1 || reasons[0] != "boom" {
		t.Fatalf("escalated %v, want the one panic", reasons)
	}
	if in, ok := escalated[0].(*inbound); !ok || in.bytes != 3 {
		t.Errorf("escalated with %v, want the message that panicked", escalated[0])
	}
	user, gids, _ := f.snapshot()
	var got []int64
	for _, msg := range user {
		got = append(got, msg.(*inbound).bytes)
	}
	if want := []int64{1, 2, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("delivered %v, want %v", got, want)
	}
	for i, g := range gids {
		if g != poster {
			t.Errorf("message %d handled on goroutine %d, not inline on the poster's (%d)", got[i], g, poster)
		}
	}
}

// An inline run that reaches its budget hands the actor over to a
// goroutine of the mailbox's own while messages keep arriving from the
// goroutine that ran it and from others: nothing is lost, duplicated or
// reordered, the actor never runs twice at once, and the poster is let go
// after inlineBudget messages. Run it under -race: the hand-over is where
// a missing happens-before edge would show.
func TestOwnMailboxHandsOverInlineRuns(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	f := &fakeInvoker{}
	f.onUser = func(msg any) {
		if in, ok := msg.(*inbound); ok && in.bytes == 1 {
			close(entered)
			<-release
		}
	}
	m := newTestMailbox(f)
	const fromReader, fromCallers, queued = 3000, 3000, 2 * inlineBudget
	var reader uint64
	var wg sync.WaitGroup
	wg.Go(func() { // the reader: its runs of frames are handled inline
		reader = goroutineID()
		for n := 1; n <= fromReader; n++ {
			m.PostUserMessage(&inbound{bytes: int64(n)})
		}
	})
	<-entered
	// The reader's goroutine is inside the actor, in run 1: callers'
	// requests queue behind it.
	for n := 1; n <= queued; n++ {
		m.PostUserMessage(seq{n: n})
	}
	close(release)
	// More keep coming while the reader's goroutine works through its
	// budget, hands over, and posts its next runs.
	wg.Go(func() {
		for n := queued + 1; n <= fromCallers; n++ {
			m.PostUserMessage(seq{n: n})
		}
	})
	wg.Go(func() {
		for n := 1; n <= fromCallers; n++ {
			m.PostUserMessage(seq{from: 1, n: n})
		}
	})
	wg.Wait()
	quiesce(t, m)

	user, gids, _ := f.snapshot()
	if len(user) != fromReader+2*fromCallers {
		t.Fatalf("%d messages delivered, want %d", len(user), fromReader+2*fromCallers)
	}
	var lastRun int64
	last := [2]int{}
	for _, msg := range user {
		switch v := msg.(type) {
		case *inbound:
			if v.bytes != lastRun+1 {
				t.Fatalf("run %d after run %d", v.bytes, lastRun)
			}
			lastRun = v.bytes
		case seq:
			if v.n != last[v.from]+1 {
				t.Fatalf("caller %d: message %d after %d", v.from, v.n, last[v.from])
			}
			last[v.from] = v.n
		}
	}
	if n := f.overlaps.Load(); n != 0 {
		t.Errorf("the actor ran %d times while it was already running", n)
	}
	// Run 1 and the first queued requests were handled inline, on the
	// reader's goroutine, up to the budget; the next on another one.
	for i := range inlineBudget {
		if gids[i] != reader {
			t.Fatalf("message %d of the first inline run (%v) was handled on goroutine %d, not the reader's %d", i, user[i], gids[i], reader)
		}
	}
	if gids[inlineBudget] == reader {
		t.Errorf("the reader's goroutine handled %v past its budget of %d: it was not let go", user[inlineBudget], inlineBudget)
	}
}

// Through protoactor's own machinery: a panic suspends the actor's mailbox
// while its supervisor decides, the Resume directive resumes it, and the
// messages that arrived meanwhile are delivered, in order, to the same
// actor.
func TestOwnMailboxResumedBySupervisor(t *testing.T) {
	sys := harness.ActorSystem(t)
	resume := actor.NewOneForOneStrategy(10, time.Minute, func(any) actor.Directive { return actor.ResumeDirective })
	got := make(chan int, 64)
	props := actor.PropsFromFunc(func(c actor.Context) {
		if s, ok := c.Message().(seq); ok {
			if s.n == 5 {
				panic("five")
			}
			got <- s.n
		}
	}, actor.WithMailbox(newOwnMailbox), actor.WithGuardian(resume))
	pid := sys.Root.Spawn(props)
	defer sys.Root.Stop(pid)
	for n := 1; n <= 20; n++ {
		sys.Root.Send(pid, seq{n: n})
	}
	for want := 1; want <= 20; want++ {
		if want == 5 {
			continue
		}
		select {
		case n := <-got:
			if n != want {
				t.Fatalf("got message %d, want %d", n, want)
			}
		case <-time.After(harness.Bound):
			t.Fatalf("message %d never came: the mailbox was not resumed", want)
		}
	}
}
