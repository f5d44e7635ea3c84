package transport

import (
	"io"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// batchWriter is the write side of a stream transport. The actor appends
// frames to the current batch; one goroutine writes a batch at a time. While
// a write is in progress, new frames accumulate, so a burst leaves in one
// write. Two buffers take turns, so the steady state allocates nothing.
// Only the actor calls its methods; the goroutine sees a batch only between
// the hand-off and writeDone.
//
// Memory is bounded by the write budget (callers wait for it before their
// frame is queued), and a frame whose call ended before it left is cut out
// of the batch: nothing is owed on the wire for a request never sent.
type batchWriter struct {
	f       io.Writer // nil until start and after stop
	mailbox *ownMailbox
	jobs    chan writeBatch // nil while no goroutine runs
	cur     writeBatch
	spare   writeBatch
	busy    bool
	dead    bool // a write failed or the writer stopped: frames are dropped
	budget  *writeBudget
	stats   *Counters
	// inFlight reports the connection's calls in flight (Conn.InFlight),
	// for the goroutine; nil: never yield before a write.
	inFlight func() int
	// fence, if set, is asked by the goroutine before each write that
	// starts a frame (writeFenced); nil: every frame is written.
	fence func() error

	// unbudgeted is the bytes of frames in cur that hold no budget (the
	// actor's own notifications and error replies).
	unbudgeted int

	// atRunEnd: the actor's mailbox calls flushOwed when a run of the
	// actor ends, and frames wait for it instead of going to the
	// goroutine as they are queued (except while gathering).
	atRunEnd bool
	// raw is the write end as the operating system sees it, when it is
	// in non-blocking mode (a pipe of ours): flushOwed writes a batch
	// there itself when it can go at once. nil: always the goroutine.
	raw *nowWriter

	// Stall detection: the goroutine stores the time of its last progress;
	// a timer in the actor checks it while a write is in progress.
	stall      time.Duration
	progress   atomic.Int64 // unix nanoseconds
	stallTimer *time.Timer
	root       *actor.RootContext
	self       *actor.PID
}

type writeBatch struct {
	buf       []byte
	frames    []queuedFrame // in buf order
	weight    int64         // budget the frames hold
	deadBytes int           // bytes of dropped frames still in buf
	written   int           // bytes of buf already out (flushOwed's write)
	notified  bool          // the frames' observers have heard of the write
}

// queuedFrame is one frame of a batch: buf[previous end:end].
type queuedFrame struct {
	end int
	// c is the request the frame carries (nil for notifications and
	// responses), for the actor alone: a call record may be reused as
	// soon as its call has ended, while its frame is still being written.
	// The goroutine reads obs, copied when the frame was queued.
	c      *call
	id     int64 // c's id when queued: a refused frame ends that call, if still pending
	obs    CallObserver
	weight int64
	dead   bool
}

// Where a request's frame is, as the actor sees it.
const (
	frameNone   uint8 = iota // not queued (yet, or never)
	frameQueued              // in the batch being accumulated: can still be cut out
	frameSent                // handed to the goroutine: on its way or written
)

// writeDone returns a batch from the goroutine with the write's outcome:
// with a fence, the frames from sent on were not written because it
// refused (refused).
type writeDone struct {
	writeBatch
	err     error
	sent    int
	refused error
}

// writeStallCheck asks the actor to look at the writer's progress.
type writeStallCheck struct{}

// gatherAbove is the number of calls in flight above which the writer
// yields once before each write to gather more frames into the next one.
// Measured with BenchmarkCallToolEcho: at 256 in flight it cut the writes
// per call from about 0.4 to 0.05 and the client's CPU per call by a
// fifth; at 16 it cut writes too but cost about 5% more CPU and latency.
const gatherAbove = 64

// maxKeptBuffer is the largest batch buffer kept for reuse.
const maxKeptBuffer = 1 << 20

// writeChunk is how much one write system call is given. A pipe holds 64
// KiB, so a larger write would block with no sign of progress until the
// reader had taken all of it; chunks let the stall check see a slow but
// steady reader.
const writeChunk = 64 << 10

func newBatchWriter(budget *writeBudget, stats *Counters, stall time.Duration) *batchWriter {
	return &batchWriter{budget: budget, stats: stats, stall: stall}
}

// writerIdle is how long the writer goroutine waits for a batch before it
// offers to end (writerIdleNote): a server at rest holds no goroutine for
// its writes, and one under load keeps its writer.
var writerIdle = 500 * time.Millisecond

// writerIdleNote is the writer goroutine's offer to end, jobs naming it.
type writerIdleNote struct{ jobs chan writeBatch }

// start makes the writer write to f. Its goroutine starts with the first
// batch it is handed (spawn) and ends after writerIdle without one.
func (w *batchWriter) start(f io.Writer, root *actor.RootContext, self *actor.PID, mailbox *ownMailbox) {
	w.f, w.root, w.self, w.mailbox = f, root, self, mailbox
	w.raw = nonBlocking(f)
}

// spawn starts the goroutine that writes batches to f. The goroutine is
// also the mailbox's home (mailboxHome): while it has nothing to write, it
// runs the actor for messages that find the mailbox idle.
func (w *batchWriter) spawn() {
	// The goroutine gets the channel itself, not the field: stop sets the
	// field to nil from the actor while the goroutine may be ranging.
	jobs := make(chan writeBatch, 1)
	w.jobs = jobs
	f, root, self := w.f, w.root, w.self
	progress, inFlight, fence := &w.progress, w.inFlight, w.fence
	// One writeDone serves every batch: the actor copies it out before
	// it hands over the next batch, and a batch is handed over only
	// after the previous one came back, so the two never overlap.
	done := new(writeDone)
	home := w.mailbox.setHome()
	// The goroutine's own way to write without waiting (the actor's,
	// raw, is not to be shared): what the pipe takes at once goes
	// while the home may still be left runs of the actor (mailboxHome).
	var now *nowWriter
	if w.raw != nil {
		now = w.raw.another()
	}
	after := writerIdle
	go func() {
		defer home.leave()
		idle := time.NewTimer(after)
		defer idle.Stop()
		wait := idle.C
		for {
			b, ok, timedOut := receiveAtHome(home, jobs, wait)
			if timedOut {
				// The actor ends this goroutine (closing jobs) unless
				// it has handed it a batch meanwhile.
				root.Send(self, writerIdleNote{jobs})
				wait = nil
				continue
			}
			if !ok {
				return
			}
			// Observers hear of the write as it starts: once the bytes
			// are out, the answer can end the call's span before this
			// goroutine runs again. A failed write fails the call, which
			// its span then shows.
			if inFlight != nil && inFlight() > gatherAbove {
				// Many calls in flight: callers just woken by a run
				// of answers are about to send their next requests.
				// Yielding once lets them reach the actor first, and
				// their frames go in the next batch, which then
				// waits for this write a little longer and gathers
				// more: fewer writes per call (a write is a system
				// call that also wakes the server). With few calls
				// in flight it only adds latency, so it is not done.
				runtime.Gosched()
			}
			if fence != nil {
				// The check is here, after the yield, as close to the
				// write system call as this goroutine can make it.
				home.block()
				sent, refused, err := writeFenced(f, &b, progress, fence)
				home.unblock()
				*done = writeDone{writeBatch: b, err: err, sent: sent, refused: refused}
				root.Send(self, done)
				idle.Reset(after)
				wait = idle.C
				continue
			}
			if !b.notified {
				for _, fr := range b.frames {
					if fr.obs != nil {
						fr.obs.Written()
					}
				}
			}
			err := writeHome(f, now, home, b.buf[b.written:], progress)
			*done = writeDone{writeBatch: b, err: err, sent: len(b.frames)}
			root.Send(self, done)
			idle.Reset(after)
			wait = idle.C
		}
	}()
}

// writeHome is the writer goroutine's write of p: first what the pipe
// takes at once, without waiting (now, when the descriptor allows it),
// then the rest, which may wait for room, with the home blocked
// (mailboxHome.block) so that no run of the actor waits for it.
func writeHome(f io.Writer, now *nowWriter, home *mailboxHome, p []byte, progress *atomic.Int64) error {
	if now != nil && len(p) <= writeChunk {
		// A failed write gives 0: the write below meets the error again
		// and reports it.
		n := now.write(p)
		if n == len(p) {
			return nil
		}
		if n > 0 {
			progress.Store(time.Now().UnixNano())
		}
		p = p[n:]
	}
	home.block()
	defer home.unblock()
	return writeChunked(f, p, progress)
}

// writeChunked writes p in chunks, noting the time after each one that
// leaves more to write.
func writeChunked(f io.Writer, p []byte, progress *atomic.Int64) error {
	for len(p) > writeChunk {
		n, err := f.Write(p[:writeChunk])
		if err != nil {
			return err
		}
		p = p[n:]
		progress.Store(time.Now().UnixNano())
	}
	_, err := f.Write(p)
	return err
}

func (w *batchWriter) frameBuffer(int) []byte { return w.cur.buf }

// commitFrame queues the frame just appended to frameBuffer's slice. weight is
// the budget it holds (0 for the actor's own frames). It reports false when
// the frame was dropped instead: the writer is dead, or the actor's own
// frames have piled up behind a stuck write.
func (w *batchWriter) commitFrame(frame []byte, c *call, weight int64) bool {
	start := len(w.cur.buf)
	if w.dead || (weight == 0 && w.unbudgeted+len(frame)-start > maxUnbudgetedBytes) {
		w.cur.buf = frame[:start]
		w.budget.release(weight)
		if !w.dead {
			w.stats.drop(WriteOverflow)
		}
		return false
	}
	w.cur.buf = append(frame, '\n')
	if weight == 0 {
		w.unbudgeted += len(w.cur.buf) - start
	}
	var obs CallObserver
	var id int64
	if c != nil {
		c.where, c.frame, obs, id = frameQueued, int32(len(w.cur.frames)), c.obs, c.id
	}
	w.cur.frames = append(w.cur.frames, queuedFrame{end: len(w.cur.buf), c: c, id: id, obs: obs, weight: weight})
	w.cur.weight += weight
	if !w.atRunEnd || w.gathering() {
		w.flush()
	}
	return true
}

// gathering reports whether so many calls are in flight that the
// goroutine writes every batch, gathering frames as it goes (gatherAbove).
func (w *batchWriter) gathering() bool { return w.inFlight != nil && w.inFlight() > gatherAbove }

// dropUnsent cuts c's frame out of the batch if it has not been handed to
// the goroutine yet, and reports whether it did. The bytes go at the next
// compaction, which runs at once when they are half the batch, so a storm
// of cancelled calls behind a stuck write does not keep their frames.
func (w *batchWriter) dropUnsent(c *call) bool {
	if c.where != frameQueued {
		return false
	}
	fr := &w.cur.frames[c.frame]
	start := 0
	if c.frame > 0 {
		start = w.cur.frames[c.frame-1].end
	}
	fr.dead, c.where = true, frameNone
	w.cur.deadBytes += fr.end - start
	w.stats.drop(DroppedWrites)
	if 2*w.cur.deadBytes > len(w.cur.buf) {
		w.compact()
	}
	return true
}

// retire: a stream's frames need nothing when their request ends.
func (w *batchWriter) retire(*call) {}

// compact removes the dropped frames from the current batch and gives
// their budget back.
func (w *batchWriter) compact() {
	b := &w.cur
	if b.deadBytes == 0 {
		return
	}
	out, start := 0, 0
	kept := b.frames[:0]
	for _, fr := range b.frames {
		end := fr.end
		if fr.dead {
			w.budget.release(fr.weight)
			b.weight -= fr.weight
		} else {
			out += copy(b.buf[out:], b.buf[start:end])
			fr.end = out
			if fr.c != nil {
				fr.c.frame = int32(len(kept))
			}
			kept = append(kept, fr)
		}
		start = end
	}
	clear(b.frames[len(kept):])
	b.frames, b.buf, b.deadBytes = kept, b.buf[:out], 0
	if cap(b.buf) > maxKeptBuffer && cap(b.buf) > 4*out {
		// Most of a large buffer is gone: let its memory go too.
		b.buf = append(make([]byte, 0, 2*out), b.buf...)
	}
}

// flush hands the current batch to the goroutine if it is idle. The jobs
// channel holds one batch and is empty whenever busy is false, so the send
// never blocks.
func (w *batchWriter) flush() {
	if !w.owed() {
		return
	}
	w.seal()
	w.handOff()
}

// owed reports whether the current batch is to be written now: it holds
// frames and the goroutine is started and idle. A batch that can never be
// written is dropped here.
func (w *batchWriter) owed() bool {
	if w.busy || w.f == nil || len(w.cur.buf) == 0 {
		return false
	}
	if w.dead {
		w.discard(&w.cur)
		return false
	}
	return true
}

// seal readies the current batch to be written: its dropped frames go,
// and the others can no longer be cut out.
func (w *batchWriter) seal() {
	w.compact()
	for _, fr := range w.cur.frames {
		if fr.c != nil {
			fr.c.where = frameSent
		}
	}
}

// handOff gives the sealed current batch to the goroutine.
func (w *batchWriter) handOff() {
	if w.jobs == nil {
		w.spawn()
	}
	w.progress.Store(time.Now().UnixNano())
	w.jobs <- w.cur
	w.busy = true
	w.unbudgeted = 0
	w.cur, w.spare = w.spare, writeBatch{}
	w.cur.reset()
	w.armStall()
}

// flushOwed writes what a run of the actor queued (atRunEnd); the
// mailbox calls it as the run ends, on the goroutine that ran the actor,
// which still holds it. A batch that fits in the pipe goes at once,
// written here without blocking: the caller that ran the actor for its
// own request writes its frame, and the writer goroutine is not woken. What the pipe does not take at once
// (it is full: the server is not reading) goes to the goroutine, which
// waits for room, as does every batch while gathering, with a fence (a
// write must follow the fence's check, writeFenced) or without raw.
//
// It reports whether it wrote the whole batch itself.
func (w *batchWriter) flushOwed() bool {
	if !w.owed() {
		return false
	}
	w.seal()
	b := &w.cur
	if w.raw == nil || w.fence != nil || len(b.buf) > writeChunk || w.gathering() {
		w.handOff()
		return false
	}
	for _, fr := range b.frames {
		if fr.obs != nil {
			fr.obs.Written()
		}
	}
	b.notified = true
	b.written = w.raw.write(b.buf)
	if b.written < len(b.buf) {
		// A failed write is the goroutine's too: it tries again, and
		// its writeDone carries the error to the actor.
		w.handOff()
		return false
	}
	w.budget.release(b.weight)
	b.reset()
	w.unbudgeted = 0
	return true
}

// discard drops a batch that will never be written and gives its budget back.
func (w *batchWriter) discard(b *writeBatch) {
	for _, fr := range b.frames {
		if fr.c != nil && !fr.dead && fr.c.where == frameQueued {
			fr.c.where = frameNone
		}
	}
	w.budget.release(b.weight)
	b.reset()
	if b == &w.cur {
		w.unbudgeted = 0
	}
}

// reset empties the batch for reuse, dropping call references so that a
// finished call is not kept alive by a spare buffer.
func (b *writeBatch) reset() {
	clear(b.frames)
	b.buf, b.frames, b.weight, b.deadBytes = b.buf[:0], b.frames[:0], 0, 0
	b.written, b.notified = 0, false
}

// done takes a batch back from the goroutine and sends the next one.
func (w *batchWriter) done(m writeDone) {
	w.busy = false
	w.budget.release(m.weight)
	if m.err != nil {
		w.dead = true
	}
	if cap(m.buf) <= maxKeptBuffer {
		w.spare = m.writeBatch
		w.spare.reset()
	}
	w.flush()
}

// armStall starts the stall timer for the write just handed over, unless
// it is already running.
func (w *batchWriter) armStall() {
	if w.stall <= 0 {
		return
	}
	if w.stallTimer == nil {
		root, self := w.root, w.self
		w.stallTimer = time.AfterFunc(w.stall, func() { root.Send(self, writeStallCheck{}) })
		return
	}
	w.stallTimer.Reset(w.stall)
}

// stalled reports whether the write in progress has made no progress for
// the stall timeout; if it has, the timer is set for the rest of the time.
func (w *batchWriter) stalled() bool {
	if !w.busy || w.dead {
		return false
	}
	idle := time.Since(time.Unix(0, w.progress.Load()))
	if idle >= w.stall {
		return true
	}
	w.stallTimer.Reset(w.stall - idle)
	return false
}

// idle reports whether nothing is being written or waiting to be.
func (w *batchWriter) idle() bool { return !w.busy && len(w.cur.buf) == 0 }

// idleNote ends the goroutine that offered to (writerIdleNote), unless it
// is writing a batch handed over since: while busy is false the goroutine
// has no batch, and none can reach it before the actor sends one.
func (w *batchWriter) idleNote(m writerIdleNote) {
	if w.jobs == m.jobs && !w.busy {
		close(w.jobs)
		w.jobs = nil
	}
}

// stop ends the goroutine once its current write returns.
func (w *batchWriter) stop() {
	if w.stallTimer != nil {
		w.stallTimer.Stop()
	}
	if w.f == nil {
		return
	}
	if w.jobs != nil {
		close(w.jobs)
		w.jobs = nil
	}
	w.f = nil
	w.dead = true
	w.discard(&w.cur)
}
