package testserver

import (
	"encoding/json"
	"reflect"
	"testing"
)

var messageSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
	` { "jsonrpc" : "2.0" , "id" : "a\"b" , "method" : "ping" } `,
	`{"jsonrpc":"2.0","id":null,"method":"x","params":null}`,
	`{"jsonrpc":"2.0","id":-1.5e3,"result":{"a":[1,{"b":"}]"}]}}`,
	`{"jsonrpc":"2.0","id":"srv-1","error":{"code":-1,"message":"no"}}`,
	`{"jsonrpc":"2.0","ID":2,"Method":"ping"}`,
	`{"jsonrpc":"2.0","id":3,"method":"p\u0069ng"}`,
	`{"jsonr\u0070c":"2.0","id":3,"method":"ping"}`,
	`{"id":4,"method":5}`,
	`{"id":4,"id":5,"method":"ping","method":"pong"}`,
	`{}`, `[]`, `"str"`, `{"a":}`, `{"id":1,"method":"ping"`, `{"id":1,"method":"ping"}x`,
	`{"id":[1,2],"method":{"a":1}}`, "{\"method\":\"\x8a\"}", `{"params":{"name":"echo","arguments":{"message":"x\ny"}}}`,
}

// FuzzDecodeMessage checks the fast path against encoding/json: whenever
// it accepts a line, it must decode it exactly as json.Unmarshal does.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast, slow message
		if !decodeMessage(line, &fast) {
			return
		}
		if err := json.Unmarshal(line, &slow); err != nil {
			t.Fatalf("fast path accepted %q, encoding/json: %v", line, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\nfast %+v\nslow %+v", line, fast, slow)
		}
	})
}

// FuzzDecodeCall does the same for tools/call params and echo arguments.
func FuzzDecodeCall(f *testing.F) {
	for _, s := range []string{
		`{"name":"echo","arguments":{"message":"hi"},"_meta":{"progressToken":1}}`,
		`{"name":"echo","arguments":{"message":"a\"\u00e9\\"}}`,
		`{"name":"echo","arguments":{"message":5}}`,
		"{\"name\":\"\x8a\"}", "{\"arguments\":{\"message\":\"\xff\"}}", `{"Name":"echo"}`, `{"name":"e\u0063ho"}`, `{"arguments":{"MESSAGE":"x"}}`, `{"arguments":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			return // the line was validated before this is called
		}
		var slow struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Meta      json.RawMessage `json:"_meta"`
		}
		name, args, meta, ok := decodeCallParams(params)
		if ok {
			if err := json.Unmarshal(params, &slow); err != nil {
				t.Fatalf("fast path accepted %q: %v", params, err)
			}
			if name != slow.Name || string(args) != string(slow.Arguments) || string(meta) != string(slow.Meta) {
				t.Fatalf("%q: fast %q %s %s, slow %+v", params, name, args, meta, slow)
			}
		}
		if msg, ok := stringArg(params, "message"); ok {
			var a struct {
				Message string `json:"message"`
			}
			if err := json.Unmarshal(params, &a); err != nil || a.Message != msg {
				t.Fatalf("%q: fast %q, slow %q (%v)", params, msg, a.Message, err)
			}
		}
	})
}
