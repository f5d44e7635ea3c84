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

// TestMailboxHome: a message that finds the mailbox idle is handled on the
// home goroutine while the home is idle, and on a goroutine of the
// mailbox's own while the home is busy (as the writer is in a write that
// blocks): a busy home never holds the actor up.
func TestMailboxHome(t *testing.T) {
	sys := harness.ActorSystem(t)
	var mb *ownMailbox
	var inHome atomic.Bool
	started := make(chan struct{})
	got := make(chan bool, 8) // whether each message was handled on the home
	props := actor.PropsFromFunc(func(c actor.Context) {
		switch c.Message().(type) {
		case *actor.Started:
			close(started)
		case seq:
			got <- inHome.Load()
		}
	}, actor.WithMailbox(func() actor.Mailbox {
		mb = newOwnMailbox().(*ownMailbox)
		return mb
	}))
	pid := sys.Root.Spawn(props)
	<-started
	h := mb.setHome()

	// The home's own work, as a write is the writer's: a piece of work
	// blocks the home until unblock.
	work, blocked, unblock, stop := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			inHome.Store(true)
			_, ok := receiveAtHome(h, work)
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
		for end := time.Now().Add(harness.Bound); mb.running.Load() || !h.idle.Load(); time.Sleep(time.Millisecond) {
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
