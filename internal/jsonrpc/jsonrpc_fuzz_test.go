package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/mcpactor/mcpactor/messages"
)

// canonical decodes JSON into plain values (numbers kept exact), so that
// two encodings of the same value compare equal whatever their spacing or
// escaping. Absent (nil) stays distinct from any value.
func canonical(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	if raw == nil {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decoded message holds invalid JSON %q: %v", raw, err)
	}
	return struct{ v any }{v} // distinct from nil even for JSON null
}

// reencode writes m back with the Append* functions. ok is false for the
// one shape they do not cover: a request with a string id (we only issue
// integer ids; string ids are the server's, which we answer, never send).
func reencode(m Message) (b []byte, ok bool) {
	switch m.Kind() {
	case KindRequest:
		if m.ID.IsString() {
			return nil, false
		}
		n, _ := m.ID.Int64()
		return AppendRequest(nil, n, m.Method, m.Params), true
	case KindNotification:
		return AppendNotification(nil, m.Method, m.Params), true
	case KindResponse:
		if m.Error != nil {
			return AppendError(nil, m.ID, m.Error), true
		}
		return AppendResult(nil, m.ID, m.Result), true
	}
	return nil, false
}

// params normalises what the Append functions send for absent params: {}.
func params(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

func FuzzDecodeMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
		`{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"7","result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":{"at":3}}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: \u00e9\u2028"}}`,
		`{"jsonrpc":"2.0","id":3,"result":null}`,
		`{"jsonrpc":"2.0","id":7.5,"result":{}}`,
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"hello":"world"}`,
		`[{"jsonrpc":"2.0","method":"a"}]`,
		`not json`,
		`{"jsonrpc":"2.0","method":"a","params":[1, 2 ,3 ]}`,
		`{"jsonrpc":"2.0","id":1,"method":"","params":{}}`,
		`{"jsonrpc":"2.0","id":null,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":{"x":[1]},"method":"sampling/createMessage","params":{}}`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\",\"params\":{\"s\":\"<&>\"}}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeMessage(data) // must never panic
		if errors.Is(err, messages.ErrInvalidRequestID) {
			// The one error that comes with a message: the method, alone.
			if m.Method == "" || !reflect.DeepEqual(m, Message{Method: m.Method}) || !errors.Is(err, messages.ErrNotJSONRPC) {
				t.Fatalf("%q: %v with %#v", data, err, m)
			}
			return
		}
		if err != nil {
			if m.Kind() != KindInvalid {
				t.Fatalf("error %v with a %s message", err, m.Kind())
			}
			return
		}
		if m.Kind() == KindInvalid {
			t.Fatalf("%q decoded without error into an invalid message", data)
		}
		b, ok := reencode(m)
		if !ok {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("%q re-encodes as invalid JSON %q", data, b)
		}
		back, err := DecodeMessage(b)
		if err != nil {
			t.Fatalf("%q re-encodes as %q, which does not decode: %v", data, b, err)
		}
		if back.Kind() != m.Kind() || back.ID != m.ID || back.Method != m.Method {
			t.Fatalf("%q -> %q: %s %#v %q became %s %#v %q", data, b, m.Kind(), m.ID, m.Method, back.Kind(), back.ID, back.Method)
		}
		if m.Kind() != KindResponse {
			if !reflect.DeepEqual(canonical(t, params(back.Params)), canonical(t, params(m.Params))) {
				t.Fatalf("%q -> %q: params %s became %s", data, b, m.Params, back.Params)
			}
			return
		}
		if !reflect.DeepEqual(canonical(t, back.Result), canonical(t, m.Result)) {
			t.Fatalf("%q -> %q: result %s became %s", data, b, m.Result, back.Result)
		}
		if (m.Error == nil) != (back.Error == nil) {
			t.Fatalf("%q -> %q: error %v became %v", data, b, m.Error, back.Error)
		}
		if m.Error != nil {
			if back.Error.Code != m.Error.Code || back.Error.Message != m.Error.Message ||
				!reflect.DeepEqual(canonical(t, back.Error.Data), canonical(t, m.Error.Data)) {
				t.Fatalf("%q -> %q: error %+v became %+v", data, b, m.Error, back.Error)
			}
		}
	})
}
