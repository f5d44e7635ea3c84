package jsonscan

import "testing"

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
