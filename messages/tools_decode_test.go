package messages

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// listSeeds are tools/list results in the usual shape and in each shape
// the hand-written path leaves to encoding/json.
var listSeeds = []string{
	`{"tools":[]}`,
	`{"tools":[{"name":"echo","description":"Echoes.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}],"nextCursor":"2"}`,
	`{"tools":[{"name":"a","title":"A","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"number"}}},"annotations":{"readOnlyHint":true,"title":"x"},"execution":{"taskSupport":"optional"},"icons":[{"src":"https://x/i.png","mimeType":"image/png"}],"_meta":{"k":[1,2.5,"s",null,true,{"n":{}}]}}],"_meta":{"m":1},"ttlMs":60000,"cacheScope":"public"}`,
	` { "Tools" : [ { "NAME" : "caps" , "inputschema" : { } } ] , "NEXTCURSOR" : "c" } `,
	`{"tools":[{"name":"esc\u00e9\n\"q\"","description":"\ud83d\ude00 and \ud800 alone","inputSchema":{}}]}`,
	"{\"tools\":[{\"name\":\"bad utf-8 \xff\xfe\",\"inputSchema\":{}}]}",
	`{"tools":[{"name":"s","unknown":{"deep":[1,2,{"x":null}]},"inputSchema":{}}],"other":5}`,
	`{"tools":null}`,
	`{"tools":[null]}`,
	`{"tools":[{"name":null,"inputSchema":null}]}`,
	`{"tools":[{"name":"twice","name":"again"}]}`,
	`{"tools":[{"name":"a"}],"tools":[{"title":"merged"}]}`,
	`{"tools":[{"name":1}]}`,
	`{"tools":{}}`,
	`{"tools":[{"name":"a","annotations":{"readOnlyHint":"yes"}}]}`,
	`{"ttlMs":1.5}`,
	`{"ttlMs":"5"}`,
	`{"_meta":[]}`,
	`{"_meta":{"big":1e400}}`,
	`{"tools":[{"name":"a"}]`,
	`{"tools":[{"name":"a",}]}`,
	`[]`,
	`null`,
	``,
	`{"tools":[{"name":"a","inputSchema":{"type":"object"}}]} trailing`,
}

// startingPoints are the results decoded into: a zero one, and one that
// json.Unmarshal merges into (the hand-written path steps aside for it).
var startingPoints = []func() ListToolsResult{
	func() ListToolsResult { return ListToolsResult{} },
	func() ListToolsResult {
		return ListToolsResult{Tools: []Tool{{Name: "old", Annotations: &ToolAnnotations{Title: "t"}}}, Meta: Meta{"old": 1.0}}
	},
}

// checkListDecoding holds UnmarshalOwned to json.Unmarshal for data.
func checkListDecoding(t *testing.T, data []byte) {
	t.Helper()
	for _, start := range startingPoints {
		got, want := start(), start()
		err := got.UnmarshalOwned(append([]byte(nil), data...))
		wantErr := json.Unmarshal(data, &want)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("%q: error %v, json.Unmarshal's %v", data, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", data, got, want)
		}
	}
}

func TestListToolsResultDecodesAsEncodingJSON(t *testing.T) {
	for _, s := range listSeeds {
		checkListDecoding(t, []byte(s))
	}
}

// The usual shapes take the hand-written path: the test above would pass
// if everything went to encoding/json.
func TestListToolsResultReadsTheUsualShapeByHand(t *testing.T) {
	for _, s := range listSeeds[:7] {
		var r ListToolsResult
		if !r.read([]byte(s)) {
			t.Errorf("%q went to encoding/json", s)
		}
	}
	var many strings.Builder
	many.WriteString(`{"tools":[`)
	for i := range 50 {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteString(`{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`)
	}
	many.WriteString(`]}`)
	var r ListToolsResult
	if !r.read([]byte(many.String())) || len(r.Tools) != 50 {
		t.Errorf("a list of 50 tools went to encoding/json, or lost some: %d", len(r.Tools))
	}
}

func FuzzListToolsResultMatchesEncodingJSON(f *testing.F) {
	for _, s := range listSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkListDecoding(t, data)
	})
}
