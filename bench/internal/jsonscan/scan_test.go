package jsonscan

import (
	"encoding/json"
	"testing"
)

func TestSkipValue(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int // index just past the first value, -1 for none
	}{
		{`"a\"b" x`, 6},
		{`"a\\" x`, 5},
		{`{"a":[1,{"b":"}"}],"c":null} x`, 28},
		{`-1.5e3,`, 6},
		{`true]`, 4},
		{`"open`, -1},
		{`{"a":1`, -1},
		{``, -1},
	} {
		if got := SkipValue([]byte(c.in), 0); got != c.want {
			t.Errorf("SkipValue(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestScanObjectAndKeys(t *testing.T) {
	doc := []byte(` {"id":7, "m\u0065thod":"x", "skip":{"deep":[1,2]}, "text":"a\nb\u00e9\ud83d\ude00"}`)
	var method, text string
	end := ScanObject(doc, 0, func(key []byte, v int) int {
		switch {
		case KeyIs(key, "method"):
			method = string(doc[v+1 : StrEnd(doc, v)-1])
		case KeyIs(key, "text"):
			e := StrEnd(doc, v)
			s, ok := Unescape(doc[v+1 : e-1])
			if !ok {
				return Bad
			}
			text = s
			return e
		}
		return Skip
	})
	if end != len(doc) || method != "x" || text != "a\nbé😀" {
		t.Fatalf("end %d of %d, method %q, text %q", end, len(doc), method, text)
	}
	if ScanObject([]byte(`{"a" 1}`), 0, func([]byte, int) int { return Skip }) != Bad {
		t.Error("a member without a colon is not Bad")
	}
}

func TestStringInto(t *testing.T) {
	doc := []byte(`"a\"b" 7 "open`)
	var dst []byte
	if e := StringInto(doc, 0, &dst); e != 6 || string(dst) != `a\"b` {
		t.Errorf("StringInto at a string = %d, %q", e, dst)
	}
	if e := StringInto(doc, 7, &dst); e != Skip || string(dst) != `a\"b` {
		t.Errorf("StringInto at a number = %d, dst %q (want Skip, dst kept)", e, dst)
	}
	if e := StringInto(doc, 9, &dst); e != Bad || string(dst) != `a\"b` {
		t.Errorf("StringInto at an open string = %d, dst %q (want Bad, dst kept)", e, dst)
	}
	if e := StringInto(doc, len(doc), &dst); e != Skip {
		t.Errorf("StringInto past the end = %d, want Skip", e)
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "hello-1-2", `quo"te\back`, "q\"b\\s/", "\b\f\n\r\t\x01\x1f", "é日本😀 ☃", "\ufffd", "bad\xffutf8", "\xe2\x82"} {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
	// encoding/json's HTML escaping is left out: JSON does not need it.
	if got := AppendString(nil, "<>&\u2028"); string(got) != "\"<>&\u2028\"" {
		t.Errorf("AppendString(<>&U+2028) = %s", got)
	}
}
