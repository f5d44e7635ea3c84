package messages

import (
	"encoding/json"
	"testing"
)

func TestProgressTokenKey(t *testing.T) {
	same := []any{5, int64(5), uint8(5), 5.0, float32(5), json.Number("5")}
	for _, tok := range same {
		if k, ok := ProgressTokenKey(tok); !ok || k != "n:5" {
			t.Errorf("%T %v: %q %v", tok, tok, k, ok)
		}
	}
	if k, _ := ProgressTokenKey("5"); k != "s:5" {
		t.Errorf(`"5": %q`, k)
	}
	if k, _ := ProgressTokenKey(1.5); k != "n:1.5" {
		t.Errorf("1.5: %q", k)
	}
	if k, _ := ProgressTokenKey(json.Number("1.5e0")); k != "n:1.5" {
		t.Errorf("1.5e0: %q", k)
	}
	for _, bad := range []any{nil, true, map[string]any{}, []any{1}, json.Number("x")} {
		if _, ok := ProgressTokenKey(bad); ok {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestMetaProgressToken(t *testing.T) {
	var p CallToolParams
	if _, ok := p.Meta.ProgressToken(); ok {
		t.Fatal("token in nil meta")
	}
	p.Meta.SetProgressToken(int64(7))
	b, _ := json.Marshal(p)
	if want := `{"_meta":{"progressToken":7},"name":""}`; string(b) != want {
		t.Fatalf("got %s want %s", b, want)
	}
	var back CallToolParams
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	tok, ok := back.Meta.ProgressToken()
	k1, _ := ProgressTokenKey(tok)
	k2, _ := ProgressTokenKey(int64(7))
	if !ok || k1 != k2 {
		t.Fatalf("decoded token %v (%T), key %q vs %q", tok, tok, k1, k2)
	}
	back.Meta["progressToken"] = true
	if _, ok := back.Meta.ProgressToken(); ok {
		t.Fatal("bool token accepted")
	}
	back.Meta.SetProgressToken(nil)
	if _, present := back.Meta["progressToken"]; present {
		t.Fatal("not removed")
	}
}
