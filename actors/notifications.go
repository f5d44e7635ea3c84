package actors

import (
	"log/slog"
	"sync/atomic"
)

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
type noteQueue struct {
	ch       chan Notification
	bytes    atomic.Int64 // params bytes waiting in ch
	maxBytes int64
	dropped  *atomic.Int64 // the Client's counter, so that callers can read it
	server   string
	log      *slog.Logger
	done     chan struct{}
}

func newNoteQueue(size, maxBytes int, server string, deliver func(string, Notification), dropped *atomic.Int64, log *slog.Logger) *noteQueue {
	q := &noteQueue{ch: make(chan Notification, size), maxBytes: int64(maxBytes), dropped: dropped, server: server, log: log, done: make(chan struct{})}
	go func() {
		defer close(q.done)
		for n := range q.ch {
			q.bytes.Add(-int64(len(n.Params)))
			deliver(server, n)
		}
	}()
	return q
}

// push never blocks.
func (q *noteQueue) push(n Notification) {
	size := int64(len(n.Params))
	for len(q.ch) == cap(q.ch) || (len(q.ch) > 0 && q.bytes.Load()+size > q.maxBytes) {
		select {
		case old := <-q.ch:
			q.bytes.Add(-int64(len(old.Params)))
			// Nothing is dropped silently: counted, and logged,
			// thinned out for a subscriber that stays slow.
			if d := q.dropped.Add(1); d <= 10 || d%1000 == 0 {
				q.log.Warn("mcp: notification dropped: subscriber too slow", "server", q.server,
					"method", old.Method, "dropped_total", d)
			}
		default:
			// The subscriber has just taken them.
		}
	}
	q.bytes.Add(size)
	q.ch <- n // only the actor sends, and there is room
}

// close lets the dispatcher finish what is queued and end.
func (q *noteQueue) close() { close(q.ch) }
