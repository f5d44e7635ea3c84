package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpactor/mcpactor/internal/rawjson"
	"github.com/mcpactor/mcpactor/messages"
)

// DecodeMessage decodes one JSON-RPC 2.0 message. It never panics, whatever
// the bytes. A syntax error is returned as is (the *json.SyntaxError that
// json.Unmarshal gives); JSON that is not a well-formed JSON-RPC message
// yields an error wrapping messages.ErrNotJSONRPC.
//
// A message with a method and an id no request may have (null, an object,
// an array, a boolean, a fraction) is an invalid request, not a request or
// a notification: the error wraps messages.ErrInvalidRequestID too, and the Message
// returned with it holds the method (and nothing else), so that the
// transport can log it and answer with Invalid Request. Every other error
// comes with the zero Message.
//
// data may be reused once DecodeMessage returns: the message holds copies.
//
// The envelope is read by hand in one pass (rawjson.Reader; see
// docs/architecture.md, "Decoding and encoding by hand"). It decodes
// exactly what json.Unmarshal into the envelope struct decodes, with the
// same rules for repeated keys (the last wins), null members and keys that
// match only case-insensitively ("Result" sets result, as encoding/json
// matches struct fields), and returns the same errors
// (jsonrpc_reference_test.go holds it to that).
func DecodeMessage(data []byte) (Message, error) { return decodeMessage(data, false) }

// DecodeOwnedMessage is DecodeMessage for data the caller gives up: the
// message's params or result are slices of data rather than copies of
// them, so data must never be written again. A transport that reads a
// message into a buffer of its own (a long stdio line put together, an
// HTTP body) saves a copy of every result that way, a large one's above
// all.
func DecodeOwnedMessage(data []byte) (Message, error) { return decodeMessage(data, true) }

func decodeMessage(data []byte, owned bool) (Message, error) {
	r := rawjson.Reader{Data: data}
	e := envelope{owned: owned}
	e.read(&r)
	r.End()
	if r.Invalid {
		return Message{}, rawjson.SyntaxError(data)
	}
	return e.message()
}

// envelope holds the members of a message object as read from the line.
// Raw values are sub-slices of the line, copied only for the message
// returned.
type envelope struct {
	jsonrpc   []byte // decoded
	id        []byte // raw; nil when absent
	method    []byte // decoded; meaningful when hasMethod
	hasMethod bool   // method is present and not null
	params    []byte // raw; nil when absent
	result    []byte // raw; nil when absent
	err       *messages.Error
	wrongType error // the first member of the wrong JSON type
	owned     bool  // the line is the message's: raw values are not copied
}

// The envelope members (JSON-RPC 2.0 §4, §5), in the order of envelopeFields.
const (
	envJSONRPC = iota
	envID
	envMethod
	envParams
	envResult
	envError
)

var envelopeFields = []string{"jsonrpc", "id", "method", "params", "result", "error"}

func (e *envelope) read(r *rawjson.Reader) {
	switch r.Peek() {
	case '{':
	case 'n':
		// null into a struct is no error for encoding/json; the missing
		// jsonrpc member rejects it.
		r.Value()
		return
	default:
		r.Value()
		e.typeError("")
		return
	}
	for more := r.BeginObject(); more; more = r.NextMember() {
		switch rawjson.FieldIndex(r.Key(), envelopeFields) {
		case envJSONRPC:
			switch c := r.Peek(); c {
			case '"':
				e.jsonrpc = r.Str()
			case 'n': // null leaves a string as it was
				r.Value()
			default:
				r.Value()
				e.typeError("jsonrpc")
			}
		case envID:
			e.id = r.Value()
		case envMethod:
			switch c := r.Peek(); c {
			case '"':
				e.method, e.hasMethod = r.Str(), true
			case 'n': // null sets a pointer to nil: no method
				r.Value()
				e.hasMethod = false
			default:
				r.Value()
				e.typeError("method")
			}
		case envParams:
			e.params = r.Value()
		case envResult:
			e.result = r.Value()
		case envError:
			// Error objects are rare: encoding/json decodes them, into
			// e.err as it stands, so that repeated keys merge as
			// json.Unmarshal merges them.
			if raw := r.Value(); raw != nil {
				if err := rawjson.UnmarshalInto(raw, &e.err); err != nil {
					e.errorTypeError(err)
				}
			}
		default:
			r.Value()
		}
	}
}

// typeError records a member (field "" for the whole message) whose JSON
// type does not fit, as json.Unmarshal reported it: the first one wins, and
// the decoding goes on, so that a later syntax error still takes precedence.
func (e *envelope) typeError(field string) {
	if e.wrongType == nil {
		e.wrongType = fmt.Errorf("%w: field %q has the wrong type", messages.ErrNotJSONRPC, field)
	}
}

// errorTypeError records a type error inside the error member, naming the
// field by its path as encoding/json does ("error.code").
func (e *envelope) errorTypeError(err error) {
	var ute *json.UnmarshalTypeError
	if !errors.As(err, &ute) {
		if e.wrongType == nil {
			e.wrongType = err
		}
		return
	}
	field := "error"
	if ute.Field != "" {
		field += "." + ute.Field
	}
	e.typeError(field)
}

// message checks the envelope against JSON-RPC 2.0 (§4 request and
// notification, §5 response) and builds the Message.
func (e *envelope) message() (Message, error) {
	if e.wrongType != nil {
		return Message{}, e.wrongType
	}
	if string(e.jsonrpc) != "2.0" {
		return Message{}, fmt.Errorf("%w: jsonrpc is %q, want \"2.0\"", messages.ErrNotJSONRPC, e.jsonrpc)
	}
	if e.hasMethod && len(e.method) > 0 {
		if what := invalidRequestID(e.id); what != "" {
			return Message{Method: string(e.method)}, fmt.Errorf("%w: %w (%s)", messages.ErrNotJSONRPC, messages.ErrInvalidRequestID, what)
		}
	}
	var m Message
	if e.id != nil {
		if err := m.ID.UnmarshalJSON(e.id); err != nil {
			return Message{}, fmt.Errorf("%w: %v", messages.ErrNotJSONRPC, err)
		}
	}
	if e.hasMethod {
		if len(e.method) == 0 {
			return Message{}, fmt.Errorf("%w: empty method", messages.ErrNotJSONRPC)
		}
		if e.result != nil || e.err != nil {
			return Message{}, fmt.Errorf("%w: method together with result or error", messages.ErrNotJSONRPC)
		}
		m.Method = string(e.method)
		m.Params = e.keep(e.params)
		return m, nil
	}
	switch {
	case e.result != nil && e.err != nil:
		return Message{}, fmt.Errorf("%w: both result and error", messages.ErrNotJSONRPC)
	case e.result == nil && e.err == nil:
		return Message{}, fmt.Errorf("%w: neither method, result nor error", messages.ErrNotJSONRPC)
	case e.err != nil:
		m.Error = e.err
	default:
		m.Result = e.keep(e.result)
	}
	return m, nil
}

// keep returns a raw value for the message: a copy, unless the line is
// the message's own.
func (e *envelope) keep(raw []byte) json.RawMessage {
	if e.owned && raw != nil {
		// Capped, so that an append to the value cannot write over
		// the rest of the line.
		return json.RawMessage(raw[:len(raw):len(raw)])
	}
	return clone(raw)
}

// invalidRequestID names what the raw id of a request is when no request
// id may be that (see messages.ErrInvalidRequestID), or returns "" for an absent,
// string or integer id. An integer too large for an int64 is a valid id
// that ID cannot hold: ID.UnmarshalJSON refuses it (ErrNotJSONRPC alone),
// not this check (no ErrInvalidRequestID).
func invalidRequestID(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case 'n':
		return "null"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case '"':
		return ""
	}
	if bytes.ContainsAny(raw, ".eE") {
		return "a number that is not an integer"
	}
	return ""
}

// clone copies a raw value out of the line, which the caller reuses.
func clone(raw []byte) json.RawMessage {
	if raw == nil {
		return nil
	}
	return append(json.RawMessage(nil), raw...)
}
