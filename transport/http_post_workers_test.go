package transport

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// postWorkers counts the goroutines waiting for or running a POST.
func postWorkers(t *testing.T) int {
	t.Helper()
	return goroutinesIn(t, "transport.(*postSink).worker(")
}

// Calls one after another share one goroutine for their POSTs: a goroutine
// made per POST would grow its stack anew each time.
func TestPostGoroutinesAreReused(t *testing.T) {
	idleFor(t, harness.Bound) // however slow the machine between two calls
	peer := startHTTPPeer(t, testserver.Options{})
	c := dialHTTP(t, peer.url, clientOpts{})
	c.initialize(messages.Version20251125)
	for i := range 20 {
		c.mustEcho("one after another " + string(rune('a'+i)))
	}
	if n := postWorkers(t); n < 1 || n > 2 {
		t.Errorf("%d POST goroutines after 20 calls one after another, want 1 or 2 (initialize's may be apart)", n)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	if n := postWorkers(t); n != 0 {
		t.Errorf("%d POST goroutines after Close, want none", n)
	}
}

// Calls at once whose callers take progress get a goroutine each for
// their POSTs, never one behind another's POST; the goroutines are no more
// than the POSTs that ran at once, and each ends after postIdle without
// work.
func TestPostGoroutinesFollowTheLoad(t *testing.T) {
	idleFor(t, 300*time.Millisecond)
	peer := startHTTPPeer(t, testserver.Options{})
	c := dialHTTP(t, peer.url, clientOpts{})
	c.initialize(messages.Version20251125)
	const calls = 8
	ctx := harness.Context(t)
	// Each sleeps long enough for all to be running at once, however
	// slow the machine: the goroutines are counted while they run, when
	// none can have ended idle.
	params := json.RawMessage(`{"name":"sleep","arguments":{"ms":1500}}`)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			// A caller that takes progress waits on more than the
			// answer: its POST goes to a goroutine of the sink's.
			token, _ := messages.ProgressTokenKey(int64(i + 1))
			opts := RequestOptions{ProgressToken: token, OnProgress: func(json.RawMessage) {}}
			if _, err := c.conn.Call(ctx, "tools/call", params, opts); err != nil {
				t.Errorf("sleep: %v", err)
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	most := mostUntil(done, 10*time.Millisecond, func() int { return postWorkers(t) })
	if most < calls || most > calls+2 {
		t.Errorf("at most %d POST goroutines for %d calls at once, want %d to %d", most, calls, calls, calls+2)
	}
	deadline := time.Now().Add(harness.Bound)
	for postWorkers(t) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d POST goroutines still waiting %v after the calls, want none after %v idle", postWorkers(t), harness.Bound, postIdle)
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.mustEcho("after the idle ones ended")
}

// idleFor sets postIdle for the test, before it starts a transport; it is
// put back after the transport's Cleanup (registered later, run earlier)
// has ended its goroutines.
func idleFor(t *testing.T, d time.Duration) {
	was := postIdle
	t.Cleanup(func() { postIdle = was })
	postIdle = d
}

// A caller that waits on nothing but the answer runs its request's POST
// on its own goroutine: calls at once make no goroutine of the sink's,
// and each POST runs in its caller's Conn.Await.
func TestCallersRunTheirOwnPOSTs(t *testing.T) {
	idleFor(t, 50*time.Millisecond)
	peer := startHTTPPeer(t, testserver.Options{})
	c := dialHTTP(t, peer.url, clientOpts{})
	c.initialize(messages.Version20251125)
	// notifications/initialized went on a goroutine of the sink's; it
	// ends once idle.
	harness.WaitFor(t, "the goroutine of notifications/initialized to end", func() bool { return postWorkers(t) == 0 })
	const calls = 8
	ctx := harness.Context(t)
	params := json.RawMessage(`{"name":"sleep","arguments":{"ms":1500}}`)
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			if _, err := c.conn.Call(ctx, "tools/call", params, RequestOptions{}); err != nil {
				t.Errorf("sleep: %v", err)
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	inCallers := mostUntil(done, 10*time.Millisecond, func() int { return goroutinesIn(t, "transport.runPost(") })
	if inCallers != calls {
		t.Errorf("at most %d POSTs running in their callers for %d calls at once, want %d", inCallers, calls, calls)
	}
	if n := postWorkers(t); n != 0 {
		t.Errorf("%d POST goroutines after %d calls whose callers ran their POSTs, want none", n, calls)
	}
}
