package actors

import (
	"context"
	"encoding/json"
	"errors"
	"unsafe"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// exchange sends one request on conn and decodes its result into out (nil
// to discard it). When op is set (someone listens), the trace context goes
// into params._meta (docs/telemetry.md, "Context propagation") and the transport
// reports the request's way to op. The handshake and every Client method
// share it, so a request looks the same on the wire whoever sends it.
func exchange(ctx context.Context, op *telemetry.Op, conn *transport.Conn, method string, params any, out any, opts *transport.RequestOptions) error {
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
	// What follows the answer is out of line: this frame is on the stack
	// of every request in flight through it (a plain tools/call is not:
	// Client.CallTool).
	return decodeInto(conn.Server(), method, res, out, op)
}

// encodeError reports params that could not be encoded; nothing was sent.
// It is always an *messages.ArgumentsError, so that errors.Is(err,
// ErrInvalidArguments) holds whatever part did not encode.
func encodeError(server, method string, err error) error {
	var ae *messages.ArgumentsError
	if errors.As(err, &ae) {
		named := *ae
		named.Server = server
		return &named
	}
	return &messages.ArgumentsError{Server: server, Method: method, Err: err}
}

// decodeInto decodes an answer into out (nothing when out is nil) and
// records it on the span.
func decodeInto(server, method string, res json.RawMessage, out any, op *telemetry.Op) error {
	if out == nil {
		return nil
	}
	if err := decodeResult(res, out); err != nil {
		return &messages.InvalidResultError{Server: server, Method: method, Err: err, Body: snippet(res)}
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
			err = &messages.ArgumentsError{Server: conn.Server(), Method: method, Err: err}
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
