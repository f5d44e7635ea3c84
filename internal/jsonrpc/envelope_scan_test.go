package jsonrpc

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/rawjson"
	"github.com/mcpactor/mcpactor/messages"
)

// envelopeSeeds cover what the scanner must decode as encoding/json did:
// repeated keys (the last wins, error objects merge), null members, keys
// matched case-insensitively, escaped keys and values, and every kind of
// error.
var envelopeSeeds = []string{
	`{"jsonrpc":"2.0","id":123456,"result":{"content":[{"type":"text","text":"hello-117-48213"}]}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
	`{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":{"at":3}}}`,
	`{"jsonrpc":"2.0","id":3,"result":null}`,
	` { "jsonrpc" : "2.0" , "id" : 3 , "result" : [ 1 , { } ] } `,
	// Repeated and null members.
	`{"jsonrpc":"2.0","id":1,"id":2,"result":1,"result":{"b":2}}`,
	`{"jsonrpc":"2.0","jsonrpc":null,"id":1,"result":{}}`,
	`{"jsonrpc":"1.0","jsonrpc":"2.0","method":"a","method":null,"result":{}}`,
	`{"jsonrpc":"2.0","method":null,"id":1,"error":{"code":1,"message":"a"},"error":{"code":2}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"a"},"error":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"a","data":null}}`,
	`{"jsonrpc":"2.0","id":1,"params":{"p":1},"result":{}}`,
	// Keys encoding/json matches case-insensitively, and escaped keys.
	`{"JSONRPC":"2.0","ID":7,"Result":{}}`,
	`{"jsonrpc":"2.0","iD":"x","METHOD":"ping","Params":{}}`,
	`{"jſonrpc":"2.0","İd":1,"reſult":{}}`, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"meſſage":"K"}}`,
	`{"j\u0073onrpc":"2\u002e0","\u0069d":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"ERROR":{"CODE":1,"Message":"m"}}`,
	// Strings that need decoding.
	`{"jsonrpc":"2.0","method":"a\u00e9\ud83d\ude00\ud83d","params":{"s":"\ud800"}}`,
	"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\",\"params\":{\"s\":\"\xfe\"}}",
	"{\"jsonrpc\":\"2.0\xff\",\"id\":1,\"result\":{}}",
	`{"jsonrpc":"2.0","id":"\u0037","result":{}}`,
	"{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\",\"result\":{}}",
	// Not JSON-RPC.
	`{"jsonrpc":"2.0","id":7.5,"result":{}}`, `{"jsonrpc":"2.0","id":true,"result":{}}`,
	`{"jsonrpc":"2.0","id":{},"result":{}}`, `{"jsonrpc":"2.0","id":99999999999999999999,"result":{}}`,
	`{"jsonrpc":"1.0","id":1,"result":{}}`, `{"hello":"world"}`, `{}`, `null`, ` null `,
	`[{"jsonrpc":"2.0","method":"a"}]`, `"x"`, `12`, `true`,
	`{"jsonrpc":2,"id":1,"result":{}}`, `{"jsonrpc":"2.0","method":5}`, `{"jsonrpc":"2.0","method":{}}`,
	`{"jsonrpc":"2.0","method":""}`, `{"jsonrpc":"2.0","method":"a","result":1}`,
	`{"jsonrpc":"2.0","method":"a","error":{"code":1}}`, `{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","id":1,"result":1,"error":{}}`,
	`{"jsonrpc":"2.0","id":1,"error":5}`, `{"jsonrpc":"2.0","id":1,"error":[]}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1.5}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":"1"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"message":5},"jsonrpc":6}`,
	`{"jsonrpc":[],"id":1,"error":{"code":1e400}}`,
	// Requests with ids no request may have (ErrInvalidRequestID), and
	// the errors that still come first.
	`{"jsonrpc":"2.0","id":null,"method":"roots/list"}`, `{"jsonrpc":"2.0","id":{"a":1},"method":"x","params":{}}`,
	`{"jsonrpc":"2.0","id":[7],"method":"x"}`, `{"jsonrpc":"2.0","id":true,"method":"x"}`,
	`{"jsonrpc":"2.0","id":7.5,"method":"x"}`, `{"jsonrpc":"2.0","id":1E3,"method":"x"}`, `{"jsonrpc":"2.0","id":-0.0,"method":"x"}`,
	`{"jsonrpc":"2.0","id":99999999999999999999,"method":"x"}`, `{"jsonrpc":"2.0","id":null,"method":""}`,
	`{"jsonrpc":"2.0","id":{},"method":"x","result":{}}`, `{"jsonrpc":"1.0","id":null,"method":"x"}`,
	`{"jsonrpc":"2.0","id":null,"method":5}`, `{"jsonrpc":"2.0","id":{},"id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"id":null,"METHOD":"x"}`, `{"jsonrpc":"2.0","id":null,"method":"x","method":null}`,
	// Not JSON: a syntax error wins over everything else.
	`not json`, ``, `{`, `{"jsonrpc":"2.0","id":1,"result":{}`, `{"jsonrpc":"2.0","id":1,"result":{}}x`,
	`{"jsonrpc":2,"id":1,"result":{]}`, `{"jsonrpc":"2.0","id":01,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":"\x"}`, "{\"jsonrpc\":\"2.0\",\"method\":\"a\x00\"}",
}

// FuzzDecodeMessageMatchesReference holds DecodeMessage to the
// encoding/json-based decoder it replaced (jsonrpc_reference_test.go): for
// any input, the same message or the same error, down to its text.
func FuzzDecodeMessageMatchesReference(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodeMessage(t, data)
	})
}

func checkDecodeMessage(t *testing.T, data []byte) {
	t.Helper()
	got, err := DecodeMessage(data)
	want, wantErr := referenceDecodeMessage(data)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%q: error %v, reference error %v", data, err, wantErr)
	}
	if err != nil {
		if err.Error() != wantErr.Error() || errors.Is(err, messages.ErrNotJSONRPC) != errors.Is(wantErr, messages.ErrNotJSONRPC) ||
			errors.Is(err, messages.ErrInvalidRequestID) != errors.Is(wantErr, messages.ErrInvalidRequestID) ||
			reflect.TypeOf(err) != reflect.TypeOf(wantErr) {
			t.Fatalf("%q: error %T %v, reference error %T %v", data, err, err, wantErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) { // the method of an invalid request
			t.Fatalf("%q: error %v with\n got %#v\nwant %#v", data, err, got, want)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %#v\nwant %#v", data, got, want)
	}
	// The owned decoding gives the same message, from its own copy of
	// the line (it keeps slices of what it is given).
	owned, err := DecodeOwnedMessage(bytes.Clone(data))
	if err != nil || !reflect.DeepEqual(owned, want) {
		t.Fatalf("%q: owned decoding\n got %#v, %v\nwant %#v", data, owned, err, want)
	}
}

func TestDecodeMessageNesting(t *testing.T) {
	for _, depth := range []int{rawjson.MaxNestingDepth - 1, rawjson.MaxNestingDepth} {
		params := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		checkDecodeMessage(t, []byte(`{"jsonrpc":"2.0","method":"deep","params":`+params+`}`))
	}
}

// TestDecodeMessageCopies checks that the message does not alias the line,
// which the transport's reader reuses.
func TestDecodeMessageCopies(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{"a":"b"}}`)
	m, err := DecodeMessage(line)
	if err != nil {
		t.Fatal(err)
	}
	for i := range line {
		line[i] = 'x'
	}
	if string(m.Result) != `{"a":"b"}` {
		t.Fatalf("result changed with the line: %s", m.Result)
	}
}

// TestDecodeOwnedMessageKeepsTheLine checks that an owned line is not
// copied: the result is the line's own bytes, capped so that appending to
// it cannot write over what follows it.
func TestDecodeOwnedMessageKeepsTheLine(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{"a":"b"},"x":1}`)
	m, err := DecodeOwnedMessage(line)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(line, []byte(`{"a"`))
	if &m.Result[0] != &line[at] {
		t.Fatal("the result was copied out of an owned line")
	}
	if cap(m.Result) != len(m.Result) {
		t.Fatalf("result capacity %d reaches past its %d bytes", cap(m.Result), len(m.Result))
	}
	if allocs := testing.AllocsPerRun(100, func() { _, _ = DecodeOwnedMessage(line) }); allocs != 0 {
		t.Errorf("an owned response decoded with %v allocations, want 0", allocs)
	}
}

func TestResponseIDMatching(t *testing.T) {
	// The decoded envelope keeps the echoed form; matching goes through
	// Int64, so a string-echoed id still finds request 7.
	m, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":"7","result":{}}`))
	if err != nil || m.Kind() != KindResponse {
		t.Fatalf("%+v, %v", m, err)
	}
	if n, ok := m.ID.Int64(); !ok || n != 7 {
		t.Errorf("id %#v does not match 7", m.ID)
	}
	if _, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":7.5,"result":{}}`)); err == nil {
		t.Error("fractional response id accepted")
	}
}
