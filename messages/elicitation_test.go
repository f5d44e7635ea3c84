package messages

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

const elicitSchema = `{
	"type": "object",
	"properties": {
		"name":   {"type": "string", "default": "Ada"},
		"age":    {"type": "integer", "default": 36},
		"ratio":  {"type": "number", "default": 0.5},
		"ok":     {"type": "boolean", "default": false},
		"color":  {"type": "string", "enum": ["red", "green"], "default": "green"},
		"tags":   {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "default": ["a"]},
		"plain":  {"type": "string"},
		"nulled": {"type": "string", "default": null}
	}
}`

func TestApplySchemaDefaults(t *testing.T) {
	in := map[string]any{"name": "Grace", "ok": true}
	got := ApplySchemaDefaults(json.RawMessage(elicitSchema), in)
	want := map[string]any{
		"name": "Grace", "ok": true, // kept
		"age": 36.0, "ratio": 0.5, "color": "green", "tags": []any{"a"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
	if len(in) != 2 {
		t.Fatalf("input modified: %v", in)
	}

	// A nil content gets a fresh map.
	got = ApplySchemaDefaults(json.RawMessage(`{"properties":{"a":{"default":"x"}}}`), nil)
	if !reflect.DeepEqual(got, map[string]any{"a": "x"}) {
		t.Fatalf("nil content: %#v", got)
	}

	// An explicit zero value is not replaced.
	got = ApplySchemaDefaults(json.RawMessage(elicitSchema), map[string]any{"age": 0.0, "name": "", "ok": false, "ratio": nil, "color": "red", "tags": []any{}})
	if got["age"] != 0.0 || got["name"] != "" || got["ratio"] != nil || got["color"] != "red" {
		t.Fatalf("explicit values replaced: %#v", got)
	}
}

func TestApplySchemaDefaultsMalformed(t *testing.T) {
	content := map[string]any{"k": "v"}
	for _, schema := range []string{
		``, `null`, `"str"`, `[1,2]`, `{`, `{"properties":5}`, `{"properties":[]}`,
		`{"properties":null}`, `{"properties":{"a":5,"b":"x","c":[],"d":null}}`,
		`{"properties":{"a":{"default":}}}`,
	} {
		got := ApplySchemaDefaults(json.RawMessage(schema), content)
		if !reflect.DeepEqual(got, content) {
			t.Errorf("%q: got %#v", schema, got)
		}
	}
	// A good property next to a bad one still applies.
	got := ApplySchemaDefaults(json.RawMessage(`{"properties":{"bad":7,"good":{"default":1}}}`), nil)
	if !reflect.DeepEqual(got, map[string]any{"good": 1.0}) {
		t.Fatalf("got %#v", got)
	}
}

func ExampleApplySchemaDefaults() {
	schema := json.RawMessage(`{
		"type": "object",
		"properties": {
			"email":      {"type": "string", "format": "email"},
			"newsletter": {"type": "boolean", "default": true},
			"frequency":  {"type": "string", "enum": ["daily", "weekly"], "default": "weekly"}
		}
	}`)
	content := map[string]any{"email": "ada@example.com", "frequency": "daily"}
	out := ApplySchemaDefaults(schema, content)
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	// Output: {"email":"ada@example.com","frequency":"daily","newsletter":true}
}

func TestElicitParamsJSON(t *testing.T) {
	p := ElicitParams{Mode: ElicitModeURL, Message: "Authorize", URL: "https://x/auth", ElicitationID: "e1"}
	b, _ := json.Marshal(p)
	if want := `{"mode":"url","message":"Authorize","url":"https://x/auth","elicitationId":"e1"}`; string(b) != want {
		t.Fatalf("got %s", b)
	}
	r := ElicitResult{Action: ElicitActionDecline}
	b, _ = json.Marshal(r)
	if string(b) != `{"action":"decline"}` {
		t.Fatalf("got %s", b)
	}
}
