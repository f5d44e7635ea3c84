package transport

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
)

// process is a running subprocess and its three pipes, or a dialed byte
// stream standing in for one (cmd and stderr nil). The actor holds the
// handles; the goroutines started here only read, and report back by
// message. stdin and stdout are our own os.Pipe ends, not exec's pipes, so
// that exec.Cmd.Wait neither closes them under a reader nor waits for
// copying goroutines.
type process struct {
	stats   *Counters
	cmd     *exec.Cmd      // nil for a dialed stream
	stdin   io.WriteCloser // what we write to
	stdout  io.ReadCloser  // what we read from
	stderr  *os.File       // nil for a dialed stream
	drain   *stderrDrain   // what reads stderr; nil for a dialed stream
	credits chan struct{}  // runs in the actor's mailbox
	bytes   *byteCredits   // and their bytes
	// runs holds runs the actor has handled, for the reader to fill
	// again (recycleRun): a run and its slice of frames cost nothing in
	// the steady state.
	runs chan *inbound

	// tree is the server and every process it starts, signalled or
	// killed as one (nil for a dialed stream). What it is depends on the
	// platform: a process group on Unix (process_unix.go), a job object
	// on Windows (process_windows.go).
	tree *processTree
	// ends counts the ends of a subprocess's three waits (the reader,
	// the stderr drain, the reap after its exit) that have come; the
	// last one releases the tree.
	ends atomic.Int32
	// skipped keeps the stdout lines that were not JSON-RPC, for the
	// closing error (the Conn's).
	skipped *skippedStdout
}

// startStream runs the reader over a dialed stream: JSON Lines both ways,
// no process, no stderr. Closing either side closes the stream, once.
func startStream(rwc io.ReadWriteCloser, cfg *StdioConfig, conn *Conn, self *actor.PID) *process {
	c := &closeOnce{c: rwc}
	p := &process{stats: conn.stats, stdin: writeCloser{rwc, c}, stdout: readCloser{rwc, c},
		credits: conn.inbound, bytes: newByteCredits(defaultInboundBytes), runs: make(chan *inbound, keptRuns),
		skipped: conn.skipped}
	go p.read(cfg, conn.root, self, conn.end.done)
	return p
}

// closeOnce closes c once, whichever side asks first.
type closeOnce struct {
	once sync.Once
	c    io.Closer
}

func (o *closeOnce) Close() error {
	o.once.Do(func() { o.c.Close() })
	return nil
}

type writeCloser struct {
	io.Writer
	io.Closer
}

type readCloser struct {
	io.Reader
	io.Closer
}

// inboundCredits bounds the runs of frames a reader may have in the actor's
// mailbox. When the actor falls behind, the reader stops reading and the
// pipe gives the server backpressure, instead of the mailbox growing without
// bound.
const inboundCredits = 256

func startProcess(cmd *exec.Cmd, cfg *StdioConfig, conn *Conn, self *actor.PID) (*process, error) {
	root, quit := conn.root, conn.end.done
	cmd.Dir = cfg.Dir
	env, err := serverEnv(cfg.InheritEnv, os.Environ(), cfg.Env, runtime.GOOS == "windows")
	if err != nil {
		return nil, err
	}
	cmd.Env = env
	// The server and whatever it starts form one tree, so that stopping
	// it reaches a server started through a wrapper (npx, a shell
	// script) and not only the wrapper. Without a tree (a Windows job
	// object could not be made) only the server itself is killed.
	tree := new(processTree)
	if err := tree.prepare(cmd); err != nil {
		cfg.Logger.Warn("mcp: the server's children will not be stopped with it", "server", cfg.Server, "err", err)
	}

	var files [6]*os.File // child's stdin, our stdin; our stdout, child's; our stderr, child's
	for i := 0; i < 6; i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(files[:i]...)
			return nil, fmt.Errorf("start %s: %w", cfg.Command, err)
		}
		if i == 0 {
			files[0], files[1] = r, w
		} else {
			files[i], files[i+1] = r, w
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[3], files[5]
	release, err := launch(cmd)
	if err != nil {
		tree.release()
		closeAll(files[:]...)
		return nil, fmt.Errorf("start %s: %w", cfg.Command, err)
	}
	if err := tree.started(cmd.Process); err != nil {
		cfg.Logger.Warn("mcp: the server's children will not be stopped with it", "server", cfg.Server, "err", err)
	}
	closeAll(files[0], files[3], files[5]) // the child's ends live on in the child
	// The child has its environment; ours would stay with cmd for as long
	// as the server runs (the whole parent environment when it is
	// inherited: a few KB per server, kept for nothing).
	cmd.Env = nil
	p := &process{stats: conn.stats, cmd: cmd, stdin: files[1], stdout: files[2], stderr: files[4],
		credits: conn.inbound, bytes: newByteCredits(defaultInboundBytes), tree: tree, runs: make(chan *inbound, keptRuns),
		skipped: conn.skipped}

	go p.read(cfg, root, self, quit)
	p.drain = newStderrDrain(p, cfg, root, self)
	if !watchStderr(p.drain) {
		go p.drain.run()
	}
	// Stopping the server ends its process group too, the leftovers of a
	// server that already exited included (processTree.wait).
	tree.waitThen(cmd, func(err error) {
		defer release()
		defer p.ended()
		status := "exit status 0"
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			status = ee.Error()
		case err != nil:
			status = err.Error()
		}
		root.Send(self, procExited{status: status})
	})
	return p, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// read is the stdout loop: split lines, decode envelopes, hand them to the
// actor. Decoding here keeps JSON work off the actor; malformed lines are
// counted and skipped, never fatal: many servers print a banner.
func (p *process) read(cfg *StdioConfig, root *actor.RootContext, self *actor.PID, quit <-chan struct{}) {
	// The pipe is given back as soon as it is done with, not when the
	// garbage collector finds it (no leaked descriptors).
	defer p.ended()
	defer p.stdout.Close()
	lr := newLineReader(p.stdout, cfg.MaxFrameSize)
	r := stdoutRuns{p: p, cfg: cfg, root: root, self: self, quit: quit}
	// A quiet server's reader waits for input in lr.wait, above this
	// frame and nothing else, which is most of a quiet server's life:
	// so this frame holds the loop and no more (take and flush are
	// calls, not inlined). The runtime halves a waiting goroutine's stack only
	// while a quarter of it is in use: a frame of a few KB here kept
	// every server's reader at 16 KiB, and waiting inside the buffered
	// read at 8 (TestQuietReaderFitsInFourKiB).
	for {
		if r.run != nil && len(r.run.msgs) >= maxRun || !lr.lineBuffered() {
			if !r.flush() {
				return
			}
		}
		lr.wait()
		line, err := lr.next()
		if err == errQuiet {
			continue // wait, with the buffer given back
		}
		if !r.take(line, err, lr.given) {
			return
		}
	}
}

// stdoutRuns is the reader's state between lines. Frames go to the actor
// in runs: every complete line already read is decoded and sent in one
// mailbox message, so a burst of answers costs one hand-off, not one
// each. A run ends before any read that could block, so no frame waits for
// the next one to arrive.
type stdoutRuns struct {
	p    *process
	cfg  *StdioConfig
	root *actor.RootContext
	self *actor.PID
	quit <-chan struct{}

	run     *inbound // nil until the run's first frame
	lastRun int      // frames in the run sent last
}

// send waits for a credit of each kind: a run in the mailbox and its
// bytes. When the actor falls behind, the reader stops reading and the
// pipe pushes back on the server.
func (r *stdoutRuns) send(msg any, n int64) bool {
	select {
	case r.p.credits <- struct{}{}:
	case <-r.quit:
		return false
	}
	if !r.p.bytes.take(n, r.quit) {
		return false
	}
	r.root.Send(r.self, msg)
	return true
}

// flush sends the run so far, if any; false once the connection is done.
//
//go:noinline
func (r *stdoutRuns) flush() bool {
	if r.run == nil {
		return true
	}
	// The actor owns the run from here until it hands it back.
	r.lastRun = len(r.run.msgs)
	run := r.run
	r.run = nil
	return r.send(run, run.bytes)
}

// take handles what one read gave: a line (given: in a buffer of its own)
// or the error that ended it. False once the reader is done.
//
//go:noinline
func (r *stdoutRuns) take(line []byte, err error, given bool) bool {
	p, cfg := r.p, r.cfg
	switch over := oversized(err); {
	case over != nil:
		if !r.flush() {
			return false
		}
		p.stats.drop(Oversized)
		cfg.Logger.Warn("mcp: oversized frame discarded", "server", cfg.Server, "bytes", over.Dropped, "limit", over.Limit)
		if id, ok := responseID(over.Head); ok {
			return r.send(readerNote{oversizedResponse{id: id, size: over.Dropped, limit: over.Limit}}, 0)
		}
		return true
	case err != nil:
		if !r.flush() {
			return false
		}
		if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
			err = nil
		}
		r.root.Send(r.self, readerDone{err: err})
		return false
	}
	if jsonrpc.IsBatch(line) {
		msgs, errs, err := jsonrpc.DecodeBatch(line)
		if err != nil {
			p.skipped.add(line)
			p.malformed(cfg, line, err)
			return true
		}
		kept := msgs[:0]
		for i, m := range msgs {
			if errs[i] != nil {
				p.malformed(cfg, line, errs[i])
				continue
			}
			kept = append(kept, m)
		}
		// A batch is judged as a whole (it may be refused), so it
		// travels on its own, after the frames before it.
		n := int64(len(line))
		return r.flush() && r.send(inboundBatch{msgs: kept, bytes: n}, n)
	}
	var m jsonrpc.Message
	if given {
		// A long line put together in a buffer of its own: the
		// message keeps it rather than a copy of its result.
		m, err = jsonrpc.DecodeOwnedMessage(line)
	} else {
		m, err = jsonrpc.DecodeMessage(line)
	}
	if err != nil {
		if msg := p.rejected(cfg, line, err, m); msg != nil {
			return r.flush() && r.send(readerNote{msg}, 0)
		}
		return true
	}
	if r.run == nil {
		r.run = p.newRun(r.lastRun)
	}
	r.run.msgs = append(r.run.msgs, m)
	r.run.bytes += int64(len(line))
	return true
}

// oversized returns err as an *oversizedError, or nil. (A variable of the
// read loop given to errors.As would move to the heap on every line.)
func oversized(err error) *oversizedError {
	if err == nil {
		return nil
	}
	var over *oversizedError
	if errors.As(err, &over) {
		return over
	}
	return nil
}

// keptRuns is how many handled runs wait to be filled again; maxKeptRun
// the most frames a kept run's slice may hold. Beyond them, runs are left
// to the garbage collector, so an idle connection keeps little.
const (
	keptRuns   = 8
	maxKeptRun = maxRun
)

// newRun returns an empty run, one the actor handed back if there is one,
// else a new one with room for as many frames as the last run had (a
// burst makes long runs, and growing each from a few frames would
// allocate several times per run).
func (p *process) newRun(last int) *inbound {
	select {
	case r := <-p.runs:
		return r
	default:
		return &inbound{msgs: make([]jsonrpc.Message, 0, min(max(last, 4), maxRun))}
	}
}

// recycleRun hands a run the actor has handled back to the reader. The
// actor keeps nothing of it: the frames' raw values are their own copies
// (jsonrpc.DecodeMessage), and the slice is cleared so that it holds none.
func (p *process) recycleRun(r *inbound) {
	if p == nil || cap(r.msgs) > maxKeptRun {
		return
	}
	clear(r.msgs)
	r.msgs, r.bytes = r.msgs[:0], 0
	select {
	case p.runs <- r:
	default:
	}
}

// maxRun bounds the frames sent to the actor in one message, so that one
// run never holds the actor for long. A run's bytes are bounded anyway: all
// but its first frame were already in the read buffer.
const maxRun = 64

// malformedLogEvery thins out the log of a server that prints garbage on
// every line; the counter still sees each one.
const malformedLogEvery = 1000

// rejected accounts for a line DecodeMessage refused and returns what the
// actor must do about it, if anything: answer a server request whose id
// JSON-RPC does not allow, or fail the pending request whose answer this
// was. Anything else is malformed input, counted and skipped.
func (p *process) rejected(cfg *StdioConfig, line []byte, err error, m jsonrpc.Message) any {
	if errors.Is(err, messages.ErrInvalidRequestID) {
		p.stats.drop(InvalidRequests)
		return invalidRequest{method: m.Method}
	}
	if id, problem, ok := jsonrpc.SalvageResponse(line); ok {
		if n, ok := id.Int64(); ok {
			p.stats.drop(BadResponses)
			return badResponse{id: n, problem: problem}
		}
	}
	p.skipped.add(line)
	p.malformed(cfg, line, err)
	return nil
}

func (p *process) malformed(cfg *StdioConfig, line []byte, err error) {
	n := p.stats.drop(Malformed)
	if n <= 10 || n%malformedLogEvery == 0 {
		cfg.Logger.Warn("mcp: malformed stdout line skipped", "server", cfg.Server,
			"err", err, "line", maskedSnippet(line, 120, p.skipped.secretValues()), "malformed_total", n)
	}
}

// maskedSnippet is snippet of a line with secrets masked before the cut,
// so that one straddling it does not show its start.
func maskedSnippet(line []byte, n int, secrets []string) string {
	more := len(line) > maskedHeadBytes
	s := snippet([]byte(maskedHead(line[:min(len(line), maskedHeadBytes)], more, secrets)), n)
	if more && !strings.HasSuffix(s, "...") {
		s += "..."
	}
	return s
}

func snippet(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// stderrTailBytes is how much of the newest stderr goes into the closing
// error (after up to stderrHeadBytes of the oldest).
const stderrTailBytes = 2 << 10

// releaseCredit gives back the credits of one run the actor has handled.
func (p *process) releaseCredit(n int64) {
	if p == nil {
		return
	}
	select {
	case <-p.credits:
	default:
	}
	p.bytes.give(n)
}

func (p *process) closeStdin() {
	if p != nil {
		p.stdin.Close() // idempotent: a second Close only returns an error
	}
}

// closeOutputs unblocks the reader and the stderr drain when the process is
// gone but something else still holds the pipes. (They close their pipe
// themselves when they end; a second Close is harmless.) A drain in the
// shared watch is ended by the watch, which alone may close its pipe.
func (p *process) closeOutputs() {
	if p != nil {
		p.stdout.Close()
		if p.stderr != nil && !unwatchStderr(p.drain) {
			p.stderr.Close()
		}
	}
}

// signal asks the server's process tree to exit (stageTerm) or ends it
// (stageKill). On Unix that is SIGTERM or SIGKILL to its process group; on
// Windows, which has no SIGTERM, both stages terminate its job object.
func (p *process) signal(stage int) {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return
	}
	p.tree.signal(stage)
}

// ended is called as each of a subprocess's waits ends (the reader, the
// stderr drain, the reap after its exit). The last one releases the
// process tree: by then the server has been reaped and its pipes are
// closed, so nothing is left to signal. (On Windows that closes the job
// object, which kills whatever the server left running in it.)
func (p *process) ended() {
	if p.ends.Add(1) == 3 && p.tree != nil {
		p.tree.release()
	}
}
