package testserver

import (
	"bufio"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// reorderDelay is how long the OutOfOrder fault holds a lone tools/call
// response before releasing it anyway, unless Options.OutOfOrderHold says.
const reorderDelay = 20 * time.Millisecond

// noiseLines are what the NoiseEvery fault writes after a response: a line
// that is not JSON, a JSON line that is not JSON-RPC, and a response to an
// id that was never requested.
var noiseLines = [][]byte{
	[]byte("this is not json"),
	[]byte(`{"hello":"world"}`),
	[]byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(UnknownResponseID) + `,"result":{}}`),
}

// outlet is where the messages of one request go: stdout (the *output)
// for stdio; for HTTP, the answer to the POST that carried the request
// (http_stream.go). Handlers and tools write through the outlet of the
// request they serve, so one body of code serves both transports.
type outlet interface {
	// send writes msgs as one block, in order. isResponse marks them as
	// answering the request (a response, or what stands for one).
	send(isResponse bool, msgs ...[]byte)
}

// output serialises every write to stdout: one message per line, never
// interleaved.
//
// Flushing is group-committed: each sender announces itself in waiting
// before taking the lock, and only the sender that finds nobody else queued
// behind it flushes. With hundreds of requests in flight this coalesces
// many responses into one write system call, while a lone response is
// still flushed immediately.
type output struct {
	mu         sync.Mutex
	w          *bufio.Writer
	waiting    atomic.Int32
	dropped    atomic.Bool // set when the server stops: later messages are discarded
	noiseEvery int
	responses  int   // responses written so far, for NoiseEvery; guarded by mu
	err        error // first write error; guarded by mu
	onErr      func(error)
}

func newOutput(w io.Writer, noiseEvery int, onErr func(error)) *output {
	return &output{w: bufio.NewWriterSize(w, 64<<10), noiseEvery: noiseEvery, onErr: onErr}
}

// send writes msgs, one per line, as a block no other message interleaves
// with. isResponse marks them as responses, which count for NoiseEvery.
func (o *output) send(isResponse bool, msgs ...[]byte) {
	if o.dropped.Load() {
		return
	}
	o.waiting.Add(1)
	o.mu.Lock()
	defer o.mu.Unlock()
	// Re-check under the lock: the server may have stopped while this
	// sender waited behind an endless line.
	if !o.dropped.Load() && o.err == nil {
		for _, m := range msgs {
			o.writeLineLocked(m)
			if isResponse {
				o.noiseLocked()
			}
		}
	}
	if o.waiting.Add(-1) == 0 {
		o.flushLocked()
	}
}

// hold defers flushing, as if one more sender were queued, until the
// matching release. The reader holds while it still has complete lines
// buffered, so that the answers it writes itself leave in one write rather
// than one each.
func (o *output) hold() { o.waiting.Add(1) }

// release ends a hold, flushing if no sender is queued.
func (o *output) release() {
	if o.waiting.Add(-1) != 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	// Another sender may have queued since: it will flush when done.
	if o.waiting.Load() == 0 {
		o.flushLocked()
	}
}

// withLock runs f with exclusive use of the stream, for the faults that
// write unusual frames, and flushes afterwards. f's error counts as a write
// error.
func (o *output) withLock(f func(w *bufio.Writer) error) {
	if o.dropped.Load() {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.dropped.Load() || o.err != nil {
		return
	}
	if err := f(o.w); err != nil {
		o.failLocked(err)
		return
	}
	o.flushLocked()
}

// drop discards every later message; used when the server stops, which
// finishes nothing that is still in progress.
func (o *output) drop() { o.dropped.Store(true) }

// settle drops every later message and waits until stdout holds only whole
// messages, flushing what is buffered; it is what a process must do before
// exiting on a signal.
func (o *output) settle() {
	o.drop()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked()
}

// flushBeforeExit drops every later message and flushes the whole
// messages already buffered (answers the reader held back while batching),
// unless a write is in progress: a process about to exit cannot wait for a
// client that does not read.
func (o *output) flushBeforeExit() {
	o.drop()
	if o.mu.TryLock() {
		o.flushLocked()
		o.mu.Unlock()
	}
}

func (o *output) writeLineLocked(m []byte) {
	if o.err != nil {
		return
	}
	if _, err := o.w.Write(m); err != nil {
		o.failLocked(err)
		return
	}
	if err := o.w.WriteByte('\n'); err != nil {
		o.failLocked(err)
	}
}

func (o *output) noiseLocked() {
	o.responses++
	if o.noiseEvery <= 0 || o.responses%o.noiseEvery != 0 {
		return
	}
	for _, l := range noiseLines {
		o.writeLineLocked(l)
	}
}

func (o *output) flushLocked() {
	if o.err != nil {
		return
	}
	if err := o.w.Flush(); err != nil {
		o.failLocked(err)
	}
}

func (o *output) failLocked(err error) {
	if o.err != nil {
		return
	}
	o.err = err
	if o.onErr != nil {
		o.onErr(err)
	}
}

// writeErr returns the first write error, if any.
func (o *output) writeErr() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// errWriter serialises writes to stderr. Write errors are ignored: stderr
// is diagnostics only, and a client that closed it must not stop the server.
type errWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// writeString writes s in one Write call.
func (e *errWriter) writeString(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, _ = io.WriteString(e.w, s)
}

// Write implements io.Writer, so that the sessions of an HTTP server share
// one errWriter (and its lock).
func (e *errWriter) Write(b []byte) (int, error) {
	e.write(b)
	return len(b), nil
}

// write writes b in one Write call.
func (e *errWriter) write(b []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, _ = e.w.Write(b)
}

// reorderLoop implements OutOfOrder: tools/call responses arrive on
// s.reorder and leave reversed, in batches, as soon as two are waiting or
// when the lone one has waited reorderDelay (Options.OutOfOrderHold).
func (s *server) reorderLoop() {
	defer s.wg.Done()
	hold := reorderDelay
	if s.opts.OutOfOrderHold > 0 {
		hold = s.opts.OutOfOrderHold
	}
	var (
		pending [][]byte
		timer   *time.Timer
		timerC  <-chan time.Time
	)
	stopTimer := func() {
		if timer != nil {
			timer.Stop()
			timer, timerC = nil, nil
		}
	}
	release := func() {
		stopTimer()
		for i, j := 0, len(pending)-1; i < j; i, j = i+1, j-1 {
			pending[i], pending[j] = pending[j], pending[i]
		}
		s.out.send(true, pending...)
		pending = nil
	}
	for {
		select {
		case m := <-s.reorder:
			pending = append(pending, m)
			if len(pending) >= 2 {
				release()
			} else if timer == nil {
				timer = time.NewTimer(hold)
				timerC = timer.C
			}
		case <-timerC:
			timer, timerC = nil, nil
			release()
		case <-s.ctx.Done():
			stopTimer()
			return
		}
	}
}
