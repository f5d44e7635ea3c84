package testserver

import (
	"context"
	"encoding/json"
	"time"
)

// handlerFunc answers one request. A nil result with a nil error means the
// request must stay unanswered.
type handlerFunc func(s *server, ctx context.Context, req *request) (json.RawMessage, *rpcError)

// methods maps request methods to their handlers.
var methods = map[string]handlerFunc{
	"initialize":               (*server).initialize,
	"ping":                     (*server).ping,
	"tools/list":               (*server).toolsList,
	"tools/call":               (*server).toolsCall,
	"resources/list":           (*server).resourcesList,
	"resources/templates/list": (*server).resourceTemplatesList,
	"resources/subscribe":      (*server).resourcesSubscribe,
	"resources/unsubscribe":    (*server).resourcesSubscribe,
	"prompts/list":             (*server).promptsList,
	"logging/setLevel":         (*server).setLevel,
	"tasks/get":                (*server).tasksGet,
	"tasks/update":             (*server).tasksUpdate,
	"tasks/cancel":             (*server).tasksCancel,
}

// instantMethods never wait for anything: the reader answers them itself
// (see startRequest). initialize joins them unless SlowInitialize is set,
// and tools/call when the tool is instant.
var instantMethods = map[string]bool{
	"ping": true, "tools/list": true, "resources/list": true, "resources/templates/list": true,
	"resources/read": true, "resources/subscribe": true, "resources/unsubscribe": true,
	"prompts/list": true, "prompts/get": true, "completion/complete": true, "logging/setLevel": true,
	"tasks/get": true, "tasks/update": true, "tasks/cancel": true,
}

// request is one client request being handled.
type request struct {
	id     json.RawMessage
	method string
	params json.RawMessage
	out    outlet // where the answer, and what the handling sends, go
	// call is the decoded tools/call, or callErr why it could not be.
	call    *Call
	callErr *rpcError
	// firstCall marks the first tools/call received, the one the
	// HugeFrameBytes and EndlessLine faults act on.
	firstCall bool
	// after, if set by the handler, is a notification written right after
	// the response (logging/setLevel uses it to guarantee the order).
	after []byte
}

// startRequest handles a request read from stdin (or POSTed over HTTP);
// its answer goes to out.
//
// Requests that answer at once (ping, echo, lists...) are handled right
// here on the reading goroutine: handing them to another goroutine costs
// more than handling them, and the echo benchmark is made of nothing else.
// The others (sleep, progress, ask-client, a slow initialize) get a
// goroutine each, registered as in flight before the next line is read so
// that a cancellation right behind the request finds it.
func (s *server) startRequest(m *message, out outlet) {
	req := &request{id: m.ID, method: m.Method, params: m.Params, out: out}
	if s.opts.RequireInitialized && !s.initialized.Load() && m.Method != "initialize" && m.Method != "ping" {
		s.sendError(out, m.ID, newError(codeInvalidParams, "Received request before initialization was complete"))
		return
	}
	if s.opts.Stateless && m.Method == "tools/call" && s.resume(m, out) {
		return
	}
	instant := instantMethods[m.Method] || (m.Method == "initialize" && s.opts.SlowInitialize <= 0)
	if s.spec.Methods[m.Method] != nil {
		instant = !s.spec.MethodsWait
	}
	if m.Method == "tools/call" {
		n := s.toolCalls.Add(1)
		if s.opts.ExitAfterRequests > 0 && n >= int64(s.opts.ExitAfterRequests) {
			s.exit(s.opts.ExitCode, s.opts.StderrOnExit)
			return
		}
		if s.opts.NeverAnswer {
			return
		}
		req.firstCall = n == 1
		instant = s.decodeCall(req)
	}
	if instant {
		s.serveRequest(s.ctx, req)
		return
	}

	ctx, cancel := context.WithCancel(s.ctx)
	key := idKey(m.ID)
	entry := &inflightEntry{cancel: cancel}
	s.mu.Lock()
	s.inflight[key] = entry
	s.mu.Unlock()
	s.goHandle(func() {
		defer func() {
			cancel()
			s.mu.Lock()
			if s.inflight[key] == entry {
				delete(s.inflight, key)
			}
			if s.opts.Stateless {
				// The retries of a multi round-trip call are in
				// flight under its entry too (stateless.go).
				for k, e := range s.inflight {
					if e == entry {
						delete(s.inflight, k)
					}
				}
			}
			s.mu.Unlock()
		}()
		s.serveRequest(ctx, req)
	})
}

// inflightEntry is the in-flight table's record of one request; a pointer,
// so that a finishing request can tell whether a later request reusing its
// id has replaced it.
type inflightEntry struct {
	cancel context.CancelFunc
}

// serveRequest runs req's handler and writes the answer, unless ctx was
// cancelled meanwhile: by the client, who then expects no answer, or by
// the server stopping.
func (s *server) serveRequest(ctx context.Context, req *request) {
	result, rpcErr := s.dispatch(ctx, req)
	if ctx.Err() != nil || (result == nil && rpcErr == nil) {
		return
	}
	if req.call != nil {
		// A call that asked for input in the stateless protocol answers the
		// retry that brought it.
		req.id, req.out = req.call.id, req.call.out
	}
	id := req.id
	if s.opts.StringIDs {
		id = quoteID(id)
	}
	if rpcErr == nil && s.opts.Stateless && statelessRequest(req.params) {
		result = completeResult(result)
		if s.opts.CacheTTLMs > 0 && cacheable[req.method] {
			result = withCacheHints(result, int64(s.opts.CacheTTLMs), s.opts.CacheScope)
		}
	}
	var msg []byte
	if rpcErr != nil {
		msg = appendErrorResponse(make([]byte, 0, 128), id, rpcErr)
	} else {
		msg = appendResponse(make([]byte, 0, len(result)+64), id, result)
	}
	if s.reorder != nil && req.method == "tools/call" {
		select {
		case s.reorder <- msg:
		case <-ctx.Done():
		}
		return
	}
	req.out.send(true, msg)
	if req.after != nil {
		req.out.send(false, req.after)
	}
}

// dispatch runs the handler for req, turning a panic into an internal error
// so that one bad request cannot take the whole server down.
func (s *server) dispatch(ctx context.Context, req *request) (result json.RawMessage, rpcErr *rpcError) {
	defer func() {
		if p := recover(); p != nil {
			result, rpcErr = nil, newError(codeInternalError, "Internal error: %v", p)
		}
	}()
	if req.method == "ping" && s.opts.IgnorePing {
		return nil, nil
	}
	if s.opts.Stateless {
		switch req.method {
		case "server/discover":
			return s.discover(ctx, req)
		case "subscriptions/listen":
			return s.listen(ctx, req)
		}
	}
	if m := s.spec.Methods[req.method]; m != nil {
		return runMethod(ctx, m, req.params)
	}
	h, ok := methods[req.method]
	if !ok && s.opts.SilentOnUnknown {
		s.errOut.writeString("ignored " + req.method + "\n")
		return nil, nil
	}
	if !ok {
		return nil, newError(codeMethodNotFound, "Method not found")
	}
	return h(s, ctx, req)
}

// workerIdle is how long an idle request worker waits for more work before
// exiting.
const workerIdle = time.Second

// goHandle runs job on an idle worker goroutine, or on a new one when all
// are busy, so that concurrency is unbounded (a sleeping request never
// delays another) while goroutines are reused: a fresh goroutine's small
// stack is outgrown by the first JSON decode, and copying it is costly.
func (s *server) goHandle(job func()) {
	select {
	case s.work <- job:
	default:
		s.wg.Add(1)
		go s.worker(job)
	}
}

// worker runs job, then whatever goHandle hands it, until it has been idle
// for workerIdle or the server stops.
func (s *server) worker(job func()) {
	defer s.wg.Done()
	job()
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		select {
		case job = <-s.work:
			job()
			idle.Reset(workerIdle)
		case <-idle.C:
			return
		case <-s.ctx.Done():
			return
		}
	}
}
