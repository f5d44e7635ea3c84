package jsonrpc

import (
	"encoding/json"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/rawjson"
	"github.com/mcpactor/mcpactor/messages"
)

// AppendCallToolParams appends the JSON encoding of p to b, exactly as
// json.Marshal would encode it, without reflecting over the struct:
// tools/call is the hot path. Arguments that encode as anything but an
// object are refused with a *callerr.Error of kind ErrInvalidArguments. The arguments and _meta go through
// appendValue, which leaves only shapes other than the generic JSON ones to
// encoding/json.
func AppendCallToolParams(b []byte, p *messages.CallToolParams) ([]byte, error) {
	return AppendCallToolParamsMeta(b, p, nil)
}

// AppendCallToolParamsMeta is AppendCallToolParams with members, the
// inside of a JSON object, added to the end of p's _meta: the bytes
// WithMeta would make of AppendCallToolParams's, in one pass and one
// buffer. The stateless protocol sends the same members on every request
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/index),
// so this is its tools/call hot path.
func AppendCallToolParamsMeta(b []byte, p *messages.CallToolParams, members []byte) ([]byte, error) {
	// Each part is encoded by a function of its own, called from this
	// small frame one after the other: the arguments, the part a plain
	// call has, are encoded on a stack no deeper than this frame's, not
	// under _meta's or the tail's frames (see appendArguments).
	b = append(b, '{')
	var err error
	if len(p.Meta) > 0 || len(members) > 0 {
		if b, err = appendToolMeta(b, p.Meta, members); err != nil {
			return nil, err
		}
	}
	b = append(b, `"name":`...)
	b = rawjson.AppendString(b, p.Name)
	if p.Arguments != nil {
		if b, err = appendArguments(b, p); err != nil {
			return nil, err
		}
	}
	if len(p.InputResponses) > 0 || p.RequestState != "" {
		return appendToolTail(b, p)
	}
	return append(b, '}'), nil
}

// appendToolMeta appends the _meta member of a tools/call's params and the
// comma after it: meta, then members added to its end.
func appendToolMeta(b []byte, meta messages.Meta, members []byte) ([]byte, error) {
	b = append(b, `"_meta":`...)
	if len(meta) > 0 {
		var err error
		if b, err = appendObject(b, meta); err != nil {
			return nil, err
		}
		if len(members) > 0 {
			// Ours after the caller's: the last of repeated keys
			// is the one decoders keep, as in WithMeta.
			b[len(b)-1] = ','
			b = append(b, members...)
			b = append(b, '}')
		}
	} else {
		b = append(b, '{')
		b = append(b, members...)
		b = append(b, '}')
	}
	return append(b, ','), nil
}

// appendArguments appends the arguments member of a tools/call's params.
// A tools/call's goroutine then waits for the answer with the stack this
// encoding grew (actors.Client.CallTool), so the usual arguments take
// paths only a few small frames deep: arguments already encoded
// (json.RawMessage) are scanned, not recursed into; a small map of plain
// values (appendFlatObject) is encoded in one frame. Anything else takes
// appendValue, deeper.
func appendArguments(b []byte, p *messages.CallToolParams) ([]byte, error) {
	b = append(b, `,"arguments":`...)
	mark := len(b)
	var err error
	done := false
	switch a := p.Arguments.(type) {
	case json.RawMessage:
		if done = rawAsIs(a); done {
			b = append(b, a...)
		}
	case map[string]any:
		b, done = appendFlatObject(b, a)
	}
	if !done {
		if b, err = appendValue(b, p.Arguments); err != nil {
			return nil, callerr.NewArguments(&callerr.Error{Tool: p.Name, Cause: err})
		}
	}
	// appendValue writes compact JSON: an object starts at once.
	if len(b) == mark || b[mark] != '{' {
		return nil, callerr.NewArguments(&callerr.Error{Tool: p.Name, Got: rawjson.KindOf(b[mark:])})
	}
	return b, nil
}

// appendToolTail appends the members of a tools/call's params that a
// 2026-07-28 request sent again carries, and the closing brace.
func appendToolTail(b []byte, p *messages.CallToolParams) ([]byte, error) {
	if len(p.InputResponses) > 0 {
		in, err := json.Marshal(p.InputResponses)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"inputResponses":`...)
		b = append(b, in...)
	}
	if p.RequestState != "" {
		b = append(b, `,"requestState":`...)
		b = rawjson.AppendString(b, p.RequestState)
	}
	return append(b, '}'), nil
}
