package actors

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mcpactor/mcpactor/telemetry"
)

// inboundNote is a notification waiting for the subscriber, with the
// SERVER span of its receipt (op, nil when nobody records) and the context
// holding it, which Handlers.NotificationContext gets. The span ends once
// the handler has returned, or when the notification is dropped.
type inboundNote struct {
	n   Notification
	ctx context.Context
	op  *telemetry.Op
}

// errNoteDropped ends the span of a notification dropped from a full
// queue: it was received, and never handled.
var errNoteDropped = errors.New("notification dropped: subscriber too slow")

// noteQueue delivers one server's notifications to the subscriber in order,
// on a goroutine of its own, so a slow subscriber delays only later
// notifications and never a response. The client actor is its only sender.
//
// It is bounded by count and by bytes (the params of the notifications
// waiting). Overflow policy: when either bound would be passed, the oldest
// waiting notifications are dropped to make room, and counted: old
// list_changed or log messages are the least useful ones to keep, the
// newest state wins. A single notification larger than the byte bound is
// kept when it is alone (the frame cap bounds it).
//
// It is a channel that costs nothing while idle: its storage grows with
// what is waiting (a channel of 1024 would hold 48 KB per server from the
// start), and the delivering goroutine runs only while there is something
// to deliver. The mutex guards the queue alone, as a channel's lock would.
type noteQueue struct {
	max      int
	maxBytes int64
	deliver  func(string, inboundNote)
	dropped  *atomic.Int64 // the Client's counter, so that callers can read it
	server   string
	log      *slog.Logger
	done     chan struct{} // closed once closed and everything queued is delivered

	mu      sync.Mutex
	waiting []inboundNote // oldest first, from head
	head    int
	bytes   int64 // params bytes waiting
	running bool  // a delivering goroutine is on its way
	closed  bool
}

func newNoteQueue(size, maxBytes int, server string, deliver func(string, inboundNote), dropped *atomic.Int64, log *slog.Logger) *noteQueue {
	return &noteQueue{max: size, maxBytes: int64(maxBytes), deliver: deliver, dropped: dropped, server: server, log: log, done: make(chan struct{})}
}

// push never blocks. It reports false, and leaves n's span to the
// caller, when the queue is closed.
func (q *noteQueue) push(n inboundNote) bool {
	size := int64(len(n.n.Params))
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	for q.len() > 0 && (q.len() >= q.max || q.bytes+size > q.maxBytes) {
		old := q.pop()
		old.op.End(errNoteDropped, false)
		// Nothing is dropped silently: counted, and logged, thinned out
		// for a subscriber that stays slow.
		if d := q.dropped.Add(1); d <= 10 || d%1000 == 0 {
			q.log.Warn("mcp: notification dropped: subscriber too slow", "server", q.server,
				"method", old.n.Method, "dropped_total", d)
		}
	}
	q.waiting = append(q.waiting, n)
	q.bytes += size
	if !q.running {
		q.running = true
		go q.run()
	}
	return true
}

// run delivers until nothing is waiting.
func (q *noteQueue) run() {
	for {
		q.mu.Lock()
		if q.len() == 0 {
			q.running = false
			q.waiting, q.head = nil, 0
			if q.closed {
				close(q.done)
			}
			q.mu.Unlock()
			return
		}
		n := q.pop()
		q.mu.Unlock()
		q.deliver(q.server, n)
	}
}

func (q *noteQueue) len() int { return len(q.waiting) - q.head }

// pop takes the oldest waiting notification; q.mu is held.
func (q *noteQueue) pop() inboundNote {
	n := q.waiting[q.head]
	q.waiting[q.head] = inboundNote{}
	q.head++
	q.bytes -= int64(len(n.n.Params))
	if q.head > 64 && q.head*2 > len(q.waiting) {
		q.waiting = append(q.waiting[:0], q.waiting[q.head:]...)
		q.head = 0
	}
	return n
}

// close lets the delivering goroutine finish what is queued; done is
// closed when it has. Later pushes are ignored.
func (q *noteQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.closed = true
	if !q.running {
		close(q.done)
	}
}
