package messages

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestToolSchemasKeptAsSent checks that a tool's inputSchema and
// outputSchema reach the caller byte for byte as the server sent them
// (JSON Schema 2020-12 keywords, $defs, a $ref that is not dereferenced,
// key order and spacing), and go back out unchanged: a host that shows a
// schema or forwards it must not have it rewritten
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool).
func TestToolSchemasKeptAsSent(t *testing.T) {
	input := `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type":"object",
	  "$defs":{"id":{"type":"string","$anchor":"ident"}},
	  "properties":{"z":{"$ref":"#/$defs/id"},"a":{"$ref":"https://example.com/remote.json"}},
	  "if":{"required":["a"]},"then":{"required":["z"]},"additionalProperties":false}`
	output := `{"type":"object","unevaluatedProperties":false,"allOf":[{"properties":{"n":{"type":"integer"}}}]}`
	list := `{"tools":[{"name":"t","inputSchema":` + input + `,"outputSchema":` + output + `}]}`
	var res ListToolsResult
	if err := json.Unmarshal([]byte(list), &res); err != nil {
		t.Fatal(err)
	}
	tool := res.Tools[0]
	if string(tool.InputSchema) != input || string(tool.OutputSchema) != output {
		t.Fatalf("schemas changed on the way in:\n%s\n%s", tool.InputSchema, tool.OutputSchema)
	}
	out, err := json.Marshal(map[string]json.RawMessage{"schema": tool.InputSchema})
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(input)); err != nil {
		t.Fatal(err)
	}
	if want := `{"schema":` + compact.String() + `}`; string(out) != want {
		t.Fatalf("the schema sent back is not the one received:\n got %s\nwant %s", out, want)
	}
}
