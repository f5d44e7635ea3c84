package transport

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os/exec"
	"runtime/debug"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/redact"
)

// StdioConfig describes an MCP server run as a subprocess that speaks JSON
// Lines on stdin and stdout (basic/transports, "stdio"). The zero values of
// the tuning fields select the documented defaults.
type StdioConfig struct {
	Server  string            // the server's name, used in errors and logs
	Command string            // program to run; no shell is involved
	Args    []string          // its arguments
	Env     map[string]string // set on top of the inherited environment
	// InheritEnv chooses what of the parent's environment the server
	// inherits (EnvInheritAll when empty).
	InheritEnv EnvInheritance
	Dir        string // working directory; "" = the parent's

	// Dial, if set, replaces the subprocess: the transport speaks the same
	// JSON Lines over the stream it returns (an in-process server in a
	// test, a socket). It is called once, on a goroutine of its own, with
	// a context that ends when the transport has ended, so an in-process
	// server may take it as its lifetime.
	Dial func(ctx context.Context) (io.ReadWriteCloser, error)

	// Generation numbers this connection among the successive ones of
	// the same client; it is stamped on every message to the owner, so
	// the owner can tell an old transport's news from the current one's.
	Generation uint64
	// Counters receive this transport's drops; nil starts new ones. A
	// client passes the same Counters to each of its transports.
	Counters *Counters

	// Limits bound the connection; their zero values select the
	// defaults.
	Limits

	StderrLimit int           // bytes of stderr kept for errors; default 64 KiB
	CloseGrace  time.Duration // wait after closing stdin before SIGTERM; default 2 s
	TermGrace   time.Duration // wait after SIGTERM before SIGKILL; default 2 s

	// WriteStallTimeout fails the connection when a write makes no
	// progress for this long: the server has stopped reading its input.
	// The default is the request timeout, and never less than 30 s: a
	// server busy with one long call may not read meanwhile.
	WriteStallTimeout time.Duration

	// Fence, if set, is asked immediately before each write of frames
	// to the server: before each write system call on its stdin that
	// starts a frame, on the transport's writer goroutine. A non-nil
	// error means none of those frames is written (nor any queued
	// behind them in the same write): the requests among them end with
	// that error, as it was returned, and the notifications and
	// responses are dropped. It must be safe for concurrent use and
	// quick; a panic in it refuses the write with a *FencePanicError.
	// For supervisors that fence ownership (supervisor/cluster).
	Fence func() error

	// StderrLine, if set, receives each line the server writes to stderr,
	// in order, on a goroutine of its own. A callback slower than the
	// server's output loses lines (Stats.DroppedStderrLines) rather than
	// blocking the server.
	StderrLine func(line string)
	// OnDrop, if set and Counters is nil, hears of each frame dropped or
	// refused, by reason ("malformed", "oversized", "unknown_id",
	// "late_response", "progress", "batch", "invalid_request",
	// "bad_response", "write_overflow"); Stats has the totals. It runs on
	// the reader goroutine or in the actor and must not block.
	OnDrop func(reason string)
	// Logger reports dropped input and lifecycle events; nil discards.
	Logger *slog.Logger
}

func (c *StdioConfig) setDefaults() {
	c.Limits.setDefaults()
	if c.StderrLimit <= 0 {
		c.StderrLimit = 64 << 10
	}
	if c.CloseGrace <= 0 {
		c.CloseGrace = 2 * time.Second
	}
	if c.TermGrace <= 0 {
		c.TermGrace = 2 * time.Second
	}
	if c.WriteStallTimeout <= 0 {
		c.WriteStallTimeout = max(c.RequestTimeout, minWriteStall)
	}
	if c.Counters == nil {
		c.Counters = NewCounters(c.OnDrop)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// SpawnStdio starts a stdio transport actor under parent (an actor's
// context, so that it is supervised, or the system's root context) and
// returns the handle callers use. The subprocess is started by the actor; if
// that fails the handle's Done channel closes with the error. owner receives
// the server's requests and notifications and the final TransportClosed; it
// may be nil.
func SpawnStdio(parent actor.SpawnerContext, root *actor.RootContext, owner *actor.PID, cfg StdioConfig) *Conn {
	cfg.setDefaults()
	conn := newConn(cfg.Server, cfg.Generation, root, cfg.Limits, cfg.Counters)
	conn.pool = new(sync.Pool) // call records are reused (Conn.take)
	conn.skipped = newSkippedStdout(cfg.Env)
	// protoactor makes the actor before its mailbox, so the actor finds
	// the mailbox through this variable when it starts its writer, which
	// is the mailbox's home (batchWriter.start).
	var mailbox *ownMailbox
	props := actor.PropsFromProducer(func() actor.Actor {
		return newStdioActor(&cfg, conn, owner, &mailbox)
	}, append(guardianAtRoot(parent), actor.WithMailbox(stdioMailbox(&mailbox, conn.InFlight)))...)
	conn.pid = parent.Spawn(props)
	return conn
}

// minWriteStall is the shortest default write stall timeout.
const minWriteStall = 30 * time.Second

// stdioActor owns one subprocess: its pipes, the pending table (through
// rpcCore) and the write side. Blocking I/O happens on its goroutines
// (the reader and the stderr drain; the writer while a batch waits for
// the pipe) and, on Linux, on the one goroutine that watches every
// server's exit (exit_watch_linux.go), which report back as messages.
type stdioActor struct {
	// cfg is the one copy of the configuration: the spawn's, which its
	// producer holds, shared with the reader and the stderr drain (none
	// of them writes it).
	cfg  *StdioConfig
	conn *Conn
	core rpcCore
	self *actor.PID
	proc *process
	out  *batchWriter
	// mailbox is the actor's (set once it is made, before the actor
	// starts), for the writer to be its home.
	mailbox **ownMailbox
	state   lifecycle
	// panicked is the value of a panic in Receive, kept for the error
	// that pending calls get while the actor is stopped.
	panicked any
	// startErr is why the process could not be started (or the stream
	// dialed); it is the transport's final error.
	startErr error
	// stopDial cancels a dial in progress.
	stopDial context.CancelFunc
}

// lifecycle tracks the orderly end of the subprocess (docs/architecture.md,
// "Shutdown"): every flag is set once, and the actor finishes when the
// process is reaped and both output streams are drained.
type lifecycle struct {
	closing    bool
	byUser     bool
	cause      error
	exited     bool
	exitStatus string
	readerDone bool
	stderrDone bool
	tail       string
	timers     []*time.Timer
}

func newStdioActor(cfg *StdioConfig, conn *Conn, owner *actor.PID, mailbox **ownMailbox) *stdioActor {
	a := &stdioActor{cfg: cfg, conn: conn, mailbox: mailbox}
	a.out = newBatchWriter(conn.budget, conn.stats, cfg.WriteStallTimeout)
	a.out.inFlight = conn.InFlight
	a.out.fence = cfg.Fence
	a.core = newRPCCore(cfg.Server, owner, cfg.Generation, a.out, cfg.Logger, conn.stats, conn.budget, conn.limits)
	return a
}

// Messages from the actor's own goroutines and timers.
type (
	readerDone  struct{ err error }
	stderrDone  struct{ tail string }
	procExited  struct{ status string }
	escalate    struct{ stage int }
	drainExpiry struct{}
	eofExpiry   struct{}
	dialed      struct {
		rwc io.ReadWriteCloser
		err error
	}
)

// errStoppedByParent is the cause when the actor system or a parent stops
// the transport without the orderly Close.
var errStoppedByParent = errors.New("transport actor stopped by its parent")

// errStdoutClosed is the cause when the server closed its stdout but did
// not exit: it can never answer again.
var errStdoutClosed = errors.New("the server closed its stdout")

// eofGrace is how long pending calls wait, after the server's stdout ends,
// for the process to exit, so that they fail with its exit status and
// stderr rather than a bare "stdout closed". A server that closes stdout
// and keeps running fails them after this, not after the close graces.
const eofGrace = 250 * time.Millisecond

const (
	stageTerm = iota
	stageKill
)

func (a *stdioActor) Receive(ctx actor.Context) {
	defer a.recoverPanic(ctx)
	switch m := ctx.Message().(type) {
	case *inbound:
		for _, msg := range m.msgs {
			a.core.dispatch(ctx, msg)
		}
		a.proc.releaseCredit(m.bytes)
		a.proc.recycleRun(m)
	case inboundBatch:
		a.core.batch(ctx, m.msgs)
		a.proc.releaseCredit(m.bytes)
	case readerNote:
		a.core.receive(ctx, m.msg)
		a.proc.releaseCredit(0)
	case *writeDone:
		// A copy first: the writer fills the same writeDone again once
		// it has its next batch, which this handling may give it.
		a.writeDone(ctx, *m)
	case writerIdleNote:
		a.out.idleNote(m)
	case writeStallCheck:
		if a.out.stalled() {
			a.fail(ctx, callerr.NewWriteStall(&callerr.Error{After: a.cfg.WriteStallTimeout}))
		}
	case *actor.Started:
		a.start(ctx)
	case dialed:
		a.dialed(ctx, m)
	case closeRequest:
		a.beginClose(ctx, m.cause, true)
	case forceClose:
		a.beginClose(ctx, nil, true)
		a.proc.signal(stageKill)
		if a.stopDial != nil && a.proc == nil {
			// A dialer that ignores its context is not waited for; a
			// stream it returns later is closed on arrival.
			a.state.readerDone = true
			a.maybeFinish(ctx)
		}
	case readerDone:
		a.state.readerDone = true
		if m.err != nil {
			a.cfg.Logger.Debug("mcp: stdout read ended", "server", a.cfg.Server, "err", m.err)
		}
		a.beginClose(ctx, nil, false)
		a.after(eofGrace, eofExpiry{})
		a.maybeFinish(ctx)
	case eofExpiry:
		// stdout is gone and the process has not been reaped: nothing
		// can answer the pending calls any more.
		if a.core.failed == nil {
			a.core.failAll(a.closedError(errStdoutClosed))
		}
	case stderrDone:
		a.state.stderrDone, a.state.tail = true, m.tail
		a.maybeFinish(ctx)
	case procExited:
		a.state.exited, a.state.exitStatus = true, m.status
		a.beginClose(ctx, nil, false)
		// A grandchild may still hold the pipes open; do not wait on it forever.
		a.after(a.cfg.TermGrace, drainExpiry{})
		a.maybeFinish(ctx)
	case escalate:
		if !a.state.exited {
			a.cfg.Logger.Info("mcp: server did not exit; signalling", "server", a.cfg.Server, "stage", m.stage)
			a.proc.closeStdin()
			a.proc.signal(m.stage)
			if m.stage == stageTerm {
				a.after(a.cfg.TermGrace, escalate{stage: stageKill})
			}
		}
	case drainExpiry:
		// The server exited TermGrace ago, yet its pipes are still held:
		// by a process it left behind (its group was killed as it exited,
		// processTree.wait, so one that left the group, or one the
		// platform could not reach). Kill what can still be reached (the
		// job on Windows; on Unix the server alone, now reaped: its group's
		// id may name a stranger's group by now, processTree), and stop
		// waiting for the pipes.
		a.proc.signal(stageKill)
		a.proc.closeOutputs()
	case injectedPanic:
		panic(m.value)
	case *actor.Stopping:
		a.stopping(ctx)
	case *actor.Stopped:
		a.stopTimers()
		if a.stopDial != nil {
			a.stopDial()
		}
		a.publish(a.stoppedError())
	default:
		a.core.receive(ctx, m)
	}
}

// recoverPanic logs a panic with its stack and lets it go on to protoactor,
// whose supervisor strategy (stopOnPanic) stops the actor: Stopping then
// kills and reaps the process and fails every pending call once. The stack
// is only available here, inside the deferred call of the panicking
// goroutine.
func (a *stdioActor) recoverPanic(ctx actor.Context) {
	if r := recover(); r != nil {
		a.panicked = r
		a.cfg.Logger.Error("mcp: transport actor panicked; stopping it", "server", a.cfg.Server,
			"panic", r, "stack", string(debug.Stack()))
		panic(r)
	}
}

// stopping runs when the actor is stopped from outside (a parent going
// away, or a panic): still never leave a process or a goroutine behind.
// The exit's reap follows the kill (waitThen); closing the pipes ends
// the writer, the reader and the drain even if something outside the
// group holds them.
func (a *stdioActor) stopping(ctx actor.Context) {
	if a.state.finished() {
		return // the orderly end got here first and did all this
	}
	err := a.stoppedError()
	a.core.failAll(err)
	if !a.state.exited && a.proc != nil {
		a.proc.signal(stageKill)
	}
	a.proc.closeStdin()
	a.proc.closeOutputs()
	a.out.stop()
	a.stopTimers()
	if a.core.owner != nil {
		ctx.Send(a.core.owner, TransportClosed{Err: err, Generation: a.cfg.Generation, Transport: a.conn.id})
	}
}

// stoppedError is the error of a transport stopped before its orderly end.
func (a *stdioActor) stoppedError() error {
	if a.state.finished() {
		return nil // published already
	}
	cause := errStoppedByParent
	if a.panicked != nil {
		cause = &PanicError{Value: a.panicked}
	}
	return callerr.NewTransportClosed(&callerr.Error{Server: a.cfg.Server, Cause: cause})
}

func (a *stdioActor) start(ctx actor.Context) {
	a.self = ctx.Self()
	if a.cfg.Dial != nil {
		a.dial()
		return
	}
	cmd := exec.Command(a.cfg.Command, a.cfg.Args...)
	proc, err := startProcess(cmd, a.cfg, a.conn, a.self)
	if err != nil {
		a.startErr = callerr.NewStart(&callerr.Error{Server: a.cfg.Server, Command: a.cfg.Command, Cause: unwrapStart(err)})
		a.cfg.Logger.Warn("mcp: could not start server", "server", a.cfg.Server, "err", a.startErr)
		a.state = lifecycle{closing: true, exited: true, readerDone: true, stderrDone: true}
		a.maybeFinish(ctx)
		return
	}
	a.cfg.Logger.Debug("mcp: server started", "server", a.cfg.Server, "command", a.cfg.Command, "pid", cmd.Process.Pid)
	a.proc = proc
	a.startWriter()
}

// startWriter starts the writer on the server's stdin. With our mailbox,
// frames wait for the end of each run of the actor (runEnded) rather
// than each going to the writer goroutine as it is queued.
func (a *stdioActor) startWriter() {
	mb := *a.mailbox
	a.out.start(a.proc.stdin, a.conn.root, a.self, mb)
	if mb != nil {
		a.out.atRunEnd = true
		mb.atRunEnd(a.runEnded)
	}
}

// runEnded is called by the mailbox as a run of the actor ends, on the
// goroutine that ran it, which still holds the actor: what the run
// queued is written (batchWriter.flushOwed), and stdin closed if the
// transport was waiting for that to close it.
func (a *stdioActor) runEnded() {
	if a.out.flushOwed() && a.state.closing {
		a.proc.closeStdin()
	}
}

// dial obtains the stream of a transport without a process, off the
// actor. Requests sent meanwhile wait in the write batch.
func (a *stdioActor) dial() {
	a.state.exited, a.state.stderrDone = true, true // no process, no stderr
	ctx, cancel := context.WithCancel(context.Background())
	a.stopDial = cancel
	root, self, dial := a.conn.root, a.self, a.cfg.Dial
	go func() {
		rwc, err := dial(ctx)
		root.Send(self, dialed{rwc: rwc, err: err})
	}()
}

func (a *stdioActor) dialed(ctx actor.Context, m dialed) {
	switch {
	case m.err != nil || m.rwc == nil:
		if m.rwc != nil {
			m.rwc.Close()
		}
		if m.err == nil {
			m.err = errors.New("the dialer returned no stream")
		}
		if !a.state.readerDone {
			a.startErr = callerr.NewStart(&callerr.Error{Server: a.cfg.Server, Cause: m.err})
			a.state.closing, a.state.readerDone = true, true
			a.maybeFinish(ctx)
		}
	case a.state.readerDone || a.core.failed != nil && a.state.closing:
		m.rwc.Close() // closed while dialing
		a.state.readerDone = true
		a.maybeFinish(ctx)
	default:
		a.proc = startStream(m.rwc, a.cfg, a.conn, a.self)
		a.startWriter()
		a.out.flush() // what was sent while dialing
		if a.state.closing && a.out.idle() {
			a.proc.closeStdin()
		}
	}
}

// unwrapStart keeps the operating system's own words of a failed start.
func unwrapStart(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

func (a *stdioActor) writeDone(ctx actor.Context, m writeDone) {
	if m.refused != nil {
		// Before done: it gives the batch's frames back for reuse.
		a.core.refuse(m.frames[m.sent:], m.refused)
	}
	a.out.done(m)
	if m.err != nil && !a.state.closing {
		// stdin is broken: nothing written from now on can reach the
		// server, so every pending call fails now, not at its timeout.
		a.fail(ctx, m.err)
		return
	}
	if a.state.closing && a.out.idle() {
		a.proc.closeStdin()
	}
}

// fail ends the connection after a fault of ours to see (a broken or
// stalled write): pending and new calls fail with cause at once, and the
// process is asked to exit as in a close.
func (a *stdioActor) fail(ctx actor.Context, cause error) {
	if a.core.failed != nil {
		return
	}
	a.cfg.Logger.Warn("mcp: connection failed", "server", a.cfg.Server, "err", cause)
	a.state.cause = cause
	a.core.failAll(a.closedError(cause))
	a.out.stop()
	a.beginClose(ctx, nil, false)
	a.proc.closeStdin()
}

// closedError is the error pending calls get before the process is gone.
func (a *stdioActor) closedError(cause error) error {
	return callerr.NewTransportClosed(&callerr.Error{Server: a.cfg.Server, Cause: cause})
}

// beginClose starts the shutdown sequence once: no new requests, stdin
// closed when the writer has flushed, then SIGTERM and SIGKILL on timers.
func (a *stdioActor) beginClose(ctx actor.Context, cause error, byUser bool) {
	if a.state.closing {
		return
	}
	a.state.closing, a.state.byUser = true, byUser
	if cause != nil {
		a.state.cause = cause
	}
	if byUser {
		// The caller asked: pending requests end now, not after the grace.
		a.core.failAll(callerr.NewTransportClosed(&callerr.Error{Server: a.cfg.Server, Cause: cause, Closed: cause == nil}))
	}
	if a.proc == nil {
		return
	}
	if a.out.idle() {
		a.proc.closeStdin()
	}
	a.after(a.cfg.CloseGrace, escalate{stage: stageTerm})
}

// finished reports whether the orderly end has been reached.
func (s *lifecycle) finished() bool { return s.exited && s.readerDone && s.stderrDone }

func (a *stdioActor) maybeFinish(ctx actor.Context) {
	s := &a.state
	if !s.finished() {
		return
	}
	var err error = callerr.NewTransportClosed(&callerr.Error{Server: a.cfg.Server, Cause: s.cause, ExitStatus: s.exitStatus,
		Stderr: redact.Text(s.tail, a.conn.skipped.secretValues()...), Stdout: a.conn.skipped.excerpt()})
	if s.byUser && s.cause == nil {
		// An asked-for close is not a failure.
		err = callerr.NewTransportClosed(&callerr.Error{Server: a.cfg.Server, Closed: true})
	}
	if a.startErr != nil {
		err = a.startErr // nothing ran: no exit status, no stderr
	}
	if a.stopDial != nil {
		a.stopDial()
	}
	a.cfg.Logger.Debug("mcp: transport ended", "server", a.cfg.Server, "exit_status", s.exitStatus, "asked", s.byUser, "err", err)
	a.core.failAll(err)
	// A write may still be blocked on a pipe that a grandchild holds open
	// and never reads: closing stdin ends it, and with it the writer.
	a.proc.closeStdin()
	a.out.stop()
	if a.core.owner != nil {
		ctx.Send(a.core.owner, TransportClosed{Err: err, Generation: a.cfg.Generation, Transport: a.conn.id})
	}
	a.publish(err)
	ctx.Stop(a.self)
}

// publish records the final error and releases everyone waiting on Done.
func (a *stdioActor) publish(err error) {
	select {
	case <-a.conn.end.done:
		return
	default:
	}
	if err == nil {
		err = callerr.NewTransportClosed(&callerr.Error{Server: a.cfg.Server})
	}
	a.conn.end.err, a.conn.end.byUser = err, a.state.byUser
	close(a.conn.end.done)
	a.conn.end.endLife()
}

func (a *stdioActor) after(d time.Duration, msg any) {
	root, self := a.conn.root, a.self
	a.state.timers = append(a.state.timers, time.AfterFunc(d, func() { root.Send(self, msg) }))
}

func (a *stdioActor) stopTimers() {
	for _, t := range a.state.timers {
		t.Stop()
	}
}
