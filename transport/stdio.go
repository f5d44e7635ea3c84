package transport

import (
	"errors"
	"log/slog"
	"os/exec"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/messages"
)

// StdioConfig describes an MCP server run as a subprocess that speaks JSON
// Lines on stdin and stdout (basic/transports, "stdio"). The zero values of
// the tuning fields select the documented defaults.
type StdioConfig struct {
	Server  string            // the server's name, used in errors and logs
	Command string            // program to run; no shell is involved
	Args    []string          // its arguments
	Env     map[string]string // set on top of the parent's environment
	Dir     string            // working directory; "" = the parent's

	RequestTimeout time.Duration // default DefaultRequestTimeout
	MaxInFlight    int           // default DefaultMaxInFlight
	MaxFrameSize   int           // default DefaultMaxFrameSize (16 MiB)
	StderrLimit    int           // bytes of stderr kept for errors; default 64 KiB
	CloseGrace     time.Duration // wait after closing stdin before SIGTERM; default 2 s
	TermGrace      time.Duration // wait after SIGTERM before SIGKILL; default 2 s

	// StderrLine, if set, receives each line the server writes to stderr,
	// in order, on a goroutine of its own. A callback slower than the
	// server's output loses lines (Stats.DroppedStderrLines) rather than
	// blocking the server.
	StderrLine func(line string)
	// OnDrop, if set, hears of each frame dropped or refused, by reason
	// ("malformed", "oversized", "unknown_id", "late_response",
	// "progress", "batch"); Stats has the totals. It runs on the reader
	// goroutine or in the actor and must not block.
	OnDrop func(reason string)
	// Logger reports dropped input and lifecycle events; nil discards.
	Logger *slog.Logger
}

func (c *StdioConfig) setDefaults() {
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = DefaultMaxInFlight
	}
	if c.MaxFrameSize <= 0 {
		c.MaxFrameSize = DefaultMaxFrameSize
	}
	if c.StderrLimit <= 0 {
		c.StderrLimit = 64 << 10
	}
	if c.CloseGrace <= 0 {
		c.CloseGrace = 2 * time.Second
	}
	if c.TermGrace <= 0 {
		c.TermGrace = 2 * time.Second
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
	conn := &Conn{
		server:  cfg.Server,
		root:    root,
		slots:   make(chan struct{}, cfg.MaxInFlight),
		timeout: cfg.RequestTimeout,
		end:     &ending{done: make(chan struct{})},
		inbound: make(chan struct{}, inboundCredits),
		stats:   &counters{onDrop: cfg.OnDrop},
	}
	props := actor.PropsFromProducer(func() actor.Actor {
		return newStdioActor(cfg, conn, owner)
	})
	conn.pid = parent.Spawn(props)
	return conn
}

// stdioActor owns one subprocess: its pipes, the pending table (through
// rpcCore) and the write side. Blocking I/O happens on its goroutines
// (reader, writer, stderr drain, waiter), which report back as messages.
type stdioActor struct {
	cfg   StdioConfig
	conn  *Conn
	core  rpcCore
	self  *actor.PID
	proc  *process
	out   *batchWriter
	state lifecycle
}

// lifecycle tracks the orderly end of the subprocess (behaviour.md §4,
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

func newStdioActor(cfg StdioConfig, conn *Conn, owner *actor.PID) *stdioActor {
	a := &stdioActor{cfg: cfg, conn: conn}
	a.out = &batchWriter{}
	a.core = newRPCCore(cfg.Server, owner, a.out, cfg.Logger, conn.stats)
	return a
}

// Messages from the actor's own goroutines and timers.
type (
	readerDone  struct{ err error }
	stderrDone  struct{ tail string }
	procExited  struct{ status string }
	escalate    struct{ stage int }
	drainExpiry struct{}
)

// errStoppedByParent is the cause when the actor system or a parent stops
// the transport without the orderly Close.
var errStoppedByParent = errors.New("transport actor stopped by its parent")

const (
	stageTerm = iota
	stageKill
)

func (a *stdioActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case inbound:
		for _, msg := range m.msgs {
			a.core.dispatch(ctx, msg)
		}
		a.proc.releaseCredit()
	case inboundBatch:
		a.core.batch(ctx, m.msgs)
		a.proc.releaseCredit()
	case writeDone:
		a.writeDone(m)
	case *actor.Started:
		a.start(ctx)
	case closeRequest:
		a.beginClose(ctx, nil, true)
	case forceClose:
		a.beginClose(ctx, nil, true)
		a.proc.signal(stageKill)
	case readerDone:
		a.state.readerDone = true
		if m.err != nil {
			a.cfg.Logger.Debug("mcp: stdout read ended", "server", a.cfg.Server, "err", m.err)
		}
		a.beginClose(ctx, nil, false)
		a.maybeFinish(ctx)
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
		// by a process it left behind in its group (a wrapper's child).
		// Kill the group so nothing outlives the transport, and stop
		// waiting for the pipes. (Linux does not reuse a process group
		// id while the group has members, so the signal cannot stray.)
		a.proc.signal(stageKill)
		a.proc.closeOutputs()
	case *actor.Stopping:
		// Stopped from outside (a parent going away): still never leave a
		// process or a goroutine behind. The waiter reaps the killed
		// process; closing the pipes ends the writer, the reader and the
		// drain even if something outside the group holds them.
		a.core.failAll(&messages.TransportClosedError{Server: a.cfg.Server, Cause: errStoppedByParent})
		if !a.state.exited && a.proc != nil {
			a.proc.signal(stageKill)
		}
		a.proc.closeStdin()
		a.proc.closeOutputs()
		a.out.stop()
	case *actor.Stopped:
		a.stopTimers()
		a.publish(nil)
	default:
		a.core.receive(ctx, m)
	}
}

func (a *stdioActor) start(ctx actor.Context) {
	a.self = ctx.Self()
	cmd := exec.Command(a.cfg.Command, a.cfg.Args...)
	proc, err := startProcess(cmd, a.cfg, a.conn.stats, a.conn.inbound, a.conn.root, a.self, a.conn.end.done)
	if err != nil {
		a.state = lifecycle{closing: true, cause: err, exited: true, readerDone: true, stderrDone: true}
		a.maybeFinish(ctx)
		return
	}
	a.proc = proc
	a.out.start(proc.stdin, a.conn.root, a.self, a.conn.stats, a.cfg.Server)
}

func (a *stdioActor) writeDone(m writeDone) {
	if m.err != nil && !a.state.closing {
		err := &messages.TransportClosedError{Server: a.cfg.Server, Cause: m.err}
		a.core.failIDs(m.ids, err)
		a.state.cause = m.err
		a.proc.closeStdin()
		a.state.closing = true
		a.after(a.cfg.CloseGrace, escalate{stage: stageTerm})
		a.core.failed = err
	}
	a.out.done(m)
	if a.state.closing && a.out.idle() {
		a.proc.closeStdin()
	}
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
		a.core.failAll(&messages.TransportClosedError{Server: a.cfg.Server})
	}
	if a.proc == nil {
		return
	}
	if a.out.idle() {
		a.proc.closeStdin()
	}
	a.after(a.cfg.CloseGrace, escalate{stage: stageTerm})
}

func (a *stdioActor) maybeFinish(ctx actor.Context) {
	s := &a.state
	if !s.exited || !s.readerDone || !s.stderrDone {
		return
	}
	err := &messages.TransportClosedError{Server: a.cfg.Server, Cause: s.cause, ExitStatus: s.exitStatus, StderrTail: s.tail}
	if s.byUser && s.cause == nil {
		err.ExitStatus, err.StderrTail = "", "" // an asked-for close is not a failure
	}
	a.core.failAll(err)
	// A write may still be blocked on a pipe that a grandchild holds open
	// and never reads: closing stdin ends it, and with it the writer.
	a.proc.closeStdin()
	a.out.stop()
	if a.core.owner != nil {
		ctx.Send(a.core.owner, messages.TransportClosed{Err: err})
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
		err = &messages.TransportClosedError{Server: a.cfg.Server}
	}
	a.conn.end.err, a.conn.end.byUser = err, a.state.byUser
	close(a.conn.end.done)
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
