package refclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/jsonscan"
)

// DefaultTimeout is the per-call timeout of a Blocking client whose
// Timeout is zero.
const DefaultTimeout = 30 * time.Second

// ErrTimeout is returned by a call that got no answer within its
// per-call timeout.
var ErrTimeout = errors.New("refclient: call timed out")

// Blocking is the limit of a blocking-API client: see the package
// documentation. Its methods are safe for concurrent use.
type Blocking struct {
	// Timeout bounds each call (besides the ctx given to Call); zero means
	// DefaultTimeout. Set it before the first call.
	Timeout time.Duration

	p      *proc
	w      *writer
	nextID atomic.Uint64

	mu      sync.Mutex
	pending map[uint64]*slot
	rerr    error // why the reader stopped; set once, guarded by mu

	readDone  chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// A slot is a caller's way back: the reader sends exactly one reply on ch
// for each time the slot is taken out of pending by the reader, so a slot
// whose entry the caller removed itself (timeout) is clean and goes back
// to the pool, and one the reader removed is drained first.
type slot struct {
	ch    chan reply
	timer *time.Timer
}

type reply struct {
	text string
	err  error
}

var slots = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &slot{ch: make(chan reply, 1), timer: t}
}}

// StartBlocking starts cmd (its Stdin and Stdout must be nil: they become
// the client's pipes; its Stderr is left as given, nil meaning the null
// device) and does the MCP handshake, bounded by ctx.
func StartBlocking(ctx context.Context, cmd *exec.Cmd) (*Blocking, error) {
	return StartBlockingWith(ctx, cmd, Options{})
}

// StartBlockingWith is StartBlocking as opts say.
func StartBlockingWith(ctx context.Context, cmd *exec.Cmd, opts Options) (*Blocking, error) {
	p, err := startProc(ctx, cmd, opts)
	if err != nil {
		return nil, err
	}
	b := &Blocking{
		p:        p,
		pending:  make(map[uint64]*slot),
		readDone: make(chan struct{}),
	}
	b.w = newWriter(p.stdin, b.fail)
	go b.read()
	return b, nil
}

// Protocol is the protocolVersion the server answered to initialize, or
// StatelessVersion.
func (b *Blocking) Protocol() string { return b.p.protocol }

// Call makes a tools/call of tool with args (a JSON object, spliced into
// the request as is; nil means {}) and returns the text of the result's
// first content item. A JSON-RPC error is an *RPCError, a result with
// isError a *ToolError, a first item that is not text ErrNoText. The
// per-call Timeout (ErrTimeout) and ctx (its error) both bound the call;
// an answer that comes after is dropped.
func (b *Blocking) Call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	} else if bytes.IndexByte(args, '\n') >= 0 {
		// A raw newline would end the message early: the framing is one
		// message per line.
		var c bytes.Buffer
		if err := json.Compact(&c, args); err != nil {
			return "", fmt.Errorf("refclient: arguments: %w", err)
		}
		args = c.Bytes()
	}
	s := slots.Get().(*slot)
	id := b.nextID.Add(1)

	b.mu.Lock()
	if b.rerr != nil {
		err := b.rerr
		b.mu.Unlock()
		slots.Put(s)
		return "", err
	}
	b.pending[id] = s
	b.mu.Unlock()

	if err := b.w.queue(func(buf []byte) []byte {
		buf = append(buf, `{"jsonrpc":"2.0","id":`...)
		buf = strconv.AppendUint(buf, id, 10)
		buf = append(buf, b.p.opts.paramsHead()...)
		buf = jsonscan.AppendString(buf, tool)
		buf = append(buf, `,"arguments":`...)
		buf = append(buf, args...)
		return append(buf, "}}\n"...)
	}); err != nil {
		b.abandon(id, s)
		return "", err
	}

	timeout := b.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	s.timer.Reset(timeout)
	select {
	case r := <-s.ch:
		s.timer.Stop()
		slots.Put(s)
		return r.text, r.err
	case <-s.timer.C:
		b.abandon(id, s)
		return "", ErrTimeout
	case <-ctx.Done():
		s.timer.Stop()
		b.abandon(id, s)
		return "", ctx.Err()
	}
}

// abandon withdraws a call that will not wait for its answer. If the
// reader already took the slot out of pending, its reply is on the way
// (the reader never blocks before sending it) and is drained, so that the
// slot goes back to the pool empty and a late answer can never reach the
// next call that uses it: the reader finds answers by id in pending, and
// this id is no longer there.
func (b *Blocking) abandon(id uint64, s *slot) {
	b.mu.Lock()
	_, mine := b.pending[id]
	delete(b.pending, id)
	b.mu.Unlock()
	if !mine {
		<-s.ch
	}
	slots.Put(s)
}

// read is the one reader goroutine: per line it finds the id, takes the
// caller's slot out of pending, reads the result or error and sends the
// reply. Server notifications are skipped; server requests are answered
// with -32601 (the client has no capabilities). Answers whose id is not
// pending (a call that timed out) are dropped.
func (b *Blocking) read() {
	defer close(b.readDone)
	var a answer
	var out []byte // the answers to server requests of one read
	lr := b.p.lr
	for {
		for line := lr.next(); line != nil; line = lr.next() {
			if !parseAnswer(line, &a) {
				continue
			}
			if a.method {
				if a.id != nil {
					out = appendMethodNotFound(out, a.id)
				}
				continue
			}
			id, ok := parseID(a.id)
			if !ok {
				continue
			}
			b.mu.Lock()
			s := b.pending[id]
			delete(b.pending, id)
			b.mu.Unlock()
			if s == nil {
				continue
			}
			s.ch <- a.reply()
		}
		if len(out) > 0 {
			b.w.queue(func(buf []byte) []byte { return append(buf, out...) })
			out = out[:0]
		}
		if err := lr.fill(); err != nil {
			b.fail(fmt.Errorf("refclient: reading from the server: %w", err))
			return
		}
	}
}

// reply turns an answer into what Call returns.
func (a *answer) reply() reply {
	switch {
	case a.rpcErr:
		msg, _ := jsonscan.Unescape(a.message)
		return reply{err: &RPCError{Code: a.code, Message: msg}}
	case !a.result:
		return reply{err: errors.New("refclient: an answer with neither result nor error")}
	case a.isError:
		text, _ := jsonscan.Unescape(a.text)
		return reply{err: &ToolError{Text: text}}
	case !a.textOK:
		return reply{err: ErrNoText}
	}
	text, ok := jsonscan.Unescape(a.text)
	if !ok {
		return reply{err: errors.New("refclient: the result's text is not a valid JSON string")}
	}
	return reply{text: text}
}

// fail ends every pending call with err, and every later one.
func (b *Blocking) fail(err error) {
	b.mu.Lock()
	if b.rerr == nil {
		b.rerr = err
	}
	pending := b.pending
	b.pending = make(map[uint64]*slot)
	b.mu.Unlock()
	for _, s := range pending {
		s.ch <- reply{err: err}
	}
}

// Close stops the client: calls still waiting fail, stdin is closed, and
// the server is waited for, killed when ctx ends first. When Close
// returns, none of the client's goroutines is left.
func (b *Blocking) Close(ctx context.Context) error {
	b.closeOnce.Do(func() {
		b.w.close()
		b.fail(ErrClosed)
		b.closeErr = b.p.close(ctx)
		<-b.w.done
		<-b.readDone
	})
	return b.closeErr
}
