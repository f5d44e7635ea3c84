package jsonrpc

import (
	"errors"
	"reflect"
	"testing"

	"github.com/mcpactor/mcpactor/messages"
)

// TestDecodeInvalidRequestID: a server message with a method and an id no
// request may have is an invalid request, to be answered with -32600 and
// a null id (JSON-RPC 2.0 §5), and DecodeMessage says so, with the method
// for the log.
func TestDecodeInvalidRequestID(t *testing.T) {
	for _, tc := range []struct{ line, what string }{
		// MCP: request ids MUST NOT be null; JSON-RPC: a notification
		// has no id member, so this is not one.
		{`{"jsonrpc":"2.0","id":null,"method":"roots/list"}`, "null"},
		{`{"jsonrpc":"2.0","method":"roots/list","params":{},"id":null}`, "null"},
		{`{"jsonrpc":"2.0","id":{"n":7},"method":"roots/list"}`, "an object"},
		{`{"jsonrpc":"2.0","id":[7],"method":"roots/list"}`, "an array"},
		{`{"jsonrpc":"2.0","id":false,"method":"roots/list"}`, "a boolean"},
		{`{"jsonrpc":"2.0","id":7.5,"method":"roots/list"}`, "a number that is not an integer"},
		{`{"jsonrpc":"2.0","id":7e0,"method":"roots/list"}`, "a number that is not an integer"},
		{`{"jsonrpc":"2.0","ID":7.0,"Method":"roots/list"}`, "a number that is not an integer"},
	} {
		m, err := DecodeMessage([]byte(tc.line))
		if !errors.Is(err, messages.ErrInvalidRequestID) || !errors.Is(err, messages.ErrNotJSONRPC) {
			t.Errorf("%s: error %v, want messages.ErrInvalidRequestID and messages.ErrNotJSONRPC", tc.line, err)
			continue
		}
		if want := "not a JSON-RPC 2.0 message: invalid request id (" + tc.what + ")"; err.Error() != want {
			t.Errorf("%s: error %q, want %q", tc.line, err, want)
		}
		if !reflect.DeepEqual(m, Message{Method: "roots/list"}) {
			t.Errorf("%s: message %#v, want the method alone", tc.line, m)
		}
	}
}

// TestDecodeValidRequestsUnchanged: the rule touches no valid message, and
// ids that are wrong for other reasons keep their old errors.
func TestDecodeValidRequestsUnchanged(t *testing.T) {
	for _, tc := range []struct {
		line string
		kind Kind
		id   messages.ID
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"roots/list"}`, KindRequest, messages.Int64ID(7)},
		{`{"jsonrpc":"2.0","id":-0,"method":"roots/list"}`, KindRequest, messages.Int64ID(0)},
		{`{"jsonrpc":"2.0","id":"7.5","method":"roots/list"}`, KindRequest, messages.StringID("7.5")},
		{`{"jsonrpc":"2.0","id":"","method":"roots/list"}`, KindRequest, messages.StringID("")},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification, messages.ID{}},
		{`{"jsonrpc":"2.0","id":null,"method":"a","method":null,"result":{}}`, KindResponse, messages.ID{}},
	} {
		m, err := DecodeMessage([]byte(tc.line))
		if err != nil || m.Kind() != tc.kind || m.ID != tc.id {
			t.Errorf("%s: %s %#v, %v; want %s %#v", tc.line, m.Kind(), m.ID, err, tc.kind, tc.id)
		}
	}
	for _, line := range []string{
		// An integer too large for an int64 is a valid JSON-RPC id
		// that ID cannot hold: refused, as before, but not as invalid.
		`{"jsonrpc":"2.0","id":99999999999999999999,"method":"roots/list"}`,
		// Other faults come first.
		`{"jsonrpc":"1.0","id":null,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":null,"method":""}`,
		`{"jsonrpc":"2.0","id":null,"method":5}`,
	} {
		m, err := DecodeMessage([]byte(line))
		if !errors.Is(err, messages.ErrNotJSONRPC) || errors.Is(err, messages.ErrInvalidRequestID) || !reflect.DeepEqual(m, Message{}) {
			t.Errorf("%s: %#v, %v; want a plain messages.ErrNotJSONRPC", line, m, err)
		}
	}
}

// TestDecodeErrorWithNullID pins how a server's answer to a request it
// could not read decodes: JSON-RPC 2.0 §5 gives it a null id, since the id
// could not be known (-32700 Parse error, -32600 Invalid Request). It is a
// response with the error and no id, so that the transport can log the
// server's code and message; it answers none of our requests.
func TestDecodeErrorWithNullID(t *testing.T) {
	for _, tc := range []struct {
		line string
		want messages.Error
	}{
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, messages.Error{Code: messages.CodeParseError, Message: "Parse error"}},
		{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"line":3}},"id":null}`,
			messages.Error{Code: messages.CodeInvalidRequest, Message: "Invalid Request", Data: []byte(`{"line":3}`)}},
	} {
		m, err := DecodeMessage([]byte(tc.line))
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		if m.Kind() != KindResponse || m.ID.IsValid() || m.Error == nil || !reflect.DeepEqual(*m.Error, tc.want) || m.Result != nil || m.Method != "" {
			t.Errorf("%s: %s %#v, error %+v", tc.line, m.Kind(), m, m.Error)
		}
		if _, _, ok := SalvageResponse([]byte(tc.line)); ok {
			t.Errorf("%s: salvaged as the answer to one of our requests", tc.line)
		}
	}
}
