package messages

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// ArgumentsError refuses a request whose arguments cannot be sent, before
// anything is sent: a tools/call's arguments that do not encode as a JSON
// object (the protocol has them be one,
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#calling-tools,
// and a server would refuse them anyway, less clearly), or arguments
// (a tool call's, its _meta, a method's params) that do not encode as
// JSON at all (a channel, a function, a cycle), as Err says.
type ArgumentsError struct {
	Server string
	Method string // set when the arguments are not a tool call's
	Tool   string
	Got    string // what they encode as: "a JSON array", "a JSON string", ...
	Err    error  // why they do not encode, when they do not
}

func (e *ArgumentsError) Error() string {
	var s string
	switch {
	case e.Err != nil && e.Tool != "":
		s = "tool " + strconv.Quote(e.Tool) + ": arguments cannot be encoded as JSON (nothing was sent): " + e.Err.Error()
	case e.Err != nil:
		s = e.Method + ": params cannot be encoded as JSON (nothing was sent): " + e.Err.Error()
	default:
		s = "tool " + strconv.Quote(e.Tool) + ": arguments must be a JSON object, not " + e.Got + " (nothing was sent)"
	}
	if e.Server != "" {
		s = "MCP server " + strconv.Quote(e.Server) + ": " + s
	}
	return s
}

// Unwrap returns why the arguments do not encode (a
// *json.UnsupportedTypeError, ...), if that is the problem.
func (e *ArgumentsError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalidArguments) true.
func (e *ArgumentsError) Is(target error) bool { return target == ErrInvalidArguments }

// KindOf names the kind of the JSON value v ("a JSON array", "null", ...),
// by its first byte, for an error that must not quote the value (it may
// hold a secret).
func KindOf(v []byte) string {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "a JSON object"
	case '[':
		return "a JSON array"
	case '"':
		return "a JSON string"
	case 't', 'f':
		return "a JSON boolean"
	case 'n':
		return "null"
	}
	return "a JSON number"
}

// AppendCallToolParams appends the JSON encoding of p to b, exactly as
// json.Marshal would encode it, without reflecting over the struct:
// tools/call is the hot path. Arguments that encode as anything but an
// object are refused with an *ArgumentsError. The arguments and _meta go through
// appendValue, which leaves only shapes other than the generic JSON ones to
// encoding/json.
func AppendCallToolParams(b []byte, p *CallToolParams) ([]byte, error) {
	return AppendCallToolParamsMeta(b, p, nil)
}

// AppendCallToolParamsMeta is AppendCallToolParams with members, the
// inside of a JSON object, added to the end of p's _meta: the bytes
// WithMeta would make of AppendCallToolParams's, in one pass and one
// buffer. The 2026-07-28 era sends the same members on every request
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/index),
// so this is its tools/call hot path.
func AppendCallToolParamsMeta(b []byte, p *CallToolParams, members []byte) ([]byte, error) {
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
	b = appendString(b, p.Name)
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
func appendToolMeta(b []byte, meta Meta, members []byte) ([]byte, error) {
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
func appendArguments(b []byte, p *CallToolParams) ([]byte, error) {
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
			return nil, &ArgumentsError{Tool: p.Name, Err: err}
		}
	}
	// appendValue writes compact JSON: an object starts at once.
	if len(b) == mark || b[mark] != '{' {
		return nil, &ArgumentsError{Tool: p.Name, Got: KindOf(b[mark:])}
	}
	return b, nil
}

// appendToolTail appends the members of a tools/call's params that a
// 2026-07-28 request sent again carries, and the closing brace.
func appendToolTail(b []byte, p *CallToolParams) ([]byte, error) {
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
		b = appendString(b, p.RequestState)
	}
	return append(b, '}'), nil
}
