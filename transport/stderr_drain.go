package transport

import (
	"sync"

	"github.com/asynkron/protoactor-go/actor"
)

// stderrDrain copies a server's stderr into its ring until EOF, so that a
// chatty server never blocks on a full pipe, hands each line to
// StderrLine if one is set, and the tail to the actor at the end. On Linux
// one goroutine drains every server's stderr (stderr_watch_linux.go);
// elsewhere, or if that watch cannot take the pipe, run drains it on a
// goroutine of its own.
type stderrDrain struct {
	p     *process
	ring  *stderrRing
	lines lineSplitter
	q     *lineQueue // nil without StderrLine
	root  *actor.RootContext
	self  *actor.PID
	fd    int // the pipe's descriptor, while the shared watch has it
}

func newStderrDrain(p *process, cfg *StdioConfig, root *actor.RootContext, self *actor.PID) *stderrDrain {
	d := &stderrDrain{p: p, ring: newStderrRing(cfg.StderrLimit), root: root, self: self, fd: -1}
	if cfg.StderrLine != nil {
		d.q = newLineQueue(cfg.StderrLine, p.stats)
	}
	return d
}

// take keeps what one read gave.
func (d *stderrDrain) take(b []byte) {
	d.ring.Write(b)
	if d.q != nil {
		d.lines.feed(b, d.q.push)
	}
}

// finish reports the end of stderr to the actor, with its tail, once the
// pipe is closed.
func (d *stderrDrain) finish() {
	if d.q != nil {
		d.lines.flush(d.q.push)
		d.q.close()
	}
	d.root.Send(d.self, stderrDone{tail: d.ring.excerpt(stderrTailBytes)})
	d.p.ended()
}

// run drains stderr on the calling goroutine until EOF, reading into a
// pooled buffer that it gives back while the server is quiet
// (idle_reads.go).
func (d *stderrDrain) run() {
	defer d.finish()
	defer d.p.stderr.Close()
	src := newIdleSource(d.p.stderr)
	var buf *[stderrReadBuffer]byte
	defer func() {
		if buf != nil {
			stderrBuffers.Put(buf)
		}
	}()
	resting := make([]byte, restReadBuffer)
	for {
		b := resting
		if src.armed || src.dl == nil {
			if buf == nil {
				buf = stderrBuffers.Get().(*[stderrReadBuffer]byte)
			}
			b = buf[:]
		}
		n, err := src.Read(b)
		if n > 0 {
			d.take(b[:n])
		}
		switch {
		case quiet(err):
			stderrBuffers.Put(buf)
			buf = nil
			src.rest()
		case err != nil:
			return
		case !src.armed:
			src.wake() // the server spoke after a quiet spell
		}
	}
}

// stderrReadBuffer is what one read of stderr takes: servers write it a
// line at a time.
const stderrReadBuffer = 2 << 10

// stderrBuffers lends the drains their buffers.
var stderrBuffers = sync.Pool{New: func() any { return new([stderrReadBuffer]byte) }}
