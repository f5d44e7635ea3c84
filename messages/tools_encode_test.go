package messages

import (
	"encoding/json"
	"testing"
)

func TestAppendCallToolParamsMatchesMarshal(t *testing.T) {
	for _, p := range []CallToolParams{
		{Name: "echo"},
		{Name: "echo", Arguments: map[string]any{"message": "hi <there> & \"you\"", "n": 1.5}},
		{Name: "ünïcode\u2028", Arguments: struct{ A int }{3}},
		{Name: "x", Arguments: map[string]any{}},
		{Meta: Meta{"progressToken": 7, "traceparent": "00-abc"}, Name: "p", Arguments: []int{1}},
		{Meta: Meta{}, Name: "empty-meta"},
		{Name: "mrtr", InputResponses: map[string]json.RawMessage{"a": json.RawMessage(`{"x":1}`)}, RequestState: "opaque\n"},
	} {
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendCallToolParams(nil, &p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	if _, err := AppendCallToolParams(nil, &CallToolParams{Name: "bad", Arguments: func() {}}); err == nil {
		t.Error("unencodable arguments: want an error")
	}
}

func FuzzAppendCallToolParams(f *testing.F) {
	f.Add("echo", `{"message":"hi"}`, "")
	f.Add("n\u00e9", `[1,"<a>"]`, "state")
	f.Fuzz(func(t *testing.T, name, args, state string) {
		var a any
		if json.Unmarshal([]byte(args), &a) != nil {
			a = args
		}
		p := CallToolParams{Name: name, Arguments: a, RequestState: state}
		want, err1 := json.Marshal(p)
		got, err2 := AppendCallToolParams(nil, &p)
		if (err1 == nil) != (err2 == nil) || string(got) != string(want) {
			t.Fatalf("got %s (%v), want %s (%v)", got, err2, want, err1)
		}
	})
}
