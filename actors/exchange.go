package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// exchangeConn is a request on a connection that no generation holds
// yet: the initialize handshake, and the requests that restore a new
// session's state. Both are of the session protocol. When op is set, the
// trace context goes into the params' _meta and op becomes opts.Observer.
func exchangeConn(ctx context.Context, op *telemetry.Op, conn *transport.Conn, method string, params any, out any, opts *transport.RequestOptions) error {
	raw, err := encodeParams(params)
	if err != nil {
		return encodeError(conn.Server(), method, err)
	}
	if op != nil {
		raw = op.InjectParams(raw)
		opts.Observer = op
	}
	res, err := conn.Call(ctx, method, raw, *opts)
	if err != nil {
		return err
	}
	return decodeInto(conn.Server(), method, res, out, op)
}

// setHeaders puts a stateless request's HTTP headers in opts.Header (none
// in the session protocol, where opts is left as it is).
func (c *Client) setHeaders(ctx context.Context, g *generation, method string, params any, opts *transport.RequestOptions, fresh bool) error {
	if !g.stateless() {
		return nil
	}
	h, err := c.requestHeaders(ctx, g, method, params, fresh)
	if err != nil {
		return err
	}
	opts.Header = h
	return nil
}

// retries goes on from the end of a request's first sending (res, or
// err). In the stateless protocol the request is issued again, with a new
// id, once if its stream broke, and once with fresh headers if the server
// found they did not match the body; each is an EventRetry on op. In the
// session protocol it returns res and err as they are (a broken stream is
// resumed by the transport, a session that expired is Client.replay's).
func (c *Client) retries(ctx context.Context, op *telemetry.Op, g *generation, method string, params any, body []byte, opts *transport.RequestOptions, res json.RawMessage, err error) (json.RawMessage, error) {
	if !g.stateless() {
		return res, err
	}
	reissued, relisted := false, false
	for {
		switch {
		case err == nil:
			return res, nil
		case callerr.StreamBroken(err) != nil && !reissued && ctx.Err() == nil:
			reissued = true
			op.Retry(1, "the response stream broke; the request is issued again with a new id")
		case isHeaderMismatch(err) && method == messages.MethodToolsCall && !relisted:
			relisted = true
			op.Retry(1, "the server found the headers did not match the body; tools listed again")
		default:
			return nil, err
		}
		res, err = c.roundTrip(ctx, op, g, method, params, body, opts, relisted)
	}
}

// rounds ends a request from its first round's answer (res, or err), which
// retries has seen: the result decoded into out. In the stateless
// protocol, while the server answers input_required, the input it asks
// for is gathered (nextRound) and the request sent again with it; a task
// result is awaited (awaitRoundTask); a result that comes after more than
// one round is marked so (markRetried) for the result cache.
//
// The rounds are one logical call: op, the call's CLIENT span, covers them
// all and is its one duration point. Each round after the first is event
// EventRetry on it, and its new JSON-RPC id replaces the span's (the
// earlier ones stay in EventResent events, so that every id the server saw
// leads to the span); the local fulfilment of the input is an INTERNAL
// child span.
func (c *Client) rounds(ctx context.Context, op *telemetry.Op, g *generation, method string, params any, out any, opts *transport.RequestOptions, base []byte, res json.RawMessage, err error) error {
	for round := 1; ; round++ {
		if err != nil {
			return err
		}
		if !g.stateless() {
			return decodeInto(g.conn.Server(), method, res, out, op)
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
		res, err = c.roundTrip(ctx, op, g, method, params, body, opts, false)
		res, err = c.retries(ctx, op, g, method, params, body, opts, res, err)
	}
}

// protocolOptions are what g's protocol changes in a request's options:
// over HTTP in the stateless protocol, closing a request's stream is its
// cancellation, and no notifications/cancelled is sent.
func protocolOptions(g *generation, opts *transport.RequestOptions) {
	if g.stateless() && g.conn.HTTP() {
		opts.NoCancel = true
	}
}

// requestBody is a request's params as sent on g: encodeParams's bytes,
// with the stateless protocol's _meta members (metaMembers) added. A
// tools/call's are encoded in one buffer with them.
func (c *Client) requestBody(g *generation, method string, params any) ([]byte, error) {
	if !g.stateless() {
		raw, err := encodeParams(params)
		if err != nil {
			return nil, encodeError(c.name, method, err)
		}
		return raw, nil
	}
	members := c.metaMembers(g.sess)
	if p, ok := callToolParams(params); ok {
		b, err := jsonrpc.AppendCallToolParamsMeta(make([]byte, 0, toolParamsSize(p, members)), p, members)
		if err != nil {
			return nil, encodeError(c.name, method, err)
		}
		return b, nil
	}
	raw, err := encodeParams(params)
	if err != nil {
		return nil, encodeError(c.name, method, err)
	}
	base, err := jsonrpc.WithMeta(raw, members)
	if err != nil {
		return nil, fmt.Errorf("mcp: %s params: %w", method, err)
	}
	return base, nil
}

// metaMembers is the stateless session's _meta members, with the log
// level the caller set (the stateless protocol's replacement of
// logging/setLevel).
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

// encodeError reports params that could not be encoded; nothing was sent.
// It is always a *callerr.Error of kind ErrInvalidArguments,
// whatever part did not encode.
func encodeError(server, method string, err error) error {
	var ae *callerr.Error
	if errors.As(err, &ae) && errors.Is(ae, errkind.ErrInvalidArguments) {
		named := *ae
		named.Server = server
		return &named
	}
	return callerr.NewArguments(&callerr.Error{Server: server, Method: method, Cause: err})
}

// decodeInto decodes an answer into out (nothing when out is nil) and
// records it on the span.
func decodeInto(server, method string, res json.RawMessage, out any, op *telemetry.Op) error {
	if out == nil {
		return nil
	}
	if err := decodeResult(res, out); err != nil {
		return callerr.NewInvalidResult(&callerr.Error{Server: server, Method: method, Cause: err, Body: snippet(res)})
	}
	if op != nil && method == messages.MethodToolsCall && op.RecordsToolArguments() {
		op.SetToolResult(res)
	}
	return nil
}

// notifyTraced sends a notification under its own CLIENT span.
func notifyTraced(ctx context.Context, tel *telemetry.Telemetry, peer telemetry.Peer, conn *transport.Conn, method string, params any) error {
	ctx, op := tel.Start(ctx, &telemetry.Request{Peer: peer, Method: method, Notification: true})
	var raw json.RawMessage
	if params != nil {
		var err error
		if raw, err = json.Marshal(params); err != nil {
			err = callerr.NewArguments(&callerr.Error{Server: conn.Server(), Method: method, Cause: err})
			op.End(err, false)
			return err
		}
	}
	if op != nil {
		if raw == nil {
			raw = json.RawMessage("{}")
		}
		raw = op.InjectParams(raw)
	}
	err := conn.Notify(ctx, method, raw)
	op.End(err, false)
	return err
}

// describe fills in the parts of a span that depend on the request's
// params: the tool or prompt name, the resource URI.
func describe(r *telemetry.Request, params any, recordArgs bool) {
	if p, ok := callToolParams(params); ok {
		r.Target = p.Name
		if r.Arguments == nil && p.Arguments != nil && recordArgs {
			// Opt-in and sensitive (docs/telemetry.md): encoded only then.
			r.Arguments, _ = json.Marshal(p.Arguments)
		}
		return
	}
	switch p := params.(type) {
	case messages.GetPromptParams:
		r.Target = p.Name
	case messages.ReadResourceParams:
		r.ResourceURI = p.URI
	case messages.SubscribeParams:
		r.ResourceURI = p.URI
	case messages.UnsubscribeParams:
		r.ResourceURI = p.URI
	}
}

// encodeParams is json.Marshal, with the hot tools/call params encoded
// without reflection (same bytes; jsonrpc.AppendCallToolParams).
func encodeParams(params any) (json.RawMessage, error) {
	if p, ok := callToolParams(params); ok {
		return jsonrpc.AppendCallToolParams(make([]byte, 0, callToolSize(p)), p)
	}
	return json.Marshal(params)
}

// callToolSize is the size to allocate for the encoding of p: one
// allocation for the usual small call instead of a series of doublings
// from empty; arguments the caller encoded say their size. Without _meta
// and the like, the size is exact unless the name needs escaping:
// {"name":"…","arguments":…} is 24 bytes besides the name and the
// arguments, and the buffer is garbage once the actor has framed the
// request.
func callToolSize(p *messages.CallToolParams) int {
	size := 24 + len(p.Name)
	if raw, ok := p.Arguments.(json.RawMessage); ok {
		size += len(raw)
	} else {
		size += 40
	}
	if len(p.Meta) > 0 || len(p.InputResponses) > 0 || p.RequestState != "" {
		size += 64
	}
	return size
}

// toolParamsSize is callToolSize with room, mostly, for _meta members.
func toolParamsSize(p *messages.CallToolParams, members []byte) int {
	if len(members) == 0 {
		return callToolSize(p)
	}
	return callToolSize(p) + len(members) + 12
}

// decodeResult is json.Unmarshal, except for a tools/call result
// (CallToolWith's *toolCall): that is made here, once the answer has
// arrived, and decoded by its one-pass decoder directly (json.Unmarshal
// would first validate and skip the whole result only to hand the same
// bytes to it).
func decodeResult(res json.RawMessage, out any) error {
	if tc, ok := out.(*toolCall); ok {
		// res is the transport's copy of the answer, ours alone: the
		// result's text may share it.
		r := new(toolResult)
		r.res.Content = r.first[:0]
		err := r.res.UnmarshalOwned(res)
		if len(r.res.Content) == 0 && unsafe.SliceData(r.res.Content) == &r.first[0] {
			r.res.Content = nil // no content member: as decoded into a new result
		}
		tc.res = &r.res
		return err
	}
	if o, ok := out.(interface{ UnmarshalOwned([]byte) error }); ok {
		// A list decoded in one pass (messages.ListToolsResult).
		return o.UnmarshalOwned(res)
	}
	return json.Unmarshal(res, out)
}

// toolResult is a tools/call result with room for one content block, in
// one allocation: a result usually has one block, whose slice would be an
// allocation of its own. The decoder fills the slice there is room for
// (as encoding/json fills a slice) and makes a new one for more blocks.
type toolResult struct {
	res   messages.CallToolResult
	first [1]messages.Content
}
