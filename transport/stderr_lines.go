package transport

import "bytes"

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
// never block").
type lineQueue struct {
	ch    chan string
	stats *Counters
}

func newLineQueue(deliver func(string), stats *Counters) *lineQueue {
	q := &lineQueue{ch: make(chan string, stderrLineQueue), stats: stats}
	go func() {
		for line := range q.ch {
			deliver(line)
		}
	}()
	return q
}

func (q *lineQueue) push(line string) {
	select {
	case q.ch <- line:
	default:
		q.stats.drop(DroppedStderrLines)
	}
}

// close lets the callback goroutine finish the queued lines and end.
func (q *lineQueue) close() { close(q.ch) }
