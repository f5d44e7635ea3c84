package supervisor_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/proctest"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/toolcache"
)

// A list (tools, prompts, resources) of a server replaced while it was in
// flight is the old server's: it must not reach the new member of the
// same name (whose catalogs were not being listed, and whose client does
// not exist yet). The manager goes on and lists the new server.
func TestManagerIgnoresTheListsOfAReplacedServer(t *testing.T) {
	for _, kind := range []string{"tools", "prompts", "resources"} {
		t.Run(kind, func(t *testing.T) {
			gate := newListGate(kind) // the old server's list: held until it is replaced
			approve := make(chan struct{})
			var approveOnce sync.Once
			approveNew := func() { approveOnce.Do(func() { close(approve) }) }
			defer gate.open()
			defer approveNew()
			opts := supervisor.ManagerOptions{
				Cache: &toolcache.Cache{Dir: t.TempDir()},
				// The new server waits for approval: it has no client
				// when the old list arrives.
				Approve: func(*supervisor.Server) bool { <-approve; return true },
			}
			m := manage(t, supervisor.WithListedHook(opts, gate.hook))
			ctx := harness.Context(t)
			if err := m.Add(ctx, testServer(t, "s", testserver.Options{}, t.Name()+"-old")); err != nil {
				t.Fatal(err)
			}
			select {
			case <-gate.entered:
			case <-ctx.Done():
				t.Fatalf("no %s list of the old server", kind)
			}
			next := testServer(t, "s", testserver.Options{}, t.Name()+"-new")
			next.NeedsApproval = true
			if err := m.Add(ctx, next); err != nil {
				t.Fatal(err)
			}
			gate.open()
			// Let the old list reach the actor before the new server is
			// approved (the test holds either way; without the wait, a
			// regression could go unseen).
			time.Sleep(100 * time.Millisecond)
			if st := status(m, "s"); st.State != supervisor.StateConnecting || st.Tools != 0 || len(m.Prompts()) != 0 || len(m.Resources()) != 0 {
				t.Errorf("the new server, waiting for approval, has the old one's lists: %+v, %d prompts, %d resources",
					st, len(m.Prompts()), len(m.Resources()))
			}
			approveNew()
			harness.WaitFor(t, "the new server up, with its lists", func() bool {
				st := status(m, "s")
				return st.State == supervisor.StateReady && st.Tools > 0 && len(m.Prompts()) == 2 && len(m.Resources()) > 0
			})
			echo(t, m, "mcp__s__echo", "the new one")
		})
	}
}

// A server removed during its handshake gives its handshake slot back:
// with MaxConnecting 1, a server added after it comes up.
func TestManagerRemoveMidHandshakeFreesTheSlot(t *testing.T) {
	m := manage(t, supervisor.ManagerOptions{MaxConnecting: 1})
	ctx := harness.Context(t)
	if err := m.Add(ctx, testServer(t, "hang", testserver.Options{SlowInitialize: time.Minute}, t.Name()+"-hang")); err != nil {
		t.Fatal(err)
	}
	pid := proctest.WaitChild(t, markVar+"="+t.Name()+"-hang")
	if err := m.Remove(ctx, "hang"); err != nil {
		t.Fatal(err)
	}
	proctest.WaitGone(t, pid)
	if err := m.Add(ctx, testServer(t, "next", testserver.Options{}, t.Name()+"-next")); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the next server up", func() bool {
		st := status(m, "next")
		return st.State == supervisor.StateReady && st.Tools > 0
	})
	echo(t, m, "mcp__next__echo", "a slot was free")
}

// A server removed while its !command values run gives its slot back
// once: the news of its cancelled start, which comes after, does not free
// it a second time (MaxConnecting 1 would then let two handshakes run).
func TestManagerRemoveDuringResolveFreesTheSlotOnce(t *testing.T) {
	srv, pidFile := sleepingCommandServer(t)
	m := manage(t, supervisor.ManagerOptions{MaxConnecting: 1})
	ctx := harness.Context(t)
	if err := m.Add(ctx, srv); err != nil {
		t.Fatal(err)
	}
	pid := waitCommandPID(t, pidFile)
	if err := m.Remove(ctx, "secret"); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the command gone", func() bool { gone, _ := proctest.Gone(pid); return gone })
	time.Sleep(200 * time.Millisecond) // for the cancelled start's news to reach the actor

	if err := m.Add(ctx, testServer(t, "hang", testserver.Options{SlowInitialize: time.Minute}, t.Name()+"-hang")); err != nil {
		t.Fatal(err)
	}
	proctest.WaitChild(t, markVar+"="+t.Name()+"-hang")
	if err := m.Add(ctx, testServer(t, "next", testserver.Options{}, t.Name()+"-next")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, started := m.Client("next"); started {
		t.Fatal("a second handshake started with MaxConnecting 1")
	}
	if err := m.Remove(ctx, "hang"); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the next server up", func() bool {
		st := status(m, "next")
		return st.State == supervisor.StateReady && st.Tools > 0
	})
}

// A Close whose context ends before the manager has stopped still lets
// the OnEvent goroutine end once it has: the actor's stop closes the
// event queue.
func TestManagerEventsEndWhenCloseGivesUp(t *testing.T) {
	m := manage(t, supervisor.ManagerOptions{
		Servers: []*supervisor.Server{testServer(t, "alpha", testserver.Options{}, t.Name())},
		OnEvent: func(supervisor.Event) {},
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := m.Close(ctx) // asks the actor to stop, but does not wait for it
	t.Logf("Close with an ended context: %v", err)
	select {
	case <-supervisor.EventsDone(m):
	case <-time.After(5 * time.Second):
		t.Fatal("the OnEvent goroutine outlived the manager")
	}
}
