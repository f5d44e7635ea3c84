package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// wireClient is the practical limit: a minimal hand-written pipelined
// JSON-RPC client over the server's stdio, with no MCP library. Requests are
// written under a mutex with group commit (the last writer queued flushes,
// so concurrent requests share a write system call), and one reader
// goroutine decodes each response with encoding/json and hands it to the
// waiting caller through a pending map of channels.
//
// It speaks both eras, as a dual-era client over stdio should: it asks
// server/discover first; if the server offers 2026-07-28 it speaks that
// (no initialize, and every request carries the version, the client's
// capabilities and its identity in _meta), and otherwise it does
// initialize and notifications/initialized.
type wireClient struct {
	proc *measure.Proc

	wmu     sync.Mutex
	bw      *bufio.Writer
	waiting atomic.Int32
	werr    error // first write error; guarded by wmu

	nextID atomic.Int64

	pmu     sync.Mutex
	pending map[int64]chan wireResult
	rerr    error // why the reader stopped; guarded by pmu, set once

	readDone chan struct{}
	version  string // the version spoken: offered by discover, or the answer to initialize
	// tail ends every tools/call line after its arguments: the era's
	// _meta, if any, and the closing braces.
	tail string
}

type wireResult struct {
	text string
	err  error
}

// wireMessage is what the reader decodes: a response, or a message we skip.
type wireMessage struct {
	ID *int64 `json:"id"`
	measure.WireReply
}

// The protocol versions the wire client speaks: the stateless era's and
// the session era's newest.
const (
	versionModern  = "2026-07-28"
	versionSession = "2025-11-25"
	modernMeta     = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + versionModern + `",` +
		`"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"bench-wire","version":"0.0.1"}}`
)

var resultChans = sync.Pool{New: func() any { return make(chan wireResult, 1) }}

func dialWire(ctx context.Context, s measure.StdioServer) (measure.Client, error) {
	cmd := s.Command()
	cmd.Stderr = io.Discard
	p, err := measure.StartProc(cmd)
	if err != nil {
		return nil, err
	}
	w := &wireClient{
		proc:     p,
		bw:       bufio.NewWriterSize(p.Stdin, 64<<10),
		pending:  make(map[int64]chan wireResult),
		readDone: make(chan struct{}),
	}
	sc := bufio.NewScanner(p.Stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)

	if err := w.handshake(ctx, sc); err != nil {
		p.Kill()
		return nil, fmt.Errorf("wire handshake: %w", err)
	}
	go w.readLoop(sc)
	return w, nil
}

// handshake, before the reader goroutine starts: server/discover (id 0);
// if the server offers 2026-07-28 nothing more, else initialize (id 1),
// its answer, and notifications/initialized. Calls take ids from 2.
func (w *wireClient) handshake(ctx context.Context, sc *bufio.Scanner) error {
	w.nextID.Store(1)
	if err := w.send([]byte(`{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{` + modernMeta + "}}\n")); err != nil {
		return err
	}
	m, err := await(ctx, sc, 0)
	if err != nil {
		return fmt.Errorf("server/discover: %w", err)
	}
	if m.Error == nil && m.Result != nil && slices.Contains(m.Result.SupportedVersions, versionModern) {
		w.version, w.tail = versionModern, ","+modernMeta+"}}\n"
		return nil
	}

	// The session era: any error from discover, or no version of ours.
	if err := w.send([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + versionSession + `",` +
		`"capabilities":{},"clientInfo":{"name":"bench-wire","version":"0.0.1"}}}` + "\n")); err != nil {
		return err
	}
	if m, err = await(ctx, sc, 1); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if m.Error != nil {
		return fmt.Errorf("initialize: %d %s", m.Error.Code, m.Error.Message)
	}
	if m.Result != nil {
		w.version = m.Result.ProtocolVersion
	}
	w.tail = "}}\n"
	return w.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
}

// await reads lines until the response with the given id, skipping any
// other line (a banner, noise, notifications), or until ctx ends.
func await(ctx context.Context, sc *bufio.Scanner, id int64) (*wireMessage, error) {
	got := make(chan *wireMessage, 1)
	go func() {
		for sc.Scan() {
			var m wireMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.ID != nil && *m.ID == id && m.Method == "" {
				got <- &m
				return
			}
		}
		got <- nil
	}()
	select {
	case m := <-got:
		if m == nil {
			return nil, fmt.Errorf("stdout ended: %v", sc.Err())
		}
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// send writes one line; concurrent senders are coalesced into one flush.
func (w *wireClient) send(line []byte) error {
	w.waiting.Add(1)
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if w.werr == nil {
		_, w.werr = w.bw.Write(line)
	}
	if w.waiting.Add(-1) == 0 && w.werr == nil {
		w.werr = w.bw.Flush()
	}
	return w.werr
}

func (w *wireClient) Call(ctx context.Context, msg string) (string, error) {
	id := w.nextID.Add(1)
	ch := resultChans.Get().(chan wireResult)

	w.pmu.Lock()
	if w.rerr != nil {
		err := w.rerr
		w.pmu.Unlock()
		return "", err
	}
	w.pending[id] = ch
	w.pmu.Unlock()

	line := measure.AppendEchoCall(make([]byte, 0, 128+len(msg)+len(w.tail)), id, msg)
	line = append(line, w.tail...)
	if err := w.send(line); err != nil {
		w.forget(id)
		return "", err
	}

	select {
	case r := <-ch:
		resultChans.Put(ch)
		return r.text, r.err
	case <-ctx.Done():
		// The channel may still receive the answer; it is not reused.
		w.forget(id)
		return "", ctx.Err()
	}
}

func (w *wireClient) forget(id int64) {
	w.pmu.Lock()
	delete(w.pending, id)
	w.pmu.Unlock()
}

func (w *wireClient) readLoop(sc *bufio.Scanner) {
	defer close(w.readDone)
	for sc.Scan() {
		var m wireMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.ID == nil || m.Method != "" {
			continue // not a response to us (this client answers no server requests)
		}
		w.pmu.Lock()
		ch, ok := w.pending[*m.ID]
		delete(w.pending, *m.ID)
		w.pmu.Unlock()
		if !ok {
			continue
		}
		var r wireResult
		r.text, r.err = m.EchoText()
		ch <- r
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	w.pmu.Lock()
	w.rerr = fmt.Errorf("wire: server stdout ended: %w", err)
	for id, ch := range w.pending {
		ch <- wireResult{err: w.rerr}
		delete(w.pending, id)
	}
	w.pmu.Unlock()
}

// Protocol is the version spoken: 2026-07-28 when discover offered it, else
// the server's answer to initialize.
func (w *wireClient) Protocol() string { return w.version }

// Close closes stdin, which ends the server, and waits for it (killing it
// after 5 s).
func (w *wireClient) Close(context.Context) error {
	w.wmu.Lock()
	err := w.proc.Stdin.Close()
	w.wmu.Unlock()
	err = errors.Join(err, w.proc.Wait(5*time.Second))
	<-w.readDone
	return err
}
