package transport

import (
	"os"

	"github.com/asynkron/protoactor-go/actor"
)

// batchWriter is the write side of a stream transport. The actor appends
// frames to the current batch; one goroutine writes a batch at a time. While
// a write is in progress, new frames accumulate, so a burst leaves in one
// write (behaviour.md §4, "Writes ... coalesced"). Two buffers take turns,
// so the steady state allocates nothing. Only the actor calls its methods;
// the goroutine sees a batch only between the hand-off and writeDone.
type batchWriter struct {
	jobs  chan writeBatch
	cur   writeBatch
	spare writeBatch
	busy  bool
	dead  bool // a write failed or the writer stopped: frames are dropped
}

type writeBatch struct {
	buf []byte
	ids []int64        // requests in buf, failed together if the write fails
	obs []CallObserver // observers of the requests in buf, told once it is written
}

// writeDone returns a batch from the goroutine with the write's outcome.
type writeDone struct {
	writeBatch
	err error
}

// maxKeptBuffer is the largest batch buffer kept for reuse.
const maxKeptBuffer = 1 << 20

func (w *batchWriter) start(f *os.File, root *actor.RootContext, self *actor.PID, _ *counters, _ string) {
	// The goroutine gets the channel itself, not the field: stop sets the
	// field to nil from the actor while the goroutine may be ranging.
	jobs := make(chan writeBatch, 1)
	w.jobs = jobs
	go func() {
		for b := range jobs {
			// Observers hear of the write as it starts: once the bytes
			// are out, the answer can end the call's span before this
			// goroutine runs again. A failed write fails the call, which
			// its span then shows.
			for _, o := range b.obs {
				o.Written()
			}
			_, err := f.Write(b.buf)
			root.Send(self, writeDone{writeBatch: b, err: err})
		}
	}()
}

func (w *batchWriter) frameBuffer() []byte { return w.cur.buf }

func (w *batchWriter) commitFrame(frame []byte, c *call) {
	w.cur.buf = append(frame, '\n')
	if c != nil {
		w.cur.ids = append(w.cur.ids, c.id)
		if c.obs != nil {
			w.cur.obs = append(w.cur.obs, c.obs)
		}
	}
	w.flush()
}

// flush hands the current batch to the goroutine if it is idle. The jobs
// channel holds one batch and is empty whenever busy is false, so the send
// never blocks.
func (w *batchWriter) flush() {
	if w.busy || w.jobs == nil || len(w.cur.buf) == 0 {
		return
	}
	if w.dead {
		w.cur.reset()
		return
	}
	w.jobs <- w.cur
	w.busy = true
	w.cur, w.spare = w.spare, writeBatch{}
	w.cur.reset()
}

// reset empties the batch for reuse, dropping observer references so a
// finished call's span is not kept alive by a spare buffer.
func (b *writeBatch) reset() {
	clear(b.obs)
	b.buf, b.ids, b.obs = b.buf[:0], b.ids[:0], b.obs[:0]
}

// done takes a batch back from the goroutine and sends the next one.
func (w *batchWriter) done(m writeDone) {
	w.busy = false
	if m.err != nil {
		w.dead = true
	}
	if cap(m.buf) <= maxKeptBuffer {
		w.spare = m.writeBatch
		w.spare.reset()
	}
	w.flush()
}

// idle reports whether nothing is being written or waiting to be.
func (w *batchWriter) idle() bool { return !w.busy && len(w.cur.buf) == 0 }

// stop ends the goroutine once its current write returns.
func (w *batchWriter) stop() {
	if w.jobs != nil {
		close(w.jobs)
		w.jobs = nil
		w.dead = true
	}
}
