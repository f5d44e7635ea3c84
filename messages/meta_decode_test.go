package messages

import (
	"encoding/json"
	"reflect"
	"testing"
)

var metaSeeds = []string{
	`{}`, `{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0.0"}}`,
	`{"a":1,"b":-2.5e3,"c":true,"d":false,"e":null,"f":[1,"x",{"g":[]}],"h":"\u00e9\ud83d\ude00\n"}`,
	`{"a":1,"a":2}`, `{"a":{"x":1},"a":{"y":2}}`, `{"n":1e999}`, `{"n":-0}`, `{"s":"\xff"}`, `{"s":"\ud800"}`,
	`{"deep":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`[]`, `null`, `"s"`, `12`, ` { "k" : [ ] } `,
}

// decodeMeta agrees with json.Unmarshal into a nil Meta, for the objects
// it decodes; what it declines, encoding/json decodes.
func checkDecodeMeta(t *testing.T, raw []byte) {
	t.Helper()
	if !json.Valid(raw) {
		return // decodeMeta is only given valid JSON
	}
	var want Meta
	wantErr := json.Unmarshal(raw, &want)
	for _, owned := range []bool{false, true} {
		got, ok := decodeMeta(append([]byte(nil), raw...), owned)
		if !ok {
			continue
		}
		if wantErr != nil {
			t.Errorf("decodeMeta(%s) = %v, encoding/json fails: %v", raw, got, wantErr)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("decodeMeta(%s) = %#v, encoding/json %#v", raw, got, want)
		}
	}
}

func TestDecodeMetaMatchesEncodingJSON(t *testing.T) {
	for _, s := range metaSeeds {
		checkDecodeMeta(t, []byte(s))
	}
	if _, ok := decodeMeta([]byte(`{"n":1e999}`), false); ok {
		t.Error("a number out of float64's range must be left to encoding/json, whose error it is")
	}
}

func FuzzDecodeMeta(f *testing.F) {
	for _, s := range metaSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkDecodeMeta(t, raw) })
}

// The go-sdk server's _meta, on every 2026-07-28 result: a handful of
// allocations (two maps and the two boxed strings) with owned data, not
// encoding/json's fifteen.
func TestDecodeMetaAllocations(t *testing.T) {
	raw := []byte(`{"io.modelcontextprotocol/serverInfo":{"name":"mcp-conformance-test-server","version":"1.0.0"}}`)
	n := testing.AllocsPerRun(100, func() {
		if _, ok := decodeMeta(raw, true); !ok {
			t.Fatal("declined")
		}
	})
	if n > 6 {
		t.Errorf("decodeMeta allocates %.0f times", n)
	}
	t.Logf("%.0f allocations", n)
}
