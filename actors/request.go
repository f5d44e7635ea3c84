package actors

import (
	"context"
	"encoding/json"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// The request path. Every request a Client makes, whatever its method and
// whether or not it takes progress, goes through the same steps, called
// one after the other from its caller's frame (callWith, or callTool for
// a tools/call), never one inside another:
//
//   - start: the span and the in-flight gauge (unless nobody listens),
//     the progress hook, the wait for the handshake;
//   - send: the params encoded for the generation's protocol, its HTTP
//     headers and the trace context added (post), Conn.Start;
//   - wait: Conn.Await, which also hands over progress and keeps a timer
//     that restarts with it, then Conn.Finish and finish: the result
//     decoded, or the rest of the request (the stateless protocol's
//     retries and rounds, a replay on a new session);
//   - end: the error named and masked, the span ended.
//
// The protocol a generation speaks is a value (generation.stateless) read
// where the two differ. docs/architecture.md, "The request path", draws
// it.

// request is one request of a Client from its start to its end: what it
// keeps across its wait, on its caller's stack.
type request struct {
	ctx    context.Context // the caller's, with the request's span
	op     *telemetry.Op   // nil unless someone listens
	g      *generation     // the generation the request went out on
	method string
	params any // a tools/call's by pointer (*messages.CallToolParams)
	out    any // where the result is decoded; nil: discarded
	p      transport.Pending
	err    error // the request's error, once it has ended
	flow   bool  // counted in telemetry's in-flight gauge
}

// call encodes params, sends the request and decodes the result into out.
func (c *Client) call(ctx context.Context, method string, params any, out any) error {
	var opts transport.RequestOptions
	return c.callWith(ctx, method, params, out, &opts, nil)
}

// callWith is call with the transport's options opts, which it changes.
// When opts.ProgressToken is set (the token is in params' _meta), each of
// the request's progress notifications is decoded once, recorded on the
// span and handed to onProgress, which may be nil: the token may be there
// only to extend the timeout.
func (c *Client) callWith(ctx context.Context, method string, params any, out any, opts *transport.RequestOptions, onProgress func(messages.ProgressParams)) error {
	r := request{method: method, params: params, out: out}
	if c.start(ctx, &r, opts, onProgress) && c.send(&r, opts) {
		c.wait(&r, opts)
	}
	return r.err
}

// start does what a request does before it sends: it starts the span
// before the wait for the handshake, so that the wait shows in it
// (docs/telemetry.md: "queued" events), and waits for the handshake. It
// reports whether the request is to be sent; when not, it has ended.
func (c *Client) start(ctx context.Context, r *request, opts *transport.RequestOptions, onProgress func(messages.ProgressParams)) bool {
	r.ctx = ctx
	var g *generation
	var err error
	if c.tel.Idle(ctx) {
		// Nobody listens (the default: otel's own no-op providers), so
		// there is no span to start, and startCall's frames are not put
		// on the stack.
		g, err = c.current(ctx)
	} else {
		r.ctx, r.op = c.startCall(ctx, r.method, r.params)
		c.tel.InFlight(c.telemetryName(), 1)
		r.flow = true
		g, err = c.currentObserved(r.ctx, r.op)
	}
	if opts.ProgressToken != "" {
		opts.OnProgress = progressHook(r.op, onProgress)
	}
	if err != nil {
		c.end(r, err)
		return false
	}
	r.g = g
	return true
}

// send encodes the request's params for its generation's protocol and
// sends its first round. A tools/call's params are encoded into a pooled
// buffer (jsonrpc.ParamsBuffer), which the transport recycles once it has
// framed them unless something else holds the bytes. It reports whether
// the request is in flight; when not, it has ended.
func (c *Client) send(r *request, opts *transport.RequestOptions) bool {
	var body, buf []byte
	var err error
	if p, ok := r.params.(*messages.CallToolParams); ok {
		var members []byte
		if r.g.stateless() {
			members = c.metaMembers(r.g.sess)
		}
		buf = jsonrpc.ParamsBuffer(toolParamsSize(p, members))
		if body, err = jsonrpc.AppendCallToolParamsMeta(buf, p, members); err != nil {
			err = encodeError(c.name, r.method, err)
		}
	} else {
		body, err = c.requestBody(r.g, r.method, r.params)
	}
	if err != nil {
		c.end(r, err)
		return false
	}
	protocolOptions(r.g, opts)
	if r.p, err = c.post(r.ctx, r.op, r.g, r.method, r.params, body, buf, opts, false); err != nil {
		c.finish(r, opts, nil, err)
		return false
	}
	return true
}

// post hands one round of a request, body, to g's transport (Conn.Start):
// with the request's HTTP headers in the stateless protocol (fresh: the
// tools listed again first, for their x-mcp-header annotations), and the
// trace context in its _meta when op is set (docs/telemetry.md, "Context
// propagation"). buf is the pooled buffer body was encoded into, if any.
// It sets opts.Header, opts.Observer and opts.RecycleParams.
func (c *Client) post(ctx context.Context, op *telemetry.Op, g *generation, method string, params any, body, buf []byte, opts *transport.RequestOptions, fresh bool) (transport.Pending, error) {
	if err := c.setHeaders(ctx, g, method, params, opts, fresh); err != nil {
		return transport.Pending{}, err
	}
	if op != nil {
		body = op.InjectParams(body)
		opts.Observer = op
	}
	opts.RecycleParams = jsonrpc.Pooled(body, buf)
	return g.conn.Start(ctx, method, body, opts)
}

// wait waits for the answer of the request send has sent, taking its
// progress meanwhile (Conn.Await), and finishes it. Its frame and the
// transport's are all the stack a waiting request adds to its caller's.
func (c *Client) wait(r *request, opts *transport.RequestOptions) {
	out, woke := r.g.conn.Await(r.ctx, r.p, opts)
	res, err := r.g.conn.Finish(r.ctx, r.p, &out, woke)
	r.p = transport.Pending{}
	c.finish(r, opts, res, err)
}

// finish ends the request from its first round's answer (res, or err): the
// result decoded into r.out; in the stateless protocol, an answer that is
// not the result goes on to retries and rounds (moreRounds); a request
// that met an expired session is sent again on the new one (replay).
func (c *Client) finish(r *request, opts *transport.RequestOptions, res json.RawMessage, err error) {
	// Later rounds encode their params again, outside the pool.
	opts.RecycleParams = false
	g := r.g
	switch {
	case err == nil && (!g.stateless() || messages.ResultTypeOf(res) == messages.ResultTypeComplete):
		err = decodeInto(g.conn.Server(), r.method, res, r.out, r.op)
	case g.stateless():
		err = c.moreRounds(r, opts, res, err)
	case callerr.SessionExpired(err) != nil:
		err = c.replay(r, opts, err)
	}
	c.end(r, err)
}

// end records the request's end on r: its error named and masked, its
// span ended (a tool's error in its result marks the span too) and its
// count in flight given back.
func (c *Client) end(r *request, err error) {
	if err != nil {
		err = c.masked(named(r.method, err))
	}
	r.err = err
	if !r.flow {
		return
	}
	toolError := false
	if tc, ok := r.out.(*toolCall); ok && err == nil {
		toolError = tc.isError()
	}
	r.op.End(err, toolError)
	c.tel.InFlight(c.telemetryName(), -1)
}

// moreRounds is the rest of a stateless request whose first answer was not
// its result: the retries of the first round, then the rounds that follow
// it. The body is made again: the first round's is not kept across the
// wait.
func (c *Client) moreRounds(r *request, opts *transport.RequestOptions, res json.RawMessage, err error) error {
	base, berr := c.requestBody(r.g, r.method, r.params)
	if berr != nil {
		return berr
	}
	res, err = c.retries(r.ctx, r.op, r.g, r.method, r.params, base, opts, res, err)
	return c.rounds(r.ctx, r.op, r.g, r.method, r.params, r.out, opts, base, res, err)
}

// replay sends, once, a request that met an expired HTTP session: the
// server rejected it unprocessed, and the client actor is starting a new
// session (a new generation), on which it is sent again. A second expiry
// is an error; there is no loop. The wait for the new session is bounded
// by the request's context and the connect timeout.
func (c *Client) replay(r *request, opts *transport.RequestOptions, why error) error {
	wait, cancel := context.WithTimeout(r.ctx, c.cfg.connectTimeout())
	defer cancel()
	select {
	case <-r.g.replaced:
	case <-wait.Done():
		return why
	}
	g, err := c.current(wait)
	if err != nil {
		return err
	}
	r.op.Reinitialize("HTTP session expired; the request is sent again on the new session")
	r.g = g
	base, err := c.requestBody(g, r.method, r.params)
	if err != nil {
		return err
	}
	protocolOptions(g, opts)
	res, err := c.roundTrip(r.ctx, r.op, g, r.method, r.params, base, opts, false)
	res, err = c.retries(r.ctx, r.op, g, r.method, r.params, base, opts, res, err)
	return c.rounds(r.ctx, r.op, g, r.method, r.params, r.out, opts, base, res, err)
}

// roundTrip is one more round of a request, after its first: post,
// Conn.Await and Conn.Finish.
func (c *Client) roundTrip(ctx context.Context, op *telemetry.Op, g *generation, method string, params any, body []byte, opts *transport.RequestOptions, fresh bool) (json.RawMessage, error) {
	p, err := c.post(ctx, op, g, method, params, body, nil, opts, fresh)
	if err != nil {
		return nil, err
	}
	out, woke := g.conn.Await(ctx, p, opts)
	return g.conn.Finish(ctx, p, &out, woke)
}

// startCall starts the CLIENT span of a request.
func (c *Client) startCall(ctx context.Context, method string, params any) (context.Context, *telemetry.Op) {
	req := telemetry.Request{Peer: c.peer(), Method: method}
	describe(&req, params, c.tel.RecordsToolArguments())
	return c.tel.Start(ctx, &req)
}

// progressHook turns a request's raw progress notifications into
// onProgress calls, recorded on op. It is made once op is known, so that
// a call without progress does not move op to the heap (a closure that
// captured op before its assignment would, on every call).
//
// Progress "MUST increase with each notification"
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress),
// but a request sent again (after a broken 2026-07-28 stream or an expired
// session) starts over at the server; what is not above the last value
// delivered is therefore not delivered again. The notifications arrive on
// the calling goroutine one at a time, so plain variables suffice.
func progressHook(op *telemetry.Op, onProgress func(messages.ProgressParams)) func(json.RawMessage) {
	var last float64
	var delivered bool
	return func(raw json.RawMessage) {
		var p messages.ProgressParams
		if json.Unmarshal(raw, &p) != nil {
			return
		}
		if delivered && p.Progress <= last {
			return
		}
		last, delivered = p.Progress, true
		op.Progress(p.Progress, p.Total, p.Message)
		if onProgress != nil {
			onProgress(p)
		}
	}
}
