package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// maxInputRounds bounds the rounds of one multi round-trip request.
const maxInputRounds = 10

// exchangeOn sends one request on generation g, in its era: as it is in
// the session era; with the stateless era's _meta and headers, its
// multi round-trips and its re-issue of a request whose stream broke in
// the 2026-07-28 era.
func (c *Client) exchangeOn(ctx context.Context, op *telemetry.Op, g *generation, method string, params any, out any, opts *transport.RequestOptions) error {
	if g.sess == nil || !g.sess.modern {
		return exchange(ctx, op, g.conn, method, params, out, opts)
	}
	return c.exchangeModern(ctx, op, g, method, params, out, opts)
}

// exchangeModern is exchangeOn in the 2026-07-28 era. It is a function of
// its own so that its frame is not on the caller's stack in the session
// era. A plain tools/call does not come here: it sends its first round
// and waits for it on a shallow stack (Client.callTool), and comes to
// modernRetries and modernRounds only when that round was not the end.
func (c *Client) exchangeModern(ctx context.Context, op *telemetry.Op, g *generation, method string, params any, out any, opts *transport.RequestOptions) error {
	base, err := c.modernBody(g, method, params)
	if err != nil {
		return err
	}
	// What this era changes in the options (NoCancel, the headers) is
	// this exchange's own: a request sent again starts from the caller's.
	own := *opts
	modernOptions(g, &own)
	res, err := c.modernRound(ctx, op, g, method, params, base, &own)
	return c.modernRounds(ctx, op, g, method, params, out, &own, base, res, err)
}

// modernOptions are what this era changes in a request's options.
func modernOptions(g *generation, opts *transport.RequestOptions) {
	if g.conn.HTTP() {
		// Closing a request's stream is its cancellation in this era;
		// there is no notifications/cancelled over HTTP.
		opts.NoCancel = true
	}
}

// modernRounds goes on from the end of a request's first round (res, or
// err): while the server answers input_required, the input it asks for
// is gathered and the request sent again with it; the complete result is
// decoded into out.
//
// The rounds are one logical call
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr):
// op, the call's CLIENT span, covers them all and is its one duration
// point. Each round after the first is event EventRetry on it, and its
// new JSON-RPC id replaces the span's (the earlier ones stay in
// EventResent events, so that every id the server saw leads to the span);
// the local fulfilment of the input is an INTERNAL child span.
func (c *Client) modernRounds(ctx context.Context, op *telemetry.Op, g *generation, method string, params any, out any, opts *transport.RequestOptions, base []byte, res json.RawMessage, err error) error {
	for round := 1; ; round++ {
		if err != nil {
			return err
		}
		rt := messages.ResultTypeOf(res)
		if rt == messages.ResultTypeComplete {
			if r, ok := out.(interface{ markRetried() }); ok && round > 1 {
				r.markRetried()
			}
			return decodeInto(g.conn.Server(), method, res, out, op)
		}
		if rt == messages.ResultTypeTask {
			return c.awaitRoundTask(ctx, method, res, out, opts)
		}
		var body []byte
		if body, err = c.nextRound(ctx, g, method, rt, base, res, round); err != nil {
			return err
		}
		op.Retry(round, roundReason)
		res, err = c.modernRound(ctx, op, g, method, params, body, opts)
	}
}

// roundReason is the reason of the EventRetry of a round after the first.
const roundReason = "input_required: the request is sent again with the input the server asked for"

// modernBody is a request's params with the stateless era's _meta. A
// tools/call's is encoded with it in one buffer, the hot path's one
// allocation as in the session era; other params are merged with it.
func (c *Client) modernBody(g *generation, method string, params any) ([]byte, error) {
	if p, ok := callToolParams(params); ok {
		members := c.metaMembers(g.sess)
		return c.appendModernTool(make([]byte, 0, modernToolSize(p, members)), p, members)
	}
	raw, err := encodeParams(params)
	if err != nil {
		return nil, encodeError(c.name, method, err)
	}
	base, err := jsonrpc.WithMeta(raw, c.metaMembers(g.sess))
	if err != nil {
		return nil, fmt.Errorf("mcp: %s params: %w", method, err)
	}
	return base, nil
}

// modernToolSize is room enough, mostly, for a 2026-07-28 tools/call's
// params with the era's _meta members.
func modernToolSize(p *messages.CallToolParams, members []byte) int {
	return callToolSize(p) + len(members) + 12
}

// appendModernTool appends a 2026-07-28 tools/call's params, with the
// era's _meta members (metaMembers), to b.
func (c *Client) appendModernTool(b []byte, p *messages.CallToolParams, members []byte) ([]byte, error) {
	b, err := jsonrpc.AppendCallToolParamsMeta(b, p, members)
	if err != nil {
		return nil, encodeError(c.name, messages.MethodToolsCall, err)
	}
	return b, nil
}

// nextRound answers a result of type rt that is not complete: for
// input_required, the body of the next round (base with the input the
// server asked for); otherwise an error.
func (c *Client) nextRound(ctx context.Context, g *generation, method, rt string, base []byte, res json.RawMessage, round int) ([]byte, error) {
	switch rt {
	case messages.ResultTypeInputRequired:
		if !inputRequests(method) {
			return nil, &messages.InvalidResultError{Server: c.name, Method: method, Err: errors.New("input_required is not allowed for " + method), Body: snippet(res)}
		}
		if round >= maxInputRounds {
			return nil, &messages.InvalidResultError{Server: c.name, Method: method, Err: fmt.Errorf("still asking for input after %d rounds", round), Body: snippet(res)}
		}
		more, err := c.fulfil(ctx, g.sess.peer, res)
		if err != nil {
			return nil, err
		}
		return withMembers(base, more), nil
	default:
		return nil, &messages.InvalidResultError{Server: c.name, Method: method, Err: fmt.Errorf("unknown resultType %q", rt), Body: snippet(res)}
	}
}

// modernRound sends one round: with the request's headers (Mcp-Method,
// Mcp-Name, Mcp-Param-*), once more with a new id if its stream broke, and
// once more after re-listing the tools if the server says the headers do
// not match the body (a tool's schema may have changed).
func (c *Client) modernRound(ctx context.Context, op *telemetry.Op, g *generation, method string, params any, body []byte, opts *transport.RequestOptions) (json.RawMessage, error) {
	r, err := c.modernRequest(ctx, op, g, method, params, body, opts, false)
	if err != nil {
		return nil, err
	}
	res, err := g.conn.Call(ctx, method, r.body, r.opts)
	return c.modernRetries(ctx, op, g, method, params, body, opts, res, err)
}

// modernRetries goes on from the end of a round's first request (res, or
// err): issued again with a new id if its stream broke, and with fresh
// headers if the server found they did not match the body.
func (c *Client) modernRetries(ctx context.Context, op *telemetry.Op, g *generation, method string, params any, body []byte, opts *transport.RequestOptions, res json.RawMessage, err error) (json.RawMessage, error) {
	reissued, relisted := false, false
	for {
		switch {
		case err == nil:
			return res, nil
		case errors.Is(err, messages.ErrStreamBroken) && !reissued && ctx.Err() == nil:
			reissued = true
			op.Retry(1, "the response stream broke; the request is issued again with a new id")
		case isHeaderMismatch(err) && method == messages.MethodToolsCall && !relisted:
			relisted = true
			op.Retry(1, "the server found the headers did not match the body; tools listed again")
		default:
			return nil, err
		}
		r, rerr := c.modernRequest(ctx, op, g, method, params, body, opts, relisted)
		if rerr != nil {
			return nil, rerr
		}
		res, err = g.conn.Call(ctx, method, r.body, r.opts)
	}
}

// roundRequest is one request of a round, ready for the transport.
type roundRequest struct {
	body json.RawMessage
	opts transport.RequestOptions
}

// modernRequest makes a round's request: its headers (fresh: the tools
// listed again first), and the trace context in its body.
func (c *Client) modernRequest(ctx context.Context, op *telemetry.Op, g *generation, method string, params any, body []byte, opts *transport.RequestOptions, fresh bool) (roundRequest, error) {
	h, err := c.requestHeaders(ctx, g, method, params, fresh)
	if err != nil {
		return roundRequest{}, err
	}
	opts.Header = h
	r := roundRequest{body: body, opts: *opts}
	if op != nil {
		r.body = op.InjectParams(body)
		r.opts.Observer = op
	}
	return r, nil
}

// requestHeaders builds a stateless-era request's HTTP headers (nil on
// stdio). For tools/call they include the tool's x-mcp-header arguments,
// whose annotations come from the tool list (read once per connection, and
// again when fresh is set). MCP-Protocol-Version is left to the transport,
// which sends the version the handshake established on every request.
// Without Mcp-Param headers, the map is the connection's for this method
// and name (sharedHeaders), not a new one per request.
func (c *Client) requestHeaders(ctx context.Context, g *generation, method string, params any, fresh bool) (map[string]string, error) {
	if !g.conn.HTTP() {
		return nil, nil
	}
	name := targetName(params)
	p, ok := callToolParams(params)
	if !ok {
		return g.sharedHeaders(method, name), nil
	}
	annotated, err := c.toolHeaderParams(ctx, g, p.Name, fresh)
	if err != nil {
		return nil, err
	}
	if len(annotated) == 0 {
		return g.sharedHeaders(method, name), nil
	}
	h := routeHeaders(method, name)
	return h, paramHeaders(h, annotated, p.Arguments)
}

// toolHeaderParams returns the x-mcp-header arguments of a tool, listing
// the tools first if this connection has not.
func (c *Client) toolHeaderParams(ctx context.Context, g *generation, tool string, fresh bool) ([]headerParam, error) {
	if m := g.headers.Load(); m != nil && !fresh {
		return (*m)[tool], nil
	}
	if _, err := c.ListTools(ctx); err != nil {
		return nil, err
	}
	if m := g.headers.Load(); m != nil {
		return (*m)[tool], nil
	}
	return nil, nil
}

// isHeaderMismatch reports the stateless era's HeaderMismatch error.
func isHeaderMismatch(err error) bool {
	var rpc *messages.RPCError
	var status *messages.HTTPStatusError
	switch {
	case errors.As(err, &rpc):
		return rpc.Code == codeHeaderMismatch
	case errors.As(err, &status) && status.RPC != nil:
		return status.RPC.Code == codeHeaderMismatch
	}
	return false
}

// inputRequests reports whether method may answer input_required
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
func inputRequests(method string) bool {
	switch method {
	case messages.MethodToolsCall, messages.MethodPromptsGet, messages.MethodResourcesRead:
		return true
	}
	return false
}

// fulfil answers the input requests of an input_required result with the
// same handlers that answer session-era server requests, each under an
// INTERNAL span describing the server as peer, and returns the
// members the retry adds to the original params: inputResponses and, when
// the server gave one, requestState, byte for byte as it came (never
// invented when absent).
func (c *Client) fulfil(ctx context.Context, peer telemetry.Peer, res json.RawMessage) ([]byte, error) {
	var ir struct {
		InputRequests map[string]messages.InputRequest `json:"inputRequests"`
		RequestState  json.RawMessage                  `json:"requestState"`
	}
	if err := json.Unmarshal(res, &ir); err != nil {
		return nil, &messages.InvalidResultError{Server: c.name, Method: "input_required", Err: err, Body: snippet(res)}
	}
	responses := make(map[string]json.RawMessage, len(ir.InputRequests))
	for key, req := range ir.InputRequests {
		run := handlerFor(&c.handlers, c.name, req.Method)
		if run == nil {
			return nil, &messages.InvalidResultError{Server: c.name, Method: req.Method, Err: errors.New("the server asked for input no handler answers"), Body: snippet(res)}
		}
		ictx, iop := c.tel.StartInternal(ctx, &telemetry.Request{Peer: peer, Method: req.Method})
		var result json.RawMessage
		var rpcErr *messages.Error
		if !c.callbacks.enter() {
			iop.End(errClientStopped, false)
			return nil, &messages.TransportClosedError{Server: c.name, Closed: true}
		}
		var failure error
		result, rpcErr, failure = runHandler(ictx, run, transport.InboundRequest{Method: req.Method, Params: req.Params}, c.logger(), c.name, &c.panicked)
		c.callbacks.exit()
		if failure != nil {
			iop.End(failure, false)
		} else {
			iop.End(errOrNil(rpcErr), false)
		}
		if rpcErr != nil {
			// The input is not sent: the call ends here, and its caller
			// is the program whose handler failed, which reads why.
			msg := rpcErr.Message
			if failure != nil {
				msg = failure.Error()
			}
			return nil, &messages.RPCError{Server: c.name, Method: req.Method, Code: rpcErr.Code, Message: msg, Data: rpcErr.Data}
		}
		responses[key] = result
	}
	enc, err := json.Marshal(responses)
	if err != nil {
		return nil, err
	}
	b := append([]byte(`"inputResponses":`), enc...)
	if len(ir.RequestState) > 0 && string(ir.RequestState) != "null" {
		b = append(b, `,"requestState":`...)
		b = append(b, ir.RequestState...)
	}
	return b, nil
}

// withMembers adds members (the inside of an object) to the top level of
// params, which our own encoding made a JSON object.
func withMembers(params, members []byte) []byte {
	end := len(params) - 1
	for end > 0 && params[end] != '}' {
		end--
	}
	out := make([]byte, 0, len(params)+len(members)+1)
	out = append(out, params[:end]...)
	if inner := params[1:end]; len(trimSpace(inner)) > 0 {
		out = append(out, ',')
	}
	out = append(out, members...)
	return append(out, params[end:]...)
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// metaMembers is the session's _meta members, with the log level the
// caller set (the stateless era's replacement of logging/setLevel).
func (c *Client) metaMembers(s *session) []byte {
	lvl := c.logLevel.Load()
	if lvl == nil {
		return s.meta
	}
	b := append([]byte(nil), s.meta...)
	b = append(b, `,"`+messages.MetaKeyLogLevel+`":`...)
	v, _ := json.Marshal(*lvl)
	return append(b, v...)
}
