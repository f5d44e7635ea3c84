package jsonrpc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestWithMeta(t *testing.T) {
	members := []byte(`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`)
	for _, tc := range []struct{ in, want string }{
		{``, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`},
		{`null`, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`},
		{`{}`, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`},
		{`{"name":"x","arguments":{"_meta":{"not":"this"}}}`, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"x","arguments":{"_meta":{"not":"this"}}}`},
		{`{"_meta":{"progressToken":1},"name":"x"}`, `{"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"x"}`},
		{`{"name":"x", "_meta" : { } }`, `{"name":"x", "_meta" : { "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}} }`},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01"}}`, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`},
	} {
		got, err := WithMeta([]byte(tc.in), members)
		if err != nil || string(got) != tc.want {
			t.Errorf("WithMeta(%s):\n got %s, %v\nwant %s", tc.in, got, err, tc.want)
			continue
		}
		var v struct {
			Meta map[string]any `json:"_meta"`
		}
		if err := json.Unmarshal(got, &v); err != nil || v.Meta["io.modelcontextprotocol/protocolVersion"] != "2026-07-28" {
			t.Errorf("%s: decodes to %v, %v: ours must count", got, v.Meta, err)
		}
	}
	for _, bad := range []string{`[]`, `"x"`, `{"a":`, `{"a":1}x`} {
		if _, err := WithMeta([]byte(bad), members); err == nil {
			t.Errorf("WithMeta(%s) accepted", bad)
		}
	}
}

func FuzzWithMeta(f *testing.F) {
	for _, s := range []string{`{}`, `{"_meta":{"a":1},"b":[1,2]}`, `{"b":{"_meta":{}}}`, `null`, ``, `{"_meta":null}`} {
		f.Add([]byte(s))
	}
	members := []byte(`"k":"v"`)
	f.Fuzz(func(t *testing.T, params []byte) {
		out, err := WithMeta(params, members)
		var in map[string]json.RawMessage
		inErr := json.Unmarshal(params, &in)
		if err != nil {
			if inErr == nil && in != nil {
				t.Fatalf("WithMeta refused an object %q: %v", params, err)
			}
			return
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("WithMeta(%q) = %q, not JSON: %v", params, out, err)
		}
		var meta map[string]json.RawMessage
		if err := json.Unmarshal(got["_meta"], &meta); err != nil || string(meta["k"]) != `"v"` {
			t.Fatalf("WithMeta(%q) = %q: _meta.k missing", params, out)
		}
		for k, v := range in {
			if k == "_meta" {
				continue
			}
			if !reflect.DeepEqual(compact(t, got[k]), compact(t, v)) {
				t.Fatalf("WithMeta(%q) changed %s", params, k)
			}
		}
	})
}

// compact decodes raw for comparison; numbers stay as written, so that
// one beyond float64's range (1E700) compares too.
func compact(t *testing.T, raw json.RawMessage) any {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
