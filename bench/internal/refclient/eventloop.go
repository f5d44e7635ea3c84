package refclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/jsonscan"
)

// EventLoop is the limit of any client on a given server: see the package
// documentation. Run and RunCount make one load at a time (a second call
// waits for the first); Close may be called at any time.
type EventLoop struct {
	p  *proc
	w  *writer
	t0 time.Time // the clock's origin: times are int64 nanoseconds since t0 (monotonic)

	cur      atomic.Pointer[run] // the load the reader serves; nil between loads
	readDone chan struct{}
	rerr     error // why the reader stopped; written before readDone is closed

	wdead    chan struct{} // closed when a write fails: requests were lost
	wdeadErr error         // written before wdead is closed

	runMu    sync.Mutex
	nextBase uint64 // the first id of the next load; guarded by runMu

	closeOnce sync.Once
	closeErr  error
}

// Load describes the calls of a run.
type Load struct {
	// Tool is the name of the tool called.
	Tool string
	// Args appends the arguments object of call number i (from 0 in each
	// run) to b, as compact JSON (no newline: the framing is one message
	// per line). Nil means {}.
	Args func(b []byte, i uint64) []byte
	// Want appends the exact bytes the text of the answer's first content
	// item must be, as they appear between the quotes on the wire (JSON
	// escaped). Nil means any text is right.
	Want func(b []byte, i uint64) []byte
}

// Result is what a run counts. Calls are the calls that ended: answered,
// or lost (server gone, ctx ended) and then also counted in Errors. Errors
// are JSON-RPC errors, results with isError, results whose first item is
// not text, and lost calls; Mismatches are answers with the wrong text.
// Elapsed runs from the first request to the last answer (or to the end
// of the run, if calls were lost). FirstErr describes the first error or
// mismatch.
type Result struct {
	Calls, Errors, Mismatches uint64
	Elapsed                   time.Duration
	FirstErr                  string
}

// StartEventLoop starts cmd (its Stdin and Stdout must be nil: they become
// the client's pipes; its Stderr is left as given, nil meaning the null
// device) and does the MCP handshake, bounded by ctx.
func StartEventLoop(ctx context.Context, cmd *exec.Cmd) (*EventLoop, error) {
	return StartEventLoopWith(ctx, cmd, Options{})
}

// StartEventLoopWith is StartEventLoop as opts say.
func StartEventLoopWith(ctx context.Context, cmd *exec.Cmd, opts Options) (*EventLoop, error) {
	p, err := startProc(ctx, cmd, opts)
	if err != nil {
		return nil, err
	}
	e := &EventLoop{
		p:        p,
		t0:       time.Now(),
		readDone: make(chan struct{}),
		wdead:    make(chan struct{}),
		nextBase: 1, // 0 was initialize or server/discover
	}
	e.w = newWriter(p.stdin, func(err error) {
		e.wdeadErr = err
		close(e.wdead)
	})
	go e.read()
	return e, nil
}

// Protocol is the protocolVersion the server answered to initialize, or
// StatelessVersion.
func (e *EventLoop) Protocol() string { return e.p.protocol }

func (e *EventLoop) now() int64 { return int64(time.Since(e.t0)) }

// run is one load. Its lanes are its calls in flight: lane k carries one
// call at a time, and the answer to it sends the lane's next call, with
// id + lanes; so id - base, modulo lanes, is the lane, and a lane's slot
// tells whether the id is the one outstanding on it (an answer to an
// earlier load, or a duplicate, is not).
//
// Everything in a run is guarded by mu. The reader takes it once per read
// from the server (not per answer), so it costs nothing measurable; it
// is what makes the counts exact when a run ends early, and gives the
// race detector the ordering the pipe round trip gives in fact.
type run struct {
	mu     sync.Mutex
	load   Load
	record func(time.Duration)
	mid    []byte // the request from the id's end to the arguments
	base   uint64
	lanes  uint64
	slots  []lane

	issued      uint64 // calls sent: call numbers [0, issued)
	maxID       uint64
	outstanding uint64
	stop        bool // no new calls: answers retire their lane
	finished    bool // Run has returned or is returning: the reader ignores the run
	end         int64
	done        chan struct{} // closed by the reader when stop and nothing is outstanding

	calls, errors, mismatches uint64
	firstErr                  string
}

type lane struct {
	id   uint64 // the id outstanding, if busy
	busy bool
	i    uint64 // its call number
	sent int64  // when it was queued
}

// Run keeps inflight calls outstanding for d, then waits for those still
// outstanding; record (if not nil) gets the latency of each good answer,
// on the reader goroutine. It returns early, counting the calls in flight
// as errors, if ctx ends or the server goes away.
func (e *EventLoop) Run(ctx context.Context, load Load, inflight int, d time.Duration, record func(time.Duration)) Result {
	return e.run(ctx, load, inflight, true, d, record)
}

// RunCount sends n calls at once and returns when all have answered (or
// as Run does, early).
func (e *EventLoop) RunCount(ctx context.Context, load Load, n int, record func(time.Duration)) Result {
	return e.run(ctx, load, n, false, 0, record)
}

func (e *EventLoop) run(ctx context.Context, load Load, lanes int, reissue bool, d time.Duration, record func(time.Duration)) Result {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	if lanes <= 0 {
		return Result{}
	}
	r := &run{
		load:   load,
		record: record,
		base:   e.nextBase,
		lanes:  uint64(lanes),
		slots:  make([]lane, lanes),
		stop:   !reissue,
		done:   make(chan struct{}),
	}
	r.mid = append(r.mid, e.p.opts.paramsHead()...)
	r.mid = jsonscan.AppendString(r.mid, load.Tool)
	r.mid = append(r.mid, `,"arguments":`...)
	defer func() { e.nextBase = max(e.nextBase, r.maxID+1) }()

	start := e.now()
	// The reader waits on r.mu until every first request is queued, so
	// it never sees an answer to a lane it does not know yet.
	r.mu.Lock()
	e.cur.Store(r)
	// Counted before they are queued: if queueing fails, they are lost.
	r.issued, r.outstanding, r.maxID = r.lanes, r.lanes, r.base+r.lanes-1
	err := e.w.queue(func(b []byte) []byte {
		for k := range r.slots {
			s := &r.slots[k]
			s.id, s.busy, s.i, s.sent = r.base+uint64(k), true, uint64(k), start
			b = r.appendRequest(b, s.id, s.i)
		}
		return b
	})
	r.mu.Unlock()
	if err != nil {
		return e.abandon(r, start, err)
	}

	var deadline <-chan time.Time
	if reissue {
		t := time.NewTimer(d)
		defer t.Stop()
		deadline = t.C
	}
	for {
		select {
		case <-deadline:
			deadline = nil
			r.mu.Lock()
			r.stop = true
			r.mu.Unlock()
		case <-r.done:
			return e.abandon(r, start, nil)
		case <-e.readDone:
			return e.abandon(r, start, e.rerr)
		case <-e.wdead:
			return e.abandon(r, start, e.wdeadErr)
		case <-ctx.Done():
			return e.abandon(r, start, ctx.Err())
		}
	}
}

// abandon ends the run r: the reader will not touch it again, calls still
// outstanding are counted as errors (with why), and its counts become the
// Result.
func (e *EventLoop) abandon(r *run, start int64, why error) Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = true
	e.cur.CompareAndSwap(r, nil)
	end := r.end
	if r.outstanding > 0 || !r.stop || end == 0 {
		end = e.now()
	}
	if r.outstanding > 0 {
		if why == nil {
			why = errors.New("refclient: calls lost")
		}
		r.calls += r.outstanding
		r.errors += r.outstanding
		r.note(fmt.Sprintf("%d calls lost: %v", r.outstanding, why))
		r.outstanding = 0
	}
	return Result{
		Calls:      r.calls,
		Errors:     r.errors,
		Mismatches: r.mismatches,
		Elapsed:    time.Duration(end - start),
		FirstErr:   r.firstErr,
	}
}

func (r *run) note(s string) {
	if r.firstErr == "" {
		if len(s) > 300 {
			s = s[:300] + "…"
		}
		r.firstErr = s
	}
}

func (r *run) appendRequest(b []byte, id, i uint64) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, r.mid...)
	if r.load.Args != nil {
		b = r.load.Args(b, i)
	} else {
		b = append(b, "{}"...)
	}
	return append(b, "}}\n"...)
}

// answer takes the answer a to id, received at now, and appends the lane's
// next request to batch, if the run goes on. want is scratch space for
// Load.Want. The caller holds r.mu.
func (r *run) answer(id uint64, a *answer, now int64, batch []byte, want *[]byte) []byte {
	if id < r.base {
		return batch
	}
	s := &r.slots[(id-r.base)%r.lanes]
	if !s.busy || s.id != id {
		return batch
	}
	r.calls++
	switch {
	case a.rpcErr:
		r.errors++
		msg, _ := jsonscan.Unescape(a.message)
		r.note((&RPCError{Code: a.code, Message: msg}).Error())
	case !a.result:
		r.errors++
		r.note("an answer with neither result nor error")
	case a.isError:
		r.errors++
		text, _ := jsonscan.Unescape(a.text)
		r.note((&ToolError{Text: text}).Error())
	case !a.textOK:
		r.errors++
		r.note(ErrNoText.Error())
	default:
		ok := true
		if r.load.Want != nil {
			*want = r.load.Want((*want)[:0], s.i)
			ok = bytes.Equal(*want, a.text)
		}
		if !ok {
			r.mismatches++
			r.note(fmt.Sprintf("call %d: text %.100q, want %.100q", s.i, a.text, *want))
		} else if r.record != nil {
			r.record(time.Duration(now - s.sent))
		}
	}
	if r.stop {
		s.busy = false
		r.outstanding--
		if r.outstanding == 0 {
			r.end = now
			close(r.done)
		}
		return batch
	}
	s.id += r.lanes
	s.i = r.issued
	s.sent = now
	r.issued++
	r.maxID = max(r.maxID, s.id)
	return r.appendRequest(batch, s.id, s.i)
}

// read is the one reader goroutine. Per read from the server it takes the
// current run once, handles every complete line (answers checked against
// the run, each triggering its lane's next request; server requests
// answered with -32601; notifications skipped), and hands everything it
// produced to the writer in one piece: the requests triggered by one read
// go out in one write.
func (e *EventLoop) read() {
	defer close(e.readDone)
	lr := e.p.lr
	var a answer
	var batch, want []byte
	for {
		now := e.now()
		r := e.cur.Load()
		if r != nil {
			r.mu.Lock()
			if r.finished {
				r.mu.Unlock()
				r = nil
			}
		}
		for line := lr.next(); line != nil; line = lr.next() {
			if !parseAnswer(line, &a) {
				continue
			}
			if a.method {
				if a.id != nil {
					batch = appendMethodNotFound(batch, a.id)
				}
				continue
			}
			if r == nil {
				continue
			}
			if id, ok := parseID(a.id); ok {
				batch = r.answer(id, &a, now, batch, &want)
			}
		}
		if r != nil {
			r.mu.Unlock()
		}
		if len(batch) > 0 {
			e.w.queue(func(b []byte) []byte { return append(b, batch...) })
			batch = batch[:0]
		}
		if err := lr.fill(); err != nil {
			e.rerr = fmt.Errorf("refclient: reading from the server: %w", err)
			return
		}
	}
}

// Close stops the client: a run under way returns (its calls in flight
// counted as lost), stdin is closed, and the server is waited for, killed
// when ctx ends first. When Close returns, none of the client's
// goroutines is left.
func (e *EventLoop) Close(ctx context.Context) error {
	e.closeOnce.Do(func() {
		e.w.close()
		e.closeErr = e.p.close(ctx)
		<-e.w.done
		<-e.readDone
	})
	return e.closeErr
}
