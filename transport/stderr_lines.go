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
