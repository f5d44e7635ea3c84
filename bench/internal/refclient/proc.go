package refclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"

	"github.com/mcpactor/mcpactor/bench/internal/jsonscan"
)

// MaxLine is the longest line (one JSON-RPC message) the clients read;
// a longer one ends the session, as it would with any client that bounds
// its memory. It leaves room for a 16 MiB text and its escapes.
const MaxLine = 32 << 20

// ProtocolVersion is the version the clients ask for in initialize.
const ProtocolVersion = "2025-11-25"

const initializeLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` +
	ProtocolVersion + `","capabilities":{},"clientInfo":{"name":"ref","version":"0"}}}` + "\n"

const initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// StatelessVersion is the version the clients speak with Options.Stateless.
const StatelessVersion = "2026-07-28"

// statelessMeta is the _meta member of every request with
// Options.Stateless: the version, the (empty) capabilities and the
// client's identity, which the 2026-07-28 revision has every request
// carry (https://modelcontextprotocol.io/specification/2026-07-28/basic/index).
const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + StatelessVersion +
	`","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"ref","version":"0"}}`

const discoverLine = `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{` + statelessMeta + `}}` + "\n"

// Options are how a client starts.
type Options struct {
	// Stateless speaks the 2026-07-28 revision instead of the session
	// era: server/discover, whose answer must list 2026-07-28, instead of
	// the initialize handshake, and statelessMeta in every request's
	// params.
	Stateless bool
}

// paramsHead is the start of a tools/call's params, up to the name's
// value.
func (o Options) paramsHead() string {
	if o.Stateless {
		return `,"method":"tools/call","params":{` + statelessMeta + `,"name":`
	}
	return `,"method":"tools/call","params":{"name":`
}

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("refclient: closed")

// lineReader splits the server's stdout into lines in its own buffer, so
// that the reader goroutine knows when it has consumed everything one
// read system call brought (and can then hand its batch of work on, and
// take one timestamp for all of it) instead of hiding that behind
// bufio.
type lineReader struct {
	r          io.Reader
	buf        []byte
	start, end int // buf[start:end] is unread
	scanned    int // buf[start:scanned] holds no newline
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: r, buf: make([]byte, 64<<10)}
}

// next returns the next complete line (without its newline), or nil if
// the buffer holds none. The line is valid until the next fill.
func (l *lineReader) next() []byte {
	if l.scanned < l.start {
		l.scanned = l.start
	}
	k := bytes.IndexByte(l.buf[l.scanned:l.end], '\n')
	if k < 0 {
		l.scanned = l.end
		return nil
	}
	line := l.buf[l.start : l.scanned+k]
	l.start = l.scanned + k + 1
	l.scanned = l.start
	return line
}

// fill reads once more from the server, making room first: the partial
// line is moved to the front, and the buffer doubles when the partial
// line fills it, up to MaxLine.
func (l *lineReader) fill() error {
	if l.start == l.end {
		l.start, l.end, l.scanned = 0, 0, 0
	}
	if l.end == len(l.buf) {
		if l.start > 0 {
			n := copy(l.buf, l.buf[l.start:l.end])
			l.scanned -= l.start
			l.start, l.end = 0, n
		} else {
			if len(l.buf) >= MaxLine {
				return fmt.Errorf("refclient: a message from the server is longer than %d bytes", MaxLine)
			}
			nb := make([]byte, min(2*len(l.buf), MaxLine))
			copy(nb, l.buf[:l.end])
			l.buf = nb
		}
	}
	n, err := l.r.Read(l.buf[l.end:])
	l.end += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// A writer is the one goroutine that writes to the server's stdin. Callers
// append their requests to pend under mu and wake it; it takes everything
// queued so far and writes it with one system call, so that requests made
// while a write is under way share the next one. Callers never wait for
// the pipe: a server that is slow to read holds up the writer only, and a
// caller's timeout still fires.
type writer struct {
	w     io.Writer
	onErr func(error) // called once, on the writer goroutine, when a write fails

	mu   sync.Mutex
	pend []byte
	err  error // the first write error, or ErrClosed; guarded by mu

	wake chan struct{} // capacity 1: one wake-up stands for any number of queued requests
	stop chan struct{}
	done chan struct{}
}

func newWriter(w io.Writer, onErr func(error)) *writer {
	wr := &writer{
		w:     w,
		onErr: onErr,
		wake:  make(chan struct{}, 1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go wr.loop()
	return wr
}

// queue appends with add under the lock and wakes the writer. It fails
// once a write has failed or the writer is stopped.
func (wr *writer) queue(add func([]byte) []byte) error {
	wr.mu.Lock()
	if wr.err != nil {
		err := wr.err
		wr.mu.Unlock()
		return err
	}
	wr.pend = add(wr.pend)
	wr.mu.Unlock()
	select {
	case wr.wake <- struct{}{}:
	default:
	}
	return nil
}

func (wr *writer) loop() {
	defer close(wr.done)
	var out []byte
	for {
		select {
		case <-wr.wake:
		case <-wr.stop:
			return
		}
		wr.mu.Lock()
		out, wr.pend = wr.pend, out[:0]
		wr.mu.Unlock()
		if len(out) == 0 {
			continue
		}
		if _, err := wr.w.Write(out); err != nil {
			// The requests of this write are lost: the client is told,
			// so that their callers do not wait for answers that will
			// never come.
			err = fmt.Errorf("refclient: writing to the server: %w", err)
			wr.mu.Lock()
			first := wr.err == nil
			if first {
				wr.err = err
			}
			wr.mu.Unlock()
			if first {
				wr.onErr(err)
			}
			return
		}
	}
}

// close stops the writer; what is still queued is dropped. If the writer
// is stuck in a write to a server that does not read, closing the pipe
// (which the caller does next) unblocks it.
func (wr *writer) close() {
	wr.mu.Lock()
	if wr.err == nil {
		wr.err = ErrClosed
	}
	wr.mu.Unlock()
	select {
	case <-wr.stop:
	default:
		close(wr.stop)
	}
}

// appendMethodNotFound appends the answer to a server's request: the
// clients offer no capabilities, so every request is a method they do not
// have.
func appendMethodNotFound(b, id []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	return append(b, `,"error":{"code":-32601,"message":"Method not found"}}`+"\n"...)
}

// proc is the server process and its pipes, after the handshake.
type proc struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	stdout   io.ReadCloser
	lr       *lineReader
	protocol string
	opts     Options
}

// startProc starts cmd and does the MCP handshake on its pipes, before any
// goroutine of the client runs: initialize, its answer (the
// protocolVersion kept), notifications/initialized. ctx bounds it: when it
// ends first, the process is killed, which ends the blocked read or write.
func startProc(ctx context.Context, cmd *exec.Cmd, opts Options) (*proc, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		stdin.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, stdin: stdin, stdout: stdout, lr: newLineReader(stdout), opts: opts}
	stopKill := context.AfterFunc(ctx, func() { cmd.Process.Kill() })
	err = p.handshake()
	if !stopKill() {
		err = fmt.Errorf("refclient: handshake: %w", context.Cause(ctx))
	}
	if err != nil {
		p.stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	return p, nil
}

func (p *proc) handshake() error {
	first, what := initializeLine, "initialize"
	if p.opts.Stateless {
		first, what = discoverLine, "server/discover"
	}
	if _, err := io.WriteString(p.stdin, first); err != nil {
		return fmt.Errorf("refclient: %s: %w", what, err)
	}
	var a answer
	for {
		line := p.lr.next()
		if line == nil {
			if err := p.lr.fill(); err != nil {
				return fmt.Errorf("refclient: %s: reading the answer: %w", what, err)
			}
			continue
		}
		if !parseAnswer(line, &a) {
			continue
		}
		if a.method {
			if a.id != nil {
				if _, err := p.stdin.Write(appendMethodNotFound(nil, a.id)); err != nil {
					return fmt.Errorf("refclient: %s: %w", what, err)
				}
			}
			continue
		}
		if id, ok := parseID(a.id); !ok || id != 0 {
			continue
		}
		if a.rpcErr {
			msg, _ := jsonscan.Unescape(a.message)
			return fmt.Errorf("refclient: %s: %w", what, &RPCError{Code: a.code, Message: msg})
		}
		if p.opts.Stateless {
			// The answer's supportedVersions must list the version;
			// nothing else in it is read.
			if !bytes.Contains(line, []byte(`"`+StatelessVersion+`"`)) {
				return fmt.Errorf("refclient: server/discover: the server does not offer %s", StatelessVersion)
			}
			p.protocol = StatelessVersion
			return nil
		}
		if a.proto == nil {
			return errors.New("refclient: initialize: the answer has no protocolVersion")
		}
		p.protocol, _ = jsonscan.Unescape(a.proto)
		break
	}
	if _, err := io.WriteString(p.stdin, initializedLine); err != nil {
		return fmt.Errorf("refclient: notifications/initialized: %w", err)
	}
	return nil
}

// close ends the process: stdin closed (the polite way to stop an MCP
// stdio server), then waiting for it to exit, killing it when ctx ends
// first. cmd.Wait closes stdout too, which ends the reader goroutine even
// when a grandchild still holds the pipe.
func (p *proc) close(ctx context.Context) error {
	p.stdin.Close()
	waited := make(chan error, 1)
	go func() { waited <- p.cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			return fmt.Errorf("refclient: server: %w", err)
		}
		return nil
	case <-ctx.Done():
		p.cmd.Process.Kill()
		<-waited
		return fmt.Errorf("refclient: server killed after the grace period: %w", context.Cause(ctx))
	}
}

// RPCError is a JSON-RPC error answer.
type RPCError struct {
	Code    int64
	Message string
}

func (e *RPCError) Error() string {
	return "rpc error " + strconv.FormatInt(e.Code, 10) + ": " + e.Message
}

// ToolError is a tools/call result with isError true; Text is the text of
// its first content item, if any.
type ToolError struct {
	Text string
}

func (e *ToolError) Error() string { return "tool error: " + e.Text }

// ErrNoText is returned for a result whose first content item is not text.
var ErrNoText = errors.New("refclient: the result's first content item is not text")
