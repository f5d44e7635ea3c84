package jsonrpc

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/messages"
)

func TestAppendCallToolParamsMatchesMarshal(t *testing.T) {
	for _, p := range []messages.CallToolParams{
		{Name: "echo"},
		{Name: "echo", Arguments: map[string]any{"message": "hi <there> & \"you\"", "n": 1.5}},
		{Name: "ünïcode\u2028", Arguments: struct{ A int }{3}},
		{Name: "x", Arguments: map[string]any{}},
		{Name: "shapes", Arguments: map[string]any{
			"small": 1e-7, "big": 1e21, "plain": 123456789.0, "neg0": math.Copysign(0, -1), "frac": -0.000001,
			"nil": nil, "int": 5, "i64": int64(-3), "t": true, "list": []any{1.0, "x", false, nil, []any(nil)},
			"nested": map[string]any{"b": 1.0, "a": map[string]any{"z": "<", "é": "ok"}},
			"struct": struct{ B []byte }{[]byte("hi")},
			"k9":     9, "k10": 10, "k1": 1, "k2": 2, "k3": 3, "k4": 4, "k5": 5, "k6": 6, "k7": 7, "k8": 8,
		}},
		{Meta: messages.Meta{"progressToken": 7, "traceparent": "00-abc"}, Name: "p", Arguments: map[string]int{"a": 1}},
		{Meta: messages.Meta{}, Name: "empty-meta"},
		{Name: "raw", Arguments: json.RawMessage(`{"message":"hi \"you\"","n":[1,2.5e3,null,true]}`)},
		{Name: "raw-spaced", Arguments: json.RawMessage(" {\"a\" : [1, 2] }\n")},
		{Name: "raw-html", Arguments: json.RawMessage(`{"a":"<b>&"}`)},
		{Name: "raw-u2028", Arguments: json.RawMessage("{\"a\":\"x\u2028y\u2019\"}")},
		{Name: "raw-escaped-backslash", Arguments: json.RawMessage(`{"a":"c:\\ d\\"}`)},
		{Name: "mrtr", InputResponses: map[string]json.RawMessage{"a": json.RawMessage(`{"x":1}`)}, RequestState: "opaque\n"},
		// appendFlatObject's bounds: four plain members, then five.
		{Name: "flat4", Arguments: map[string]any{"d": nil, "c": int64(-2), "b": true, "a": 1}},
		{Name: "flat5", Arguments: map[string]any{"e": "x", "d": nil, "c": int64(-2), "b": false, "a": 0.5}},
		{Name: "flat-nested", Arguments: map[string]any{"a": "x", "b": map[string]any{"c": 1}}},
		// rawjson.Reader.SkipValue's containers past the 64 it keeps in a word.
		{Name: "raw-deep", Arguments: json.RawMessage(`{"a":` + strings.Repeat(`[{"b":`, 40) + `1` + strings.Repeat(`}]`, 40) + `,"z":[]}`)},
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
		// With the stateless protocol's members: the bytes WithMeta makes.
		members := []byte(`"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"ours"`)
		wantMeta, err := WithMeta(want, members)
		if err != nil {
			t.Fatal(err)
		}
		gotMeta, err := AppendCallToolParamsMeta(nil, &p, members)
		if err != nil {
			t.Fatal(err)
		}
		if string(gotMeta) != string(wantMeta) {
			t.Errorf("with _meta members:\ngot  %s\nwant %s", gotMeta, wantMeta)
		}
	}
	// Arguments that encode, but not as an object, are refused: the
	// protocol has them be one.
	for _, notObject := range []any{map[string]any(nil), []int{1}, "text", 3, false, json.RawMessage(` [1]`), json.RawMessage(`null`)} {
		_, err := AppendCallToolParams(nil, &messages.CallToolParams{Name: "t", Arguments: notObject})
		var ae *callerr.Error
		if !errors.Is(err, errkind.ErrInvalidArguments) || !(errors.As(err, &ae) && errors.Is(ae, errkind.ErrInvalidArguments)) || ae.Tool != "t" {
			t.Errorf("arguments %#v: %v, want an *callerr.Error", notObject, err)
		}
	}
	for _, bad := range []any{func() {}, map[string]any{"nan": math.NaN()}, []any{math.Inf(1)},
		json.RawMessage(`{"a":`), json.RawMessage(`{"a":1}{}`), json.RawMessage(`{"a":"\q"}`),
		// Closed by the wrong kind past the 64 containers SkipValue keeps in a word.
		json.RawMessage(`{"a":` + strings.Repeat(`[{"b":`, 40) + `1` + strings.Repeat(`]}`, 40) + `}`)} {
		if _, err := AppendCallToolParams(nil, &messages.CallToolParams{Name: "bad", Arguments: bad}); err == nil {
			t.Errorf("unencodable arguments %T: want an error", bad)
		}
	}
}

func FuzzAppendCallToolParams(f *testing.F) {
	f.Add("echo", `{"message":"hi"}`, "")
	f.Add("n\u00e9", `[1,"<a>"]`, "state")
	f.Add("raw", ` {"a" : "b\\"c"}`, "")
	f.Fuzz(func(t *testing.T, name, args, state string) {
		var a any
		if json.Unmarshal([]byte(args), &a) != nil {
			a = args
		}
		// The arguments decoded, and as the caller's own encoding.
		for _, a := range []any{a, json.RawMessage(args)} {
			p := messages.CallToolParams{Name: name, Arguments: a, RequestState: state}
			want, err1 := json.Marshal(p)
			got, err2 := AppendCallToolParams(nil, &p)
			if err1 == nil && !argumentsAreObject(want) {
				// Encodable, but not an object: refused (ArgumentsError).
				if !errors.Is(err2, errkind.ErrInvalidArguments) {
					t.Fatalf("%T: %s: got %s (%v), want errkind.ErrInvalidArguments", a, want, got, err2)
				}
				continue
			}
			if (err1 == nil) != (err2 == nil) || string(got) != string(want) {
				t.Fatalf("%T: got %s (%v), want %s (%v)", a, got, err2, want, err1)
			}
		}
	})
}

// argumentsAreObject reports whether encoded tools/call params have no
// arguments or object arguments.
func argumentsAreObject(params []byte) bool {
	var p struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	return len(p.Arguments) == 0 || p.Arguments[0] == '{'
}
