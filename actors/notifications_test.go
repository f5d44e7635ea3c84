package actors_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// inbox collects the notifications a subscriber receives. While gate is
// open (not nil and not closed) the subscriber blocks on it.
type inbox struct {
	mu    sync.Mutex
	got   []actors.Notification
	gate  chan struct{}
	calls int
}

func (b *inbox) deliver(server string, n actors.Notification) {
	b.mu.Lock()
	gate := b.gate
	b.calls++
	b.mu.Unlock()
	if gate != nil {
		<-gate
	}
	b.mu.Lock()
	b.got = append(b.got, n)
	b.mu.Unlock()
}

func (b *inbox) snapshot() []actors.Notification {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]actors.Notification(nil), b.got...)
}

// seqs returns the "seq" param of each test notification received.
func seqs(t *testing.T, ns []actors.Notification) []int {
	t.Helper()
	var out []int
	for _, n := range ns {
		if n.Method != "notifications/test" {
			continue
		}
		var p struct{ Seq int }
		if err := json.Unmarshal(n.Params, &p); err != nil {
			t.Fatalf("params %s: %v", n.Params, err)
		}
		out = append(out, p.Seq)
	}
	return out
}

// notify has the server send notifications/test {seq} (the notify tool).
func (s *server) notify(seq int) {
	s.t.Helper()
	res, err := s.c.CallTool(harness.Context(s.t), "notify", map[string]any{"method": "notifications/test", "params": map[string]any{"seq": seq}})
	if err != nil || res.IsError {
		s.t.Fatalf("notify %d: %+v, %v", seq, res, err)
	}
}

func TestNotificationsArriveInOrder(t *testing.T) {
	box := &inbox{}
	s := connect(t, testserver.Options{}, actors.Env{Options: actors.Options{Handlers: actors.Handlers{Notification: box.deliver}}}, nil)
	const n = 50
	for i := range n {
		s.notify(i)
	}
	if err := s.c.SetLoggingLevel(harness.Context(t), messages.LevelDebug); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "every notification", func() bool { return len(box.snapshot()) == n+1 })
	got := box.snapshot()
	for i, seq := range seqs(t, got) {
		if seq != i {
			t.Fatalf("notification %d has seq %d: %v", i, seq, seqs(t, got))
		}
	}
	last := got[n]
	var msg messages.LoggingMessageParams
	if last.Method != messages.NotificationMessage || json.Unmarshal(last.Params, &msg) != nil || msg.Level != messages.LevelDebug {
		t.Errorf("after setLevel: %s %s", last.Method, last.Params)
	}
	if s.c.Stats().DroppedNotifications != 0 {
		t.Errorf("%d dropped", s.c.Stats().DroppedNotifications)
	}
}

func TestSlowSubscriberNeverDelaysResponses(t *testing.T) {
	box := &inbox{gate: make(chan struct{})}
	s := connect(t, testserver.Options{}, actors.Env{Options: actors.Options{Handlers: actors.Handlers{Notification: box.deliver}}}, nil)
	// The subscriber is stuck on the first notification; calls go on.
	for i := range 20 {
		s.notify(i)
		s.mustEcho(fmt.Sprint(i))
	}
	close(box.gate)
	harness.WaitFor(t, "every notification", func() bool { return len(box.snapshot()) == 20 })
	for i, seq := range seqs(t, box.snapshot()) {
		if seq != i {
			t.Fatalf("order %v", seqs(t, box.snapshot()))
		}
	}
}

// TestNotificationOverflowDropsTheOldest checks the queue's bound
// exactly: with a subscriber stuck on one notification, NotificationQueue
// more wait, the newest; every older one is dropped and counted. A
// notification reaches the queue through the client actor while the
// tools/call that made the server send it is answered straight to its
// caller, so the test waits for all of them to have reached the queue
// (the count of dropped ones tells) before letting the subscriber go:
// opened earlier, it would take in those still on their way too.
func TestNotificationOverflowDropsTheOldest(t *testing.T) {
	const n, queue = 30, 4
	box := &inbox{gate: make(chan struct{})}
	s := connect(t, testserver.Options{}, actors.Env{Options: actors.Options{NotificationQueue: queue, Handlers: actors.Handlers{Notification: box.deliver}}}, nil)
	for i := range n {
		s.notify(i)
	}
	// One is with the subscriber, queue wait, the rest were dropped.
	harness.WaitFor(t, "every notification queued or dropped", func() bool {
		return s.c.Stats().DroppedNotifications == n-1-queue
	})
	close(box.gate)
	harness.WaitFor(t, "every notification delivered or dropped", func() bool {
		return int64(len(box.snapshot()))+s.c.Stats().DroppedNotifications == n
	})
	got := seqs(t, box.snapshot())
	// The one the subscriber was stuck on, then the newest that fitted.
	if len(got) != 1+queue || got[len(got)-1] != n-1 {
		t.Fatalf("delivered %v, want the stuck one and the %d newest", got, queue)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] || i > 1 && got[i] != got[i-1]+1 {
			t.Fatalf("out of order or not the newest: %v", got)
		}
	}
	if d := s.c.Stats().DroppedNotifications; d != n-1-queue {
		t.Errorf("%d dropped, want %d", d, n-1-queue)
	}
	s.mustEcho("unharmed")
}

func TestNotificationsWithoutSubscriber(t *testing.T) {
	// With no subscriber nothing is queued, and nothing breaks.
	s := connect(t, testserver.Options{}, actors.Env{}, nil)
	for i := range 5 {
		s.notify(i)
	}
	if s.c.Stats().DroppedNotifications != 0 {
		t.Errorf("%d dropped", s.c.Stats().DroppedNotifications)
	}
}

func TestCloseWithABlockedSubscriber(t *testing.T) {
	// A subscriber that never returns holds Close only until Close's
	// context ends; it is then abandoned (counted), and no callback of
	// the client starts again.
	gate := make(chan struct{})
	defer close(gate) // let the stuck subscriber go at the end (goleak)
	box := &inbox{gate: gate}
	s := connect(t, testserver.Options{}, actors.Env{Options: actors.Options{Handlers: actors.Handlers{Notification: box.deliver}}}, nil)
	s.notify(1)
	s.notify(2) // queued behind the stuck one
	harness.WaitFor(t, "the subscriber to be stuck", func() bool {
		box.mu.Lock()
		defer box.mu.Unlock()
		return box.calls == 1
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	if err := s.c.Close(ctx); err != nil {
		t.Errorf("Close = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v with a 1 s deadline", d)
	}
	if n := s.c.Stats().AbandonedCallbacks; n != 1 {
		t.Errorf("AbandonedCallbacks = %d, want 1", n)
	}
	s.waitDone()
	gate <- struct{}{} // release the stuck call: the queued one must not follow
	time.Sleep(50 * time.Millisecond)
	box.mu.Lock()
	defer box.mu.Unlock()
	if box.calls != 1 {
		t.Errorf("the subscriber was called %d times; after Close no callback may start", box.calls)
	}
}
