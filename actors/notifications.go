package actors

import (
	"log/slog"
	"sync/atomic"
)

// noteQueue delivers one server's notifications to the subscriber in order,
// on a goroutine of its own, so a slow subscriber delays only later
// notifications and never a response. The client actor is its only sender.
//
// Overflow policy: when the queue is full the oldest waiting notification is
// dropped to make room, and counted. Old list_changed or log messages are
// the least useful ones to keep; the newest state wins.
type noteQueue struct {
	ch      chan Notification
	dropped *atomic.Int64 // the Client's counter, so that callers can read it
	server  string
	log     *slog.Logger
	done    chan struct{}
}

func newNoteQueue(size int, server string, deliver func(string, Notification), dropped *atomic.Int64, log *slog.Logger) *noteQueue {
	q := &noteQueue{ch: make(chan Notification, size), dropped: dropped, server: server, log: log, done: make(chan struct{})}
	go func() {
		defer close(q.done)
		for n := range q.ch {
			deliver(server, n)
		}
	}()
	return q
}

// push never blocks.
func (q *noteQueue) push(n Notification) {
	for {
		select {
		case q.ch <- n:
			return
		default:
		}
		select {
		case old := <-q.ch:
			// Nothing is dropped silently (behaviour.md §7): counted,
			// and logged, thinned out for a subscriber that stays slow.
			if n := q.dropped.Add(1); n <= 10 || n%1000 == 0 {
				q.log.Warn("mcp: notification dropped: subscriber too slow", "server", q.server,
					"method", old.Method, "dropped_total", n)
			}
		default:
		}
	}
}

// close lets the dispatcher finish what is queued and end.
func (q *noteQueue) close() { close(q.ch) }
