package rawjson

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

// DecodeObject agrees with json.Unmarshal into a nil map[string]any, for the objects
// it decodes; what it declines, encoding/json decodes.
func checkDecodeMeta(t *testing.T, raw []byte) {
	t.Helper()
	if !json.Valid(raw) {
		return // DecodeObject is only given valid JSON
	}
	var want map[string]any
	wantErr := json.Unmarshal(raw, &want)
	for _, owned := range []bool{false, true} {
		got, ok := DecodeObject(append([]byte(nil), raw...), owned)
		if !ok {
			continue
		}
		if wantErr != nil {
			t.Errorf("DecodeObject(%s) = %v, encoding/json fails: %v", raw, got, wantErr)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("DecodeObject(%s) = %#v, encoding/json %#v", raw, got, want)
		}
	}
}

func TestDecodeMetaMatchesEncodingJSON(t *testing.T) {
	for _, s := range metaSeeds {
		checkDecodeMeta(t, []byte(s))
	}
	if _, ok := DecodeObject([]byte(`{"n":1e999}`), false); ok {
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
// encoding/json's fifteen; and once it has come twice, a copy of its
// template: the two maps alone (two allocations each).
func TestDecodeMetaAllocations(t *testing.T) {
	raw := []byte(`{"io.modelcontextprotocol/serverInfo":{"name":"mcp-conformance-test-server","version":"1.0.0"}}`)
	n := testing.AllocsPerRun(100, func() {
		if _, ok := decodeMetaFresh(raw, true); !ok {
			t.Fatal("declined")
		}
	})
	if n > 6 {
		t.Errorf("decoding the _meta allocates %.0f times", n)
	}
	t.Logf("%.0f allocations decoding", n)
	n = testing.AllocsPerRun(100, func() {
		if _, ok := DecodeObject(raw, true); !ok {
			t.Fatal("declined")
		}
	})
	if n > 4 {
		t.Errorf("a _meta that comes on every result allocates %.0f times", n)
	}
	t.Logf("%.0f allocations with its template", n)
}

// A _meta that comes again and again is decoded once into a template, of
// which every result gets a copy: equal to what encoding/json gives, with
// maps and arrays of its own, so that changing one result's map[string]any changes
// no other.
func TestDecodeMetaTemplateCopies(t *testing.T) {
	raw := `{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0.0"},"list":[1,{"k":"v"}],"x":2.5}`
	var want map[string]any
	if err := json.Unmarshal([]byte(raw), &want); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	for range 4 {
		m, ok := DecodeObject([]byte(raw), true)
		if !ok {
			t.Fatal("declined")
		}
		if !reflect.DeepEqual(m, want) {
			t.Fatalf("DecodeObject = %#v, want %#v", m, want)
		}
		got = append(got, m)
	}
	got[0]["x"] = "changed"
	got[0]["io.modelcontextprotocol/serverInfo"].(map[string]any)["name"] = "changed"
	got[0]["list"].([]any)[1].(map[string]any)["k"] = "changed"
	got[0]["list"].([]any)[0] = "changed"
	for i, m := range got[1:] {
		if !reflect.DeepEqual(m, want) {
			t.Errorf("result %d changed with result 0: %#v", i+1, m)
		}
	}
	if m, _ := DecodeObject([]byte(raw), false); !reflect.DeepEqual(m, want) {
		t.Errorf("a copy made after result 0 changed: %#v", m)
	}
}
