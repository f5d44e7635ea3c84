package actors

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"reflect"
	"sync"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// Tools yields every tool the server offers, following tools/list pages
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#listing-tools);
// a failure is yielded last.
//
// Over HTTP in the stateless protocol, a tool whose x-mcp-header annotations
// are invalid is left out (with a warning in the log): it could not be
// called as the revision requires
// (https://modelcontextprotocol.io/specification/2026-07-28/server/tools);
// the annotations of the others are kept for their calls' headers.
func (c *Client) Tools(ctx context.Context) iter.Seq2[messages.Tool, error] {
	return c.tools(ctx, nil)
}

// tools is Tools, gathering the pages' caching hints into hints when it is
// not nil.
func (c *Client) tools(ctx context.Context, hints *CacheHints) iter.Seq2[messages.Tool, error] {
	var headers map[string][]headerParam
	var required map[string]bool
	var schemas map[string]json.RawMessage
	return pages(c.name, messages.MethodToolsList, func(ctx context.Context, cursor string) (page[messages.Tool], error) {
		var res messages.ListToolsResult
		err := c.call(ctx, messages.MethodToolsList, messages.ListToolsParams{Cursor: cursor}, &res)
		if err == nil {
			res.Tools, headers = c.annotatedTools(res.Tools, headers, res.NextCursor == "")
			hints.add(res.TTLMs, res.CacheScope)
			required = c.noteTaskTools(res.Tools, required, res.NextCursor == "")
			schemas = c.noteOutputSchemas(res.Tools, schemas, res.NextCursor == "")
		}
		return page[messages.Tool]{items: res.Tools, next: res.NextCursor}, err
	})(ctx)
}

// CacheHints are what a server said of caching a list it sent
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
// Across pages the shortest lifetime wins; a server earlier than
// 2026-07-28 sends none (TTLMs nil: stale at once; Scope "").
type CacheHints struct {
	TTLMs *int64
	Scope string // "public" or "private"
}

func (h *CacheHints) add(ttl *int64, scope string) {
	if h == nil {
		return
	}
	if ttl != nil && (h.TTLMs == nil || *ttl < *h.TTLMs) {
		v := max(*ttl, 0) // a negative ttlMs means 0
		h.TTLMs = &v
	}
	// The scope is the same on every page of one list; a page that says
	// private makes the whole list private.
	if h.Scope == "" || scope == "private" {
		h.Scope = scope
	}
}

// ListToolsWithHints is ListTools that also returns the list's caching
// hints, for a cache of tool lists (the manager's).
func (c *Client) ListToolsWithHints(ctx context.Context) ([]messages.Tool, CacheHints, error) {
	var hints CacheHints
	tools, err := collect(c.tools(ctx, &hints))
	return tools, hints, err
}

// annotatedTools reads the x-mcp-header annotations of a page of tools on
// a stateless HTTP connection, leaving out the invalid ones, and
// records them for the connection once the last page is read.
func (c *Client) annotatedTools(tools []messages.Tool, acc map[string][]headerParam, last bool) ([]messages.Tool, map[string][]headerParam) {
	g := c.gen.Load()
	if g.established() == nil || !g.stateless() || !g.conn.HTTP() {
		return tools, acc
	}
	if acc == nil {
		acc = map[string][]headerParam{}
	}
	kept := tools[:0]
	for _, t := range tools {
		params, err := toolHeaders(t.InputSchema)
		if err != nil {
			c.logger().Warn("mcp: tool left out: invalid x-mcp-header annotation", "server", c.name, "tool", t.Name, "err", err)
			continue
		}
		acc[t.Name] = params
		kept = append(kept, t)
	}
	if last {
		g.headers.Store(&acc)
	}
	return kept, acc
}

// ListTools returns all the server's tools, every page read, or as last
// read while the server lets the list be cached (result_cache.go).
func (c *Client) ListTools(ctx context.Context) ([]messages.Tool, error) {
	return cachedList(ctx, c, messages.MethodToolsList, c.tools)
}

// Call is how one tools/call is made, beyond its name and arguments: the
// transport's options for the request (its timeout and the progress rules
// that extend it), the _meta sent with it and who hears its progress. The
// root package's CallOptions is what a user fills; it becomes a Call.
// The client sets Request.ProgressToken and Request.OnProgress itself.
type Call struct {
	Request    transport.RequestOptions
	Meta       messages.Meta
	OnProgress func(messages.ProgressParams)
	// ValidateOutput checks the result against the tool's outputSchema
	// (checkOutput), as Spec.ValidateOutput does for every call.
	ValidateOutput bool
}

// CallTool calls the tool name with args (anything that encodes as a JSON
// object, or nil) using the server's defaults. A tool that fails reports it
// in the result (IsError), not as an error: errors are for protocol and
// transport failures
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling).
//
// The call is made in four steps called one after the other from this
// frame, never one inside another: startTool (the params, the span, the
// wait for the handshake), sendTool (the encoding and the send),
// waitTool (the wait, in a select of its own), then the finish
// (afterFirst). A call that waits holds this frame, waitTool's and the
// runtime's select: at most 4 KiB of stack under a caller's few hundred
// bytes (TestCallToolWaitFitsInFourKiB); docs/architecture.md, "The
// request path", says why it is cut so. A call with progress, or with a
// timer of its own, is made whole by startTool (callProgress). A tool
// that must run as a task on this server is started and awaited as one
// (callAsTask).
func (c *Client) CallTool(ctx context.Context, name string, args any) (*messages.CallToolResult, error) {
	if s := c.gen.Load().established(); s != nil && s.taskTools != nil && c.runsAsTask(ctx, s, name) {
		res, err := c.callAsTask(ctx, name, args, nil)
		return c.toolEnd(ctx, name, nil, res, err)
	}
	var w toolWait
	if c.startTool(ctx, name, args, nil, &w) && c.sendTool(&w, nil) {
		c.waitTool(ctx, &w, nil)
	}
	res, err := w.result()
	if err != nil && c.mustRunAsTask(err) {
		res, err = c.callAsTask(ctx, name, args, nil)
	}
	return c.toolEnd(ctx, name, nil, res, err)
}

// CallToolWith is CallTool made as call says.
func (c *Client) CallToolWith(ctx context.Context, name string, args any, call Call) (*messages.CallToolResult, error) {
	if s := c.gen.Load().established(); s != nil && s.taskTools != nil && c.runsAsTask(ctx, s, name) {
		res, err := c.callAsTask(ctx, name, args, &call)
		return c.toolEnd(ctx, name, &call, res, err)
	}
	var w toolWait
	if c.startTool(ctx, name, args, &call, &w) && c.sendTool(&w, &call) {
		c.waitTool(ctx, &w, &call)
	}
	res, err := w.result()
	if err != nil && c.mustRunAsTask(err) {
		res, err = c.callAsTask(ctx, name, args, &call)
	}
	return c.toolEnd(ctx, name, &call, res, err)
}

// toolEnd is a tools/call's end, checked against the tool's outputSchema
// when the server's configuration or the call asks (checkOutput).
func (c *Client) toolEnd(ctx context.Context, name string, call *Call, res *messages.CallToolResult, err error) (*messages.CallToolResult, error) {
	if err != nil || !(c.cfg.ValidateOutput || call != nil && call.ValidateOutput) {
		return res, err
	}
	if err := c.checkOutput(ctx, name, res); err != nil {
		return nil, c.masked(err) // its Body quotes the server's output
	}
	return res, nil
}

// toolWait is what a tools/call keeps across its wait, on its caller's
// stack: where the result goes and, once startTool has sent the request,
// what endTool needs to finish it.
type toolWait struct {
	tc   *toolCall
	ctx  context.Context   // the call's, with its span
	op   *telemetry.Op     // nil unless someone listens
	g    *generation       // the generation the request went out on
	p    transport.Pending // the request, until endTool
	err  error             // the call's error, once it has ended
	flow bool              // counted in telemetry's in-flight gauge
	// plain: the call took the plain path (no progress), on which tc is
	// read and written by this goroutine alone, so result recycles it.
	plain bool
}

// result is the call's end. A plain call's toolCall goes back to
// toolCalls: the result the caller gets is an allocation of its own
// (decodeResult), and no other goroutine ever had tc.
func (w *toolWait) result() (*messages.CallToolResult, error) {
	tc, err := w.tc, w.err
	res := tc.res
	if w.plain {
		*tc = toolCall{}
		toolCalls.Put(tc)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// waitTool waits for the answer of a tools/call sendTool has sent, and
// finishes the call (endTool). Its frame and the runtime's select are all
// the stack a waiting call adds to CallTool's.
func (c *Client) waitTool(ctx context.Context, w *toolWait, call *Call) {
	var out transport.Outcome
	woke := transport.Answered
	select {
	case out = <-w.p.Reply():
	case <-ctx.Done():
		woke = transport.ContextDone
	case <-w.g.conn.Done():
		woke = transport.TransportEnded
	}
	c.endTool(w, call, &out, woke)
}

// startTool does what a tools/call does before it sends: it builds the
// params, starts the span (unless nobody listens) and waits for the
// handshake if need be. It reports whether the caller is to send the
// request's first round (sendTool) and wait for it (waitTool); when not,
// the call has ended (an error before the wait, or a call that is not
// plain, made here whole) and w holds its end.
func (c *Client) startTool(ctx context.Context, name string, args any, call *Call, w *toolWait) bool {
	// What the call keeps while it waits is small: its params, which
	// travel by pointer (no copy boxed into an interface), and where the
	// result goes. The result is made when the answer has arrived
	// (decodeResult): with thousands of calls in flight, a result made
	// before would be memory held by every waiting call.
	if call != nil && (call.OnProgress != nil || call.Request.ResetTimeoutOnProgress || call.Request.OnProgress != nil) {
		tc := &toolCall{params: messages.CallToolParams{Name: name, Arguments: noNil(args), Meta: call.Meta}}
		w.tc, w.ctx = tc, ctx
		w.err = c.callToolProgress(ctx, tc, call)
		return false
	}
	tc := toolCalls.Get().(*toolCall)
	tc.params = messages.CallToolParams{Name: name, Arguments: noNil(args)}
	if call != nil {
		tc.params.Meta = call.Meta
	}
	w.tc, w.ctx, w.plain = tc, ctx, true
	var g *generation
	var err error
	if c.tel.Idle(ctx) {
		// Nobody listens (the default: otel's own no-op providers), so
		// there is no span to start, and startToolSpan's frames, a
		// telemetry.Request and Start's own, are not put on the stack.
		g, err = c.current(ctx)
	} else {
		// The same span and gauge as any request's (callProgress).
		w.ctx, w.op = c.startToolSpan(ctx, &tc.params)
		c.tel.InFlight(c.telemetryName(), 1)
		w.flow = true
		g, err = c.currentObserved(w.ctx, w.op)
	}
	if err != nil {
		c.endSpan(w, err)
		return false
	}
	w.g = g
	return true
}

// sendTool sends the first round of a plain tools/call startTool has
// begun, in the generation's protocol (the bytes, headers and options
// Client.exchange would send), and reports whether it is in flight; when
// not, the call has ended. It is called by CallTool itself, after
// startTool has returned, so that the encoding of the arguments runs on a
// stack no deeper than CallTool's (docs/architecture.md, "The request
// path").
func (c *Client) sendTool(w *toolWait, call *Call) bool {
	p := &w.tc.params
	stateless := w.g.stateless()
	var members []byte
	if stateless {
		members = c.metaMembers(w.g.sess)
	}
	buf := jsonrpc.ParamsBuffer(toolParamsSize(p, members))
	body, err := jsonrpc.AppendCallToolParamsMeta(buf, p, members)
	if err != nil {
		c.endSpan(w, encodeError(c.name, messages.MethodToolsCall, err))
		return false
	}
	if call != nil || w.op != nil || stateless {
		return c.sendToolWith(w, call, body, buf)
	}
	// The defaults, read only: no copy of them on this frame.
	opts := &defaultOptions
	if jsonrpc.Pooled(body, buf) {
		opts = &recycledOptions
	}
	if w.p, err = w.g.conn.Start(w.ctx, messages.MethodToolsCall, body, opts); err != nil {
		c.afterFirst(w, call, nil, err)
		return false
	}
	return true
}

// defaultOptions are a request's options when nobody set any, and
// recycledOptions the same for params in a pooled buffer (see
// jsonrpc.ParamsBuffer); Conn.Start only reads them.
var (
	defaultOptions  transport.RequestOptions
	recycledOptions = transport.RequestOptions{RecycleParams: true}
)

// sendToolWith is the end of sendTool for a call with options of its own,
// a span or the stateless protocol's headers: their copy is made on this
// frame. buf is the buffer body was encoded into; nobody reads it once
// the transport has framed the request (later rounds, if any, encode
// their params again: moreRounds).
func (c *Client) sendToolWith(w *toolWait, call *Call, body, buf []byte) bool {
	topts := options(call)
	protocolOptions(w.g, &topts)
	if err := c.setHeaders(w.ctx, w.g, messages.MethodToolsCall, &w.tc.params, &topts, false); err != nil {
		c.endSpan(w, err)
		return false
	}
	if w.op != nil {
		body = w.op.InjectParams(body)
		topts.Observer = w.op
	}
	topts.RecycleParams = jsonrpc.Pooled(body, buf)
	var err error
	if w.p, err = w.g.conn.Start(w.ctx, messages.MethodToolsCall, body, &topts); err != nil {
		c.afterFirst(w, call, nil, err)
		return false
	}
	return true
}

// startToolSpan is startCall for a tools/call: the same span, its request
// described without describe's type switch (whose copies of other
// methods' params would deepen the frame under every call).
func (c *Client) startToolSpan(ctx context.Context, p *messages.CallToolParams) (context.Context, *telemetry.Op) {
	req := telemetry.Request{Peer: c.peer(), Method: messages.MethodToolsCall, Target: p.Name}
	if p.Arguments != nil && c.tel.RecordsToolArguments() {
		// Opt-in and sensitive (docs/telemetry.md): encoded only then.
		req.Arguments, _ = json.Marshal(p.Arguments)
	}
	return c.tel.Start(ctx, &req)
}

// callToolProgress is a tools/call whose progress someone takes, or
// whose timer restarts with it: the whole call, the wait included, made
// the way every other request is (callProgress).
func (c *Client) callToolProgress(ctx context.Context, tc *toolCall, call *Call) error {
	topts := call.Request
	// A progress token is sent when the caller wants progress or wants it
	// to extend the timeout (basic/utilities/progress).
	if call.OnProgress != nil || topts.ResetTimeoutOnProgress {
		c.askProgress(&tc.params, &topts)
	}
	return c.callProgress(ctx, messages.MethodToolsCall, &tc.params, tc, &topts, call.OnProgress)
}

// endTool ends a plain tools/call once its wait has: the transport turns
// what woke it into the first round's answer, and afterFirst does the rest.
func (c *Client) endTool(w *toolWait, call *Call, out *transport.Outcome, woke transport.Wake) {
	res, err := w.g.conn.Finish(w.ctx, w.p, out, woke)
	w.p = transport.Pending{}
	c.afterFirst(w, call, res, err)
}

// afterFirst finishes a plain tools/call from its first round's answer
// (res, or err), as Client.exchange and Client.callProgress would have:
// the result decoded; a request that met an expired session sent again on
// the new one (replay); in the stateless protocol, an answer that is not
// the result goes on to retries and rounds (moreRounds).
func (c *Client) afterFirst(w *toolWait, call *Call, res json.RawMessage, err error) {
	g, method := w.g, messages.MethodToolsCall
	switch {
	case err == nil && (!g.stateless() || messages.ResultTypeOf(res) == messages.ResultTypeComplete):
		err = decodeInto(g.conn.Server(), method, res, w.tc, w.op)
	case g.stateless():
		err = c.moreRounds(w, call, res, err)
	case errors.Is(err, messages.ErrSessionExpired):
		topts := options(call)
		err = c.replay(w.ctx, w.op, g, method, &w.tc.params, w.tc, &topts, err)
	}
	c.endSpan(w, err)
}

// moreRounds is the rest of a stateless tools/call whose first answer was
// not its result: the retries of the first round, then the rounds that
// follow it. Its body and options are made again, as sendTool made them:
// they are not kept across the wait.
func (c *Client) moreRounds(w *toolWait, call *Call, res json.RawMessage, err error) error {
	g, params, method := w.g, &w.tc.params, messages.MethodToolsCall
	base, berr := c.requestBody(g, method, params)
	if berr != nil {
		return berr
	}
	topts := options(call)
	protocolOptions(g, &topts)
	res, err = c.retries(w.ctx, w.op, g, method, params, base, &topts, res, err)
	return c.rounds(w.ctx, w.op, g, method, params, w.tc, &topts, base, res, err)
}

// options are the transport's options a call is made with (call nil:
// the defaults). The Call is passed down rather than kept in toolWait,
// whose contents escape analysis cannot tell from the heap's: kept there,
// CallToolWith's Call would be moved to the heap.
func options(call *Call) transport.RequestOptions {
	if call == nil {
		return transport.RequestOptions{}
	}
	return call.Request
}

// endSpan records the call's end on w, its error named and masked as any
// request's, and ends its span and its count in flight.
func (c *Client) endSpan(w *toolWait, err error) {
	if err != nil {
		err = c.masked(named(messages.MethodToolsCall, err))
	}
	w.err = err
	if !w.flow {
		return
	}
	toolError := false
	if err == nil {
		toolError = w.tc.isError()
	}
	w.op.End(err, toolError)
	c.tel.InFlight(c.telemetryName(), -1)
}

// askProgress gives a tools/call a progress token of its own.
func (c *Client) askProgress(params *messages.CallToolParams, topts *transport.RequestOptions) {
	tok := c.progressSeq.Add(1)
	params.Meta = c.withProgressToken(params.Meta, tok)
	topts.ProgressToken, _ = messages.ProgressTokenKey(tok)
}

// toolCall is what a CallTool needs before it sends: its params, and
// where decodeResult puts the result. Plain calls take theirs from
// toolCalls and give it back when they end (toolWait.result).
type toolCall struct {
	params messages.CallToolParams
	res    *messages.CallToolResult
}

var toolCalls = sync.Pool{New: func() any { return new(toolCall) }}

// isError reports whether the tool reported an error in its result.
func (tc *toolCall) isError() bool { return tc.res != nil && tc.res.IsError }

// callToolParams returns the tools/call params in params, whether given by
// value or, as CallToolWith does, by pointer.
func callToolParams(params any) (*messages.CallToolParams, bool) {
	switch p := params.(type) {
	case *messages.CallToolParams:
		return p, true
	case messages.CallToolParams:
		return &p, true
	}
	return nil, false
}

// withProgressToken copies meta (never changing the caller's map) and adds
// the token (basic/utilities/progress).
func (c *Client) withProgressToken(meta messages.Meta, tok int64) messages.Meta {
	out := make(messages.Meta, len(meta)+1)
	for k, v := range meta {
		out[k] = v
	}
	out.SetProgressToken(tok)
	return out
}

// noNil turns arguments that would encode as null (a nil map or pointer in
// an interface) into none at all: arguments are an object or absent, and
// servers refuse null.
func noNil(args any) any {
	switch v := args.(type) {
	case nil:
		return nil
	case map[string]any:
		if v == nil {
			return nil
		}
		return v
	}
	switch rv := reflect.ValueOf(args); rv.Kind() {
	case reflect.Map, reflect.Pointer, reflect.Slice, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
	}
	return args
}
