package transport

import (
	"bytes"
	"sync"
)

// maxStderrLine caps one line handed to StderrLine; longer lines are cut.
const maxStderrLine = 4 << 10

// lineSplitter turns stderr chunks into lines for a line callback without
// letting an endless line grow memory.
type lineSplitter struct {
	partial []byte
	cut     bool // the current line already overflowed
}

func (s *lineSplitter) feed(b []byte, emit func(string)) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			s.add(b)
			return
		}
		s.add(b[:i])
		s.flush(emit)
		b = b[i+1:]
	}
}

func (s *lineSplitter) add(b []byte) {
	if room := maxStderrLine - len(s.partial); len(b) > room {
		b, s.cut = b[:max(room, 0)], true
	}
	s.partial = append(s.partial, b...)
}

func (s *lineSplitter) flush(emit func(string)) {
	if len(s.partial) > 0 || s.cut {
		line := string(bytes.TrimRight(s.partial, "\r"))
		if s.cut {
			line += " [truncated]"
		}
		emit(line)
	}
	s.partial, s.cut = s.partial[:0], false
}

// stderrLineQueue bounds the stderr lines waiting for a StderrLine callback.
const stderrLineQueue = 1024

// lineQueue hands stderr lines to the StderrLine callback on a goroutine of
// its own. The drain goroutine never waits for the callback: a slow one
// loses lines (counted in Stats.DroppedStderrLines) instead of letting the
// pipe fill and block the server ("a chatty server can
// never block"). The lines it holds are counted in its Counters'
// backlog until handed on, so that the client's Close can let them reach
// the callback before it returns (Counters.StderrIdle): the transport
// may have ended, its lines not yet all delivered.
type lineQueue struct {
	ch    chan string
	stats *Counters
}

func newLineQueue(deliver func(string), stats *Counters) *lineQueue {
	q := &lineQueue{ch: make(chan string, stderrLineQueue), stats: stats}
	go func() {
		for line := range q.ch {
			deliver(line)
			q.stats.stderr.done()
		}
	}()
	return q
}

func (q *lineQueue) push(line string) {
	q.stats.stderr.add()
	select {
	case q.ch <- line:
	default:
		q.stats.stderr.done()
		q.stats.drop(DroppedStderrLines)
	}
}

// close lets the callback goroutine finish the queued lines and end.
func (q *lineQueue) close() { close(q.ch) }

// stderrBacklog counts the stderr lines queued for the StderrLine callback
// and not yet handed to it, over all the transports of one Counters (one
// client).
type stderrBacklog struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0; nil while n is 0
}

func (b *stderrBacklog) add() {
	b.mu.Lock()
	if b.n == 0 {
		b.idle = make(chan struct{})
	}
	b.n++
	b.mu.Unlock()
}

func (b *stderrBacklog) done() {
	b.mu.Lock()
	if b.n--; b.n == 0 {
		close(b.idle)
		b.idle = nil
	}
	b.mu.Unlock()
}

// closedChan is a channel closed from the start.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// StderrIdle returns a channel closed once no stderr line of these
// counters' transports waits for the StderrLine callback: the lines
// already read have all been handed to it (or dropped, and counted). A
// transport reads all of its stderr before it ends, so once it has ended
// this tells when its last line has been delivered.
func (c *Counters) StderrIdle() <-chan struct{} {
	c.stderr.mu.Lock()
	defer c.stderr.mu.Unlock()
	if c.stderr.n == 0 {
		return closedChan
	}
	return c.stderr.idle
}

// DropStderrLine counts one stderr line its owner could not deliver (its
// callbacks had been shut by a close): in Stats.DroppedStderrLines, as the
// lines a full queue drops.
func (c *Counters) DropStderrLine() { c.drop(DroppedStderrLines) }
