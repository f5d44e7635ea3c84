// Package testserver is a small MCP server speaking JSON lines (one
// JSON-RPC 2.0 message per line) over stdio, or Streamable HTTP and the
// legacy HTTP+SSE transport, built for mcpactor's tests, its demo and its
// benchmarks.
//
// Its tools exercise the client runtime (echo, sleep, progress, server to
// client requests, notifications, crashes...), and Options injects the
// faults a robust client must survive (banners, noise, huge or endless
// lines, out-of-order answers, hangs, exits; over HTTP: expired sessions,
// 5xx, broken streams, bodies that are not JSON or never end...). Serve
// runs it in-process over any reader and writer, NewHTTPHandler as an
// http.Handler (for net/http/httptest); Main, RunIfChild and Command run
// it as a child process, usually the test binary re-executing itself, over
// stdio or, with Options.HTTPAddr, HTTP (ReadURL reads its address).
//
// ServeSpec and NewSpecHandler serve a catalogue the caller declares (a
// Spec: tools whose Run gets a *Call, resources, prompts, extra methods, an
// observer of what arrives, a Hub that notifies the clients of the servers
// running it and changes their catalogue) with the same request handling
// and faults:
// the public test kit, transport/mcptest, is built on them, so every test
// of this module that runs a test server exercises the kit's engine.
// Options.Stateless adds the 2026-07-28 revision (stateless.go).
package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Serve runs the server, reading requests from in and writing messages to
// out and diagnostics to errOut, until in ends or ctx is cancelled.
//
// It returns nil when in reaches EOF or ctx is cancelled, an *ExitError
// when a fault or the crash tool would have ended the process (Serve never
// exits the process itself), or the read or write error that stopped it.
// Requests still in progress when it stops are abandoned unanswered.
//
// Serve does not return before all its goroutines have ended. When ctx is
// cancelled it closes in, if in is an io.Closer, so that a blocked read
// returns. The caller must keep reading out and errOut until Serve returns,
// as with any child process's pipes.
func Serve(ctx context.Context, in io.Reader, out io.Writer, errOut io.Writer, opts Options) error {
	return newServer(opts, nil, out, errOut, nil).run(ctx, in)
}

// server is one running test server: Serve's and Main's state.
type server struct {
	opts     Options
	spec     *Spec // what it offers; DefaultSpec for Serve
	out      *output
	errOut   *errWriter
	exitHook func(code int) // ends the process (Main) or the Serve call
	tools    []*Tool
	own      Catalog // the spec's catalogue, which a Hub's replaces

	ctx  context.Context // cancelled when the server stops
	stop context.CancelCauseFunc
	wg   sync.WaitGroup // request workers and helper goroutines
	work chan func()    // requests for idle workers; unbuffered

	reorder chan []byte // tools/call responses for the OutOfOrder fault

	mu        sync.Mutex
	inflight  map[string]*inflightEntry // client requests being handled, by idKey
	pending   map[string]chan *message  // server requests awaiting the client, by id
	parked    map[string]*parked        // stateless calls awaiting a retry, by requestState
	bcast     outlet                    // where Hub.Notify goes: stdout, a session's GET stream; nil: listeners
	listeners map[*request]outlet       // open subscriptions/listen streams
	tasks     map[string]*task          // the tasks extension's tasks, by id

	nextServerID atomic.Int64
	toolCalls    atomic.Int64 // tools/call requests received
	toolLists    atomic.Int64 // tools/list requests received (FailToolsList)

	stopReading atomic.Bool // set by stop-reading: the read loop stops
	initialized atomic.Bool // notifications/initialized has arrived
	rawOut      io.Writer   // stdout itself, for close-stdout
}

// newServer builds a server. exitHook ends the process; nil means running
// in-process, where an exit stops Serve with an *ExitError instead.
func newServer(opts Options, spec *Spec, out, errOut io.Writer, exitHook func(int)) *server {
	if spec == nil {
		spec = DefaultSpec(opts)
	}
	if out == nil {
		out = io.Discard
	}
	rawOut := out
	if errOut == nil {
		errOut = io.Discard
	}
	s := &server{
		opts:     opts,
		errOut:   &errWriter{w: errOut},
		exitHook: exitHook,
		spec:     spec,
		tools:    spec.Tools,
		work:     make(chan func()),
		inflight: make(map[string]*inflightEntry),
		pending:  make(map[string]chan *message),
		parked:   make(map[string]*parked),
		rawOut:   rawOut,
	}
	s.own = Catalog{Tools: spec.Tools, Resources: spec.Resources, ResourceTemplates: spec.ResourceTemplates, Prompts: spec.Prompts}
	s.out = newOutput(out, opts.NoiseEvery, func(err error) {
		s.stop(fmt.Errorf("testserver: writing stdout: %w", err))
	})
	if s.exitHook == nil {
		s.exitHook = func(code int) {
			s.out.drop()
			s.stop(&ExitError{Code: code})
		}
	}
	return s
}

// run serves until in ends, ctx is cancelled or the server exits, then
// stops everything it started.
func (s *server) run(parent context.Context, in io.Reader) error {
	s.ctx, s.stop = context.WithCancelCause(parent)
	defer s.stop(nil)
	s.bcast = s.out
	s.joinHub()
	defer s.leaveHub()

	if s.opts.ExitAtStart {
		s.exit(s.opts.ExitCode, s.opts.StderrOnExit)
		return s.result(nil)
	}
	s.writeBanner()
	s.floodStderr()
	if s.opts.OutOfOrder {
		s.reorder = make(chan []byte)
		s.wg.Add(1)
		go s.reorderLoop()
	}

	readDone := make(chan error, 1)
	go func() { readDone <- s.readLoop(in) }()

	var readErr error
	select {
	case readErr = <-readDone:
		if readErr == nil && s.opts.IgnoreSIGTERM {
			// The fault asks to outlive stdin: keep the requests in
			// progress going until told to stop. The ticker keeps the Go
			// runtime from taking an idle process for a deadlock (and
			// exiting with status 2) when nothing else is running.
			tick := time.NewTicker(time.Hour)
			defer tick.Stop()
			for s.ctx.Err() == nil {
				select {
				case <-s.ctx.Done():
				case <-tick.C:
				}
			}
		}
	case <-s.ctx.Done():
		if c, ok := in.(io.Closer); ok {
			_ = c.Close()
		}
		readErr = <-readDone
	}

	// Stop: nothing in progress is finished or answered.
	s.out.drop()
	s.stop(nil)
	s.wg.Wait()
	return s.result(readErr)
}

// result chooses Serve's return value once everything has stopped.
func (s *server) result(readErr error) error {
	if e, ok := context.Cause(s.ctx).(*ExitError); ok {
		return e
	}
	if err := s.out.writeErr(); err != nil {
		return err
	}
	if readErr != nil {
		return fmt.Errorf("testserver: reading stdin: %w", readErr)
	}
	return nil
}

// exit writes stderrText and ends the server with code.
func (s *server) exit(code int, stderrText string) {
	s.out.flushBeforeExit()
	if stderrText != "" {
		s.errOut.writeString(withNewline(stderrText))
	}
	s.exitHook(code)
}

// handleLine decodes one line read from stdin and routes it.
func (s *server) handleLine(line []byte) {
	var m message
	if !parseMessage(line, &m) {
		s.sendError(s.out, nil, decodeError(line))
		return
	}
	s.observe(&m, nil)
	s.handleMessage(&m, s.out)
}

// parseMessage decodes one JSON-RPC message into m, the fast way when it
// can, and reports whether it was one.
func parseMessage(b []byte, m *message) bool {
	if decodeMessage(b, m) {
		return true
	}
	*m = message{}
	return json.Unmarshal(b, m) == nil
}

// messageKind is what a decoded message is, for routing.
type messageKind int

const (
	kindInvalid messageKind = iota
	kindRequest
	kindNotification
	kindResponse
)

// kind classifies m; a request whose id is null is invalid.
func (m *message) kind() messageKind {
	switch {
	case m.Method != "" && len(m.ID) > 0:
		if string(m.ID) == "null" {
			return kindInvalid
		}
		return kindRequest
	case m.Method != "":
		return kindNotification
	case len(m.ID) > 0 && (m.Result != nil || m.Error != nil):
		return kindResponse
	}
	return kindInvalid
}

// handleMessage routes one message; the answer to a request, and whatever
// handling it sends the client, goes to out (stdout, or the HTTP answer of
// the POST that carried it).
func (s *server) handleMessage(m *message, out outlet) {
	switch m.kind() {
	case kindRequest:
		s.startRequest(m, out)
	case kindNotification:
		s.handleNotification(m)
	case kindResponse:
		s.routeResponse(m)
	default:
		s.sendError(out, invalidID(m), invalidRequestError(m))
	}
}

// invalidRequestError is the error answering a message that is no valid
// JSON-RPC message, and invalidID the id it is answered with.
func invalidRequestError(m *message) *rpcError {
	if m.Method != "" && string(m.ID) == "null" {
		return newError(codeInvalidRequest, "Invalid Request: id must not be null")
	}
	return newError(codeInvalidRequest, "Invalid Request")
}

func invalidID(m *message) json.RawMessage {
	if m.Method != "" {
		return nil
	}
	return m.ID
}

// handleNotification handles a client notification. Only cancellation
// matters; initialized, roots/list_changed and unknown ones are accepted
// silently, as notifications must never be answered.
func (s *server) handleNotification(m *message) {
	if m.Method == "notifications/initialized" {
		s.initialized.Store(true)
	}
	if m.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if s.opts.ReportCancels {
		s.errOut.writeString(cancelLine(p.RequestID, p.Reason))
	}
	if len(p.RequestID) == 0 {
		return
	}
	s.mu.Lock()
	entry := s.inflight[idKey(p.RequestID)]
	s.mu.Unlock()
	if entry != nil {
		entry.cancel()
	}
}

// decodeError is the error answering a line (or POST body) that is not a
// JSON-RPC message.
func decodeError(line []byte) *rpcError {
	if len(line) > 0 && line[0] == '[' {
		// Batches were dropped from MCP in 2025-06-18.
		return newError(codeInvalidRequest, "Invalid Request: batches are not supported")
	}
	return newError(codeParseError, "Parse error")
}

// routeResponse hands a client's response to the server request waiting
// for it.
func (s *server) routeResponse(m *message) {
	key := idKey(m.ID)
	s.mu.Lock()
	ch := s.pending[key]
	delete(s.pending, key)
	s.mu.Unlock()
	if ch == nil {
		line := "testserver: response to unknown request id " + string(m.ID)
		if m.Error != nil {
			line += fmt.Sprintf(" with error %d", m.Error.Code)
		}
		s.errOut.writeString(line + "\n")
		return
	}
	ch <- m // buffered: never blocks
}

// sendError writes an error response outside any request handler.
func (s *server) sendError(out outlet, id json.RawMessage, e *rpcError) {
	if s.opts.StringIDs {
		id = quoteID(id)
	}
	out.send(true, appendErrorResponse(nil, id, e))
}

// sendNotification writes a notification to the client, through the outlet
// of the request that sends it.
func (s *server) sendNotification(out outlet, method string, params []byte) {
	out.send(false, appendNotification(nil, method, params))
}
