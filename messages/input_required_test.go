package messages

import (
	"encoding/json"
	"testing"
)

// resultTypeReference is what ResultTypeOf replaced: json.Unmarshal into a
// struct of the one field.
func resultTypeReference(result json.RawMessage) string {
	var r struct {
		ResultType string `json:"resultType"`
	}
	if json.Unmarshal(result, &r) != nil || r.ResultType == "" {
		return ResultTypeComplete
	}
	return r.ResultType
}

var resultTypeSeeds = []string{
	`{}`, `{"resultType":"complete"}`, `{"resultType":"input_required","inputRequests":{}}`,
	`{"content":[{"type":"text","text":"x"}],"resultType":"input_required"}`,
	`{"RESULTTYPE":"input_required"}`, `{"resultType":"a","resultType":"b"}`, `{"resultType":null}`,
	`{"resultType":"x","resultType":null}`, `{"resultType":7}`, `{"resultType":"\u0069nput_required"}`,
	`{"resultType":"input_required"} x`, `{"resultType":"input_required",}`, `[]`, `null`, `"s"`, ``,
	`{"a":{"resultType":"input_required"}}`, `{"resultType":""}`, ` {"resultType" : "complete" } `,
}

func TestResultTypeOfMatchesEncodingJSON(t *testing.T) {
	for _, s := range resultTypeSeeds {
		if got, want := ResultTypeOf(json.RawMessage(s)), resultTypeReference(json.RawMessage(s)); got != want {
			t.Errorf("ResultTypeOf(%s) = %q, encoding/json %q", s, got, want)
		}
	}
}

// The stateless protocol reads every response's resultType: for the known
// values, without allocating.
func TestResultTypeOfAllocatesNothing(t *testing.T) {
	res := json.RawMessage(`{"content":[{"type":"text","text":"hello"}],"resultType":"complete","_meta":{"k":"v"}}`)
	if n := testing.AllocsPerRun(100, func() { ResultTypeOf(res) }); n != 0 {
		t.Errorf("ResultTypeOf allocates %.0f times", n)
	}
}

func FuzzResultTypeOf(f *testing.F) {
	for _, s := range resultTypeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := ResultTypeOf(data), resultTypeReference(data); got != want {
			t.Errorf("ResultTypeOf(%q) = %q, encoding/json %q", data, got, want)
		}
	})
}
