package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
)

// Spec is what a server offers beyond the switches of Options: its
// identity, its tools, resources and prompts, extra request handlers, and
// the hooks of whoever hosts it (Observe, Hub, Exit). Serve and NewHTTPHandler serve this
// package's own catalogue (DefaultSpec); ServeSpec and NewSpecHandler
// serve any other, which is how the public kit (transport/mcptest)
// declares its fake servers on the same engine.
type Spec struct {
	// Name and Version are serverInfo in the initialize result; empty
	// means ServerName and ServerVersion.
	Name, Version string
	// Instructions is the initialize result's instructions; "" omits it.
	Instructions string
	// Capabilities is the initialize result's capabilities, verbatim;
	// nil derives them from what the spec offers.
	Capabilities json.RawMessage

	// Tools are listed by tools/list in this order and called by name.
	Tools []*Tool
	// Resources, ResourceTemplates and Prompts are the encoded entries of
	// resources/list, resources/templates/list and prompts/list, in order
	// (paginated with Options.PageSize).
	Resources, ResourceTemplates, Prompts []json.RawMessage
	// Methods answer requests by method name, before the built-in
	// handlers (initialize, ping, tools/list, tools/call, the lists above,
	// resources/subscribe and unsubscribe, logging/setLevel). They run on
	// the reading goroutine, so they must not wait, unless MethodsWait.
	Methods map[string]Method
	// MethodsWait runs Methods as waiting tools run: on a goroutine of
	// their own, cancelled with their request.
	MethodsWait bool

	// Observe, when set, is told of every message the server receives,
	// on the reading goroutine before the message is handled, so that a
	// test that has its answer has its record too.
	Observe func(Received)
	// Hub, when set, links the servers running this spec, for their host
	// to notify their clients and change their catalogue while they run.
	Hub *Hub
	// Exit, when set, ends the process on a crash (the crash tool, a
	// Call.Exit, ExitAfterRequests) instead of Serve returning an
	// *ExitError, or the HTTP session ending: what a server re-executed as
	// a child passes os.Exit for.
	Exit func(code int)
}

// Method answers one request: its result is written verbatim; errors are
// treated as a Tool's Run errors are.
type Method func(ctx context.Context, params json.RawMessage) (json.RawMessage, error)

// Received is one message a server received, as Spec.Observe sees it.
type Received struct {
	// Method is the request's or notification's method; "" for a
	// response.
	Method string
	// ID is the request's or response's id as it arrived; nil for a
	// notification.
	ID json.RawMessage
	// Params is the message's params (a response's result or error for a
	// response), as it arrived.
	Params json.RawMessage
	// Header is the HTTP request's header for a message POSTed over HTTP;
	// nil over stdio.
	Header http.Header
	// StreamClosed marks no message but the client closing the HTTP
	// stream of request ID (Method) before its answer: how a client of
	// the 2026-07-28 revision cancels a request over HTTP, where it sends
	// no notifications/cancelled.
	StreamClosed bool
}

// RPCError is a JSON-RPC error object: what a Tool's Run or a Method
// returns to be answered with one.
type RPCError = rpcError

// ErrNoAnswer, returned by a Tool's Run or a Method, leaves the request
// unanswered, as a hung server does.
var ErrNoAnswer = errors.New("testserver: no answer")

// ServeSpec is Serve with spec's catalogue instead of this package's.
func ServeSpec(ctx context.Context, in io.Reader, out, errOut io.Writer, opts Options, spec *Spec) error {
	return newServer(opts, spec, out, errOut, spec.Exit).run(ctx, in)
}

// NewSpecHandler is NewHTTPHandler with spec's catalogue instead of this
// package's.
func NewSpecHandler(opts Options, spec *Spec, errOut io.Writer) *HTTPHandler {
	return newHTTPHandler(opts, spec, errOut, spec.Exit)
}

// observe reports m to the spec's observer.
func (s *server) observe(m *message, header http.Header) {
	if s.spec.Observe == nil {
		return
	}
	r := Received{Method: m.Method, ID: clone(m.ID), Params: clone(m.Params), Header: header}
	switch {
	case m.Result != nil:
		r.Params = clone(m.Result)
	case m.Error != nil:
		r.Params = mustJSON(m.Error)
	}
	s.spec.Observe(r)
}

// capabilitiesOf derives a spec's capabilities from what it offers
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#capability-negotiation).
func capabilitiesOf(spec *Spec) json.RawMessage {
	if spec.Capabilities != nil {
		return spec.Capabilities
	}
	var b bytes.Buffer
	b.WriteString(`{"tools":{"listChanged":true},"logging":{}`)
	if len(spec.Resources) > 0 || len(spec.ResourceTemplates) > 0 || spec.Methods["resources/read"] != nil {
		b.WriteString(`,"resources":{"subscribe":true,"listChanged":true}`)
	}
	if len(spec.Prompts) > 0 {
		b.WriteString(`,"prompts":{"listChanged":true}`)
	}
	if spec.Methods["completion/complete"] != nil {
		b.WriteString(`,"completions":{}`)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// runMethod runs a spec's Method, with Run's error conventions.
func runMethod(ctx context.Context, m Method, params json.RawMessage) (json.RawMessage, *rpcError) {
	res, err := m(ctx, params)
	return answerOf(res, err, json.RawMessage(`{}`))
}

// answerOf turns what a Method or a Tool's Run returned into the answer:
// ErrNoAnswer leaves the request unanswered (nil, nil), an *RPCError is
// the error, any other error an internal error; a nil result is empty.
func answerOf(res json.RawMessage, err error, empty json.RawMessage) (json.RawMessage, *rpcError) {
	var rpcErr *rpcError
	switch {
	case errors.Is(err, ErrNoAnswer):
		return nil, nil
	case errors.As(err, &rpcErr):
		return nil, rpcErr
	case err != nil:
		return nil, newError(codeInternalError, "%v", err)
	case res == nil:
		return empty, nil
	}
	return res, nil
}

// ID is the request's id, as it arrived.
func (c *Call) ID() json.RawMessage { return c.id }

// Name is the tool's name.
func (c *Call) Name() string { return c.tool.Name }

// Arguments are the call's arguments as they arrived; nil when absent.
func (c *Call) Arguments() json.RawMessage { return c.args }

// Meta is the call's params._meta as it arrived; nil when absent.
func (c *Call) Meta() json.RawMessage { return c.meta }

// Notify sends the client a notification on the call's stream (over
// HTTP: its SSE answer, or the GET stream beside a JSON answer); params
// may be nil.
func (c *Call) Notify(method string, params json.RawMessage) {
	c.srv.sendNotification(c.out, method, params)
}

// Progress sends notifications/progress for the call's progressToken and
// reports whether it could: a call sent without a token gets none
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress).
// total <= 0 and message "" are left out.
func (c *Call) Progress(progress, total float64, message string) bool {
	var meta struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	_ = decodeArgs(c.meta, &meta)
	if isNull(meta.ProgressToken) {
		return false
	}
	p := []byte(`{"progressToken":`)
	p = append(p, meta.ProgressToken...)
	p = append(p, `,"progress":`...)
	p = strconv.AppendFloat(p, progress, 'f', -1, 64)
	if total > 0 {
		p = append(p, `,"total":`...)
		p = strconv.AppendFloat(p, total, 'f', -1, 64)
	}
	if message != "" {
		p = append(p, `,"message":`...)
		p = appendString(p, message)
	}
	c.Notify("notifications/progress", append(p, '}'))
	return true
}

// Ask sends the client a request (sampling/createMessage,
// elicitation/create, roots/list, ping...) and waits for its answer: the
// result, or the client's error as an *RPCError. It ends with ctx's error
// when ctx ends first. The call's W3C trace context travels along.
func (c *Call) Ask(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if c.task != nil {
		return c.task.ask(ctx, "input-"+strconv.FormatInt(c.srv.nextServerID.Add(1), 10), method, params)
	}
	if c.srv.opts.Stateless && statelessRequest(c.meta) {
		return c.srv.askStateless(ctx, c, method, params)
	}
	return c.srv.ask(ctx, c, method, params)
}

// SendRaw writes lines on the call's stream verbatim, one message each:
// what a test needs to send what no encoder would.
func (c *Call) SendRaw(lines ...[]byte) { c.out.send(false, lines...) }

// ReplyRaw answers the call with line verbatim, in place of a response;
// Run then returns ErrNoAnswer.
func (c *Call) ReplyRaw(line []byte) { c.out.send(true, line) }

// Exit ends the server as a crash does: stderrText goes to stderr, then
// the process exits with code (a child), Serve returns an *ExitError, or
// the HTTP session ends with its connections aborted. Run then returns
// ErrNoAnswer.
func (c *Call) Exit(code int, stderrText string) { c.srv.exit(code, stderrText) }

// Stderr is the server's diagnostics stream.
func (c *Call) Stderr() io.Writer { return c.srv.errOut }

// ask implements Call.Ask.
func (s *server) ask(ctx context.Context, c *Call, method string, params json.RawMessage) (json.RawMessage, error) {
	if isNull(params) {
		params = nil
	}
	params = continueTrace(params, c.meta)
	id := "srv-" + strconv.FormatInt(s.nextServerID.Add(1), 10)
	ch := make(chan *message, 1)
	s.mu.Lock()
	s.pending[id] = ch
	s.mu.Unlock()
	c.out.send(false, appendRequest(nil, id, method, params))
	select {
	case resp := <-ch:
		if resp.Error != nil {
			return nil, resp.Error
		}
		return resp.Result, nil
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
		return nil, ctx.Err()
	}
}
