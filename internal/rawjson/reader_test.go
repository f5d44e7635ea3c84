package rawjson

import (
	"encoding/json"
	"strings"
	"testing"
)

// jsonReaderSeeds exercise the grammar's corners (RFC 8259) and
// encoding/json's decoding of strings.
var jsonReaderSeeds = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `-0.0e+0`, `1E9`, `12.5e-3`, `true`, `false`, `null`,
	` {"a" : [1, 2.5, "x", true, false, null, {}, []] } `,
	"\t\r\n[\n]\n",
	`"\"\\\/\b\f\n\r\t\u00e9\u2028\uD83D\uDE00"`,
	`"\uD83D"`, `"\uDE00"`, `"\uD83D\u0041"`, `"\uD83D\uD83D\uDE00"`, `"\uD83Dx"`, `"\uD83D\"`,
	"\"\xff\xfe\"", "\"\xed\xa0\x80\"", "\"\xef\xbf\xbd\"", "\"a\xc3\"",
	`"\u00"`, `"\x"`, `"\'"`, "\"\x01\"", "\"\x7f\"", `"abc`, `"`,
	`01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x1`, `1.5.5`, `--1`, `-a`,
	`tru`, `truex`, `nul`, `nulll`, `False`,
	`{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{"a":1 "b":2}`, `{1:2}`, `[1,]`, `[,1]`, `[1 2]`,
	`{"a":1}}`, `[[]`, `[]]`, `{]`, `[}`, `{} {}`, `1 2`, ``, ` `, "\ufeff{}",
	// Past plainRun's short run: the vectorised path.
	`"` + strings.Repeat("a", 40) + `\u00e9` + strings.Repeat("b", 40) + `"`,
	`["` + strings.Repeat("a", 40) + "\xc3\xa9" + strings.Repeat("b", 40) + `","` + strings.Repeat("c", 40) + `"]`,
}

// FuzzJSONReader holds Reader to encoding/json: it must accept exactly
// the texts json.Valid accepts, and decode strings exactly as
// json.Unmarshal decodes them.
func FuzzJSONReader(f *testing.F) {
	for _, s := range jsonReaderSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(matchesEncodingJSON)
}

// matchesEncodingJSON fails t unless the reader accepts data exactly when
// json.Valid does and, for a string, decodes it as json.Unmarshal does.
func matchesEncodingJSON(t *testing.T, data []byte) {
	r := Reader{Data: data}
	r.SkipSpace()
	r.SkipValue()
	r.End()
	if valid := json.Valid(data); r.Invalid == valid {
		t.Fatalf("%q: reader valid=%v, json.Valid=%v", data, !r.Invalid, valid)
	}
	if Valid(data) != json.Valid(data) {
		t.Fatalf("%q: Valid=%v, json.Valid=%v", data, Valid(data), json.Valid(data))
	}

	var want string
	wantErr := json.Unmarshal(data, &want)
	r = Reader{Data: data}
	if r.Peek() != '"' {
		return
	}
	got := r.Str()
	r.End()
	if r.Invalid != (wantErr != nil) {
		t.Fatalf("%q: str invalid=%v, json.Unmarshal: %v", data, r.Invalid, wantErr)
	}
	if wantErr == nil && string(got) != want {
		t.Fatalf("%q: str = %q, json.Unmarshal = %q", data, got, want)
	}
}

// TestJSONReaderLongStrings holds the long-string path of plainRun to
// encoding/json: every kind of byte that ends a plain run, at every offset
// of strings longer than the short run, alone, repeated, and in two
// strings of one document, so that a quote remembered from one search is
// never used where it does not hold.
func TestJSONReaderLongStrings(t *testing.T) {
	specials := []string{`\"`, `\\`, `\n`, `\u00e9`, `\uD83D\uDE00`, "\x01", "\x1f", "é", "\xff", "\xe2\x82", `"`}
	var docs []string
	for _, sp := range specials {
		for off := 0; off <= 72; off++ {
			plain := strings.Repeat("a", off)
			tail := strings.Repeat("b", 80-off%9)
			docs = append(docs,
				`"`+plain+sp+tail+`"`,
				`"`+strings.Repeat(plain+sp, 5)+`"`,
				`["`+plain+sp+tail+`","`+tail+sp+plain+`"]`,
				`{"`+tail+`":"`+plain+sp+`","k":"`+tail+`"}`,
			)
		}
	}
	for _, doc := range docs {
		matchesEncodingJSON(t, []byte(doc))
	}
}

func TestJSONReaderNestingLimit(t *testing.T) {
	for _, depth := range []int{MaxNestingDepth, MaxNestingDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			closeWith := "]"
			if open != "[" {
				closeWith = "}"
			}
			data := []byte(strings.Repeat(open, depth) + strings.Repeat(closeWith, depth))
			r := Reader{Data: data}
			r.SkipValue()
			r.End()
			if valid := json.Valid(data); r.Invalid == valid {
				t.Errorf("depth %d of %s: reader valid=%v, json.Valid=%v", depth, open, !r.Invalid, valid)
			}
		}
	}
}

func TestFieldIndexFolding(t *testing.T) {
	names := []string{"jsonrpc", "id", "result", "isError", "_meta", "kind"}
	for _, tt := range []struct {
		key  string
		want int
	}{
		{"jsonrpc", 0}, {"JSONRPC", 0}, {"jſonrpc", 0}, {"jsonrpc ", -1},
		{"id", 1}, {"ID", 1}, {"İd", -1}, {"ıD", -1}, {"i", -1}, {"idd", -1},
		{"reſult", 2}, {"RESULT", 2}, {"iserror", 3}, {"ISERROR", 3}, {"_META", 4}, {"meta", -1},
		{"\u212aind", 5}, {"KIND", 5}, {"", -1}, {"\ufffd", -1},
	} {
		if got := FieldIndex([]byte(tt.key), names); got != tt.want {
			t.Errorf("FieldIndex(%q) = %d, want %d", tt.key, got, tt.want)
		}
	}
}

// TestPlainRunStopsAtTheFirstSpecialByte holds plainRun to the exact index
// of the first byte a string's loop must look at, wherever it falls in a
// word, and with bytes after it that the word tests' borrows flag too
// ('#' after a quote, '!' after 0x1f): stopping at the word's start would
// make the caller step through the word's plain bytes one plainRun call
// at a time.
func TestPlainRunStopsAtTheFirstSpecialByte(t *testing.T) {
	for _, tt := range []struct {
		special string
		ascii   bool
	}{
		{`"#`, false}, {`\\`, false}, {"\x01", false}, {"\x1f!", false},
		{`"#`, true}, {"\x1f!", true}, {"é", true}, {"\xff", true},
	} {
		for off := 0; off <= 40; off++ {
			data := []byte(`"` + strings.Repeat("a", off) + tt.special + strings.Repeat("b", 80) + `"`)
			r := Reader{Data: data}
			if got, want := r.plainRun(1, tt.ascii), 1+off; got != want {
				t.Errorf("%q at %d (ascii %v): plainRun = %d, want %d", tt.special, off, tt.ascii, got, want)
			}
		}
	}
	// Without ascii, a multi-byte character is plain: the run goes on.
	data := []byte(`"` + strings.Repeat("é", 20) + `"` + strings.Repeat(" ", 16))
	r := Reader{Data: data}
	if got := r.plainRun(1, false); got != 41 {
		t.Errorf("plainRun over é = %d, want 41", got)
	}
}

// benchToolResult is an echo call's result as the fast benchmark server
// writes it: what the transport's reader validates once per answer.
var benchToolResult = []byte(`{"content":[{"type":"text","text":"hello-fixed-payload-0123456789"}]}`)

// BenchmarkSkipValue is the validation of a small result, mostly keys and
// short strings: per-token costs, not per-byte ones.
func BenchmarkSkipValue(b *testing.B) {
	b.SetBytes(int64(len(benchToolResult)))
	for b.Loop() {
		r := Reader{Data: benchToolResult}
		r.SkipValue()
		if r.Invalid {
			b.Fatal("invalid")
		}
	}
}
