package rawjson

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"reflect"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Reader reads one JSON text (RFC 8259) in a single pass, validating
// every byte as it goes. It backs the decoders that every response goes
// through (the JSON-RPC envelope, messages.CallToolResult and
// messages.Content); docs/architecture.md, "Decoding and encoding by
// hand", says why they do not use encoding/json.
//
// The reader accepts exactly the texts encoding/json accepts (json.Valid),
// nesting limit included, and its string decoding is encoding/json's:
// invalid UTF-8 and unpaired surrogates become U+FFFD. The decoders built on
// it replicate encoding/json's assignment rules too (case-insensitive keys,
// duplicate keys, null), so that they decode what json.Unmarshal would;
// fuzz tests hold them to encoding/json-based reference decoders.
//
// Errors are sticky: the first syntax error marks the reader invalid and
// moves it to the end of the data, after which every method is a no-op
// that reports nothing more to read. Callers check invalid once, at the
// end, and then ask SyntaxError for encoding/json's own description.
type Reader struct {
	Data    []byte
	Off     int  // next byte to read
	depth   int  // objects and arrays open
	Invalid bool // a syntax error was found
	// owned says that data was handed over to what is decoded: its large
	// strings may share data's memory (see CallToolResult.UnmarshalOwned).
	Owned bool
	// quoteFrom and quoteEnd remember plainRun's last search for a quote:
	// data[quoteFrom:quoteEnd] holds none, and quoteEnd is the next one
	// (or len(data)). A long string with an escape or a multi-byte
	// character every few dozen bytes would otherwise search to its end
	// again after each, which is quadratic.
	quoteFrom, quoteEnd int
}

// Valid reports whether data is one JSON text, as json.Valid does, in the
// reader's single pass.
func Valid(data []byte) bool {
	r := Reader{Data: data}
	r.SkipSpace()
	r.SkipValue()
	r.End()
	return !r.Invalid
}

// MaxNestingDepth is encoding/json's limit on nested objects and arrays
// (MaxNestingDepth in encoding/json/scanner.go). A reader that stands in
// for its validation must refuse what it refuses.
const MaxNestingDepth = 10000

func (r *Reader) fail() {
	r.Invalid = true
	r.Off = len(r.Data)
}

// SkipSpace skips insignificant whitespace (RFC 8259 §2: space, horizontal
// tab, line feed, carriage return).
func (r *Reader) SkipSpace() {
	for r.Off < len(r.Data) {
		switch r.Data[r.Off] {
		case ' ', '\t', '\n', '\r':
			r.Off++
		default:
			return
		}
	}
}

// Peek returns the first byte of the next value, which tells its kind
// ('{', '[', '"', 't', 'f', 'n', or a number's first byte), or 0 at the end.
func (r *Reader) Peek() byte {
	r.SkipSpace()
	if r.Off < len(r.Data) {
		return r.Data[r.Off]
	}
	return 0
}

// End checks that only whitespace follows the value read (RFC 8259 §2: a
// JSON text is one value).
func (r *Reader) End() {
	r.SkipSpace()
	if r.Off != len(r.Data) {
		r.fail()
	}
}

// BeginObject consumes the '{' that starts an object and reports whether a
// member follows, to be read with Key, its value, then NextMember.
func (r *Reader) BeginObject() bool { return r.begin('{', '}') }

// BeginArray consumes the '[' that starts an array and reports whether an
// element follows, to be read as a value followed by nextElement.
func (r *Reader) BeginArray() bool { return r.begin('[', ']') }

func (r *Reader) begin(open, close byte) bool {
	if r.Off >= len(r.Data) || r.Data[r.Off] != open {
		r.fail()
		return false
	}
	r.Off++
	if r.depth++; r.depth > MaxNestingDepth {
		r.fail()
		return false
	}
	r.SkipSpace()
	if r.Off < len(r.Data) && r.Data[r.Off] == close {
		r.Off++
		r.depth--
		return false
	}
	return true
}

// NextMember consumes the ',' or '}' after a member's value and reports
// whether another member follows.
func (r *Reader) NextMember() bool { return r.next('}') }

// NextElement consumes the ',' or ']' after an element and reports whether
// another element follows.
func (r *Reader) NextElement() bool { return r.next(']') }

func (r *Reader) next(close byte) bool {
	r.SkipSpace()
	if r.Off < len(r.Data) {
		switch r.Data[r.Off] {
		case ',':
			r.Off++
			r.SkipSpace()
			return true
		case close:
			r.Off++
			r.depth--
			return false
		}
	}
	r.fail()
	return false
}

// Key reads a member's name and the ':' after it, and returns the name
// decoded as encoding/json decodes keys (see Str).
func (r *Reader) Key() []byte {
	if r.Off >= len(r.Data) || r.Data[r.Off] != '"' {
		r.fail()
		return nil
	}
	k := r.Str()
	r.colon()
	return k
}

// skipKey is key for a member whose name does not matter.
func (r *Reader) skipKey() {
	if r.Off >= len(r.Data) || r.Data[r.Off] != '"' {
		r.fail()
		return
	}
	r.skipString()
	r.colon()
}

func (r *Reader) colon() {
	r.SkipSpace()
	if r.Off >= len(r.Data) || r.Data[r.Off] != ':' {
		r.fail()
		return
	}
	r.Off++
	r.SkipSpace()
}

// Value skips the next value and returns its bytes, exactly as written, or
// nil if it is not valid JSON.
func (r *Reader) Value() []byte {
	r.SkipSpace()
	start := r.Off
	r.SkipValue()
	if r.Invalid {
		return nil
	}
	return r.Data[start:r.Off]
}

// SkipValue validates the value at r.Off and moves past it. Nesting is
// kept on an explicit stack rather than by recursion, so that a hostile
// line nested ten thousand deep costs 10 KB of heap, not a deep goroutine
// stack.
func (r *Reader) SkipValue() {
	// The containers entered here, innermost last, are kept as bits
	// (set: an object) of a word, spilling to deep past 64 of them: a
	// byte each in an array of its own would make this frame, under
	// every rawAsIs of a tools/call's arguments, twice the size.
	var kinds uint64
	var deep *[]bool
	n := 0 // containers open here
	for {
		if r.Off >= len(r.Data) {
			r.fail()
			return
		}
		switch r.Data[r.Off] {
		case '{':
			if r.BeginObject() {
				r.skipKey()
				kinds, deep = entered(kinds, deep, n, true)
				n++
				continue
			}
		case '[':
			if r.BeginArray() {
				kinds, deep = entered(kinds, deep, n, false)
				n++
				continue
			}
		case '"':
			r.skipString()
		case 't':
			r.literal("true")
		case 'f':
			r.literal("false")
		case 'n':
			r.literal("null")
		default:
			r.skipNumber()
		}
		// A value has ended; it may end the containers around it too.
		for {
			if r.Invalid || n == 0 {
				return
			}
			object := n > 64 && (*deep)[n-65] || n <= 64 && kinds&(1<<(n-1)) != 0
			var more bool
			if object {
				if more = r.NextMember(); more {
					r.skipKey()
				}
			} else {
				more = r.NextElement()
			}
			if more {
				break
			}
			n--
		}
	}
}

// entered records, for SkipValue, that the container opened after the n
// already open is an object or an array.
func entered(kinds uint64, deep *[]bool, n int, object bool) (uint64, *[]bool) {
	if n < 64 {
		kinds &^= 1 << n
		if object {
			kinds |= 1 << n
		}
		return kinds, deep
	}
	if deep == nil {
		deep = new([]bool)
	}
	*deep = append((*deep)[:n-64], object)
	return kinds, deep
}

func (r *Reader) literal(lit string) {
	end := r.Off + len(lit)
	if end > len(r.Data) || string(r.Data[r.Off:end]) != lit {
		r.fail()
		return
	}
	r.Off = end
}

// skipNumber validates a number (RFC 8259 §6):
//
//	number = [ minus ] int [ frac ] [ exp ]
//	int    = zero / ( digit1-9 *DIGIT )
//	frac   = decimal-point 1*DIGIT
//	exp    = e [ minus / plus ] 1*DIGIT
func (r *Reader) skipNumber() {
	d, i := r.Data, r.Off
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = skipDigits(d, i+1)
	default:
		r.fail()
		return
	}
	if i < len(d) && d[i] == '.' {
		j := skipDigits(d, i+1)
		if j == i+1 {
			r.fail()
			return
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := skipDigits(d, i)
		if j == i {
			r.fail()
			return
		}
		i = j
	}
	r.Off = i
}

func skipDigits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}

// skipString validates the string at r.Off and moves past it (RFC 8259 §7:
// no unescaped control characters, and only the escapes \" \\ \/ \b \f \n
// \r \t \uXXXX). Like encoding/json, it does not check UTF-8 here.
func (r *Reader) skipString() {
	d := r.Data
	for i := r.Off + 1; i < len(d); {
		i = r.plainRun(i, false)
		if i >= len(d) {
			break
		}
		switch c := d[i]; {
		case stringPlain[c] || c >= utf8.RuneSelf:
			i++
		case c == '"':
			r.Off = i + 1
			return
		case c == '\\':
			n := escapeLen(d[i:])
			if n == 0 {
				r.fail()
				return
			}
			i += n
		default: // a control character
			r.fail()
			return
		}
	}
	r.fail()
}

// plainRun returns the index of the first byte at or after i that may
// need a look inside a string: a quote, a backslash or a control
// character, and with ascii also any byte of a multi-byte UTF-8 sequence.
// In the last eight bytes of the data, which no word covers, it may stop
// early at a plain byte; the caller's byte-by-byte loop reads those. Long
// texts (a tool's result of 64 KiB) are mostly one plain run, so that
// their cost is this function's.
//
// Short strings (most keys and values) are done in a few words. Past
// shortRun bytes the string is likely long: the next quote and backslash
// are then found with bytes.IndexByte, which is vectorised, and only the
// stretch before them is tested, four words at a time, for the bytes
// that IndexByte cannot look for (BenchmarkDecodeBigResult measures the
// long case).
//
// The word tests are the classic ones: (v - 0x01..01*n) &^ v & 0x80..80 is
// non-zero exactly when some byte of v is below n (n <= 128), and a byte
// equal to c is a zero byte of v ^ 0x01..01*c.
func (r *Reader) plainRun(i int, ascii bool) int {
	const shortRun = 32
	d := r.Data
	for stop := min(len(d), i+shortRun); i+8 <= stop; i += 8 {
		v := binary.LittleEndian.Uint64(d[i:])
		q, bs := v^(ones*'"'), v^(ones*'\\')
		special := ((q-ones)&^q | (bs-ones)&^bs | (v-ones*0x20)&^v) & highs
		if ascii {
			special |= v & highs
		}
		if special != 0 {
			return i + firstFlagged(special)
		}
	}
	if i+8 > len(d) {
		return i
	}
	if i < r.quoteFrom || i > r.quoteEnd || r.quoteEnd == 0 {
		r.quoteFrom, r.quoteEnd = i, len(d)
		if q := bytes.IndexByte(d[i:], '"'); q >= 0 {
			r.quoteEnd = i + q
		}
	}
	end := r.quoteEnd
	if b := bytes.IndexByte(d[i:end], '\\'); b >= 0 {
		end = i + b
	}
	return controlRun(d[:end], i, ascii)
}

// ones and highs are the word tests' masks: a one, and a high bit, in
// every byte.
const ones, highs = 0x0101010101010101, 0x8080808080808080

// controlRun is plainRun's test for a stretch known to hold neither a
// quote nor a backslash: it returns the index of the first control
// character from i on (or, with ascii, the first byte of 0x80 or more),
// or len(d) if there is none. With ascii one
// test covers both: v - 0x20..20 borrows into a high bit exactly for a
// byte below 0x20 once the bytes with a high bit of their own are ruled
// out by the or with v. Four words are tested at once, with one branch.
func controlRun(d []byte, i int, ascii bool) int {
	const space = ones * 0x20
	if ascii {
		for ; i+32 <= len(d); i += 32 {
			w := d[i : i+32 : i+32]
			v0, v1 := binary.LittleEndian.Uint64(w), binary.LittleEndian.Uint64(w[8:])
			v2, v3 := binary.LittleEndian.Uint64(w[16:]), binary.LittleEndian.Uint64(w[24:])
			if ((v0-space)|v0|(v1-space)|v1|(v2-space)|v2|(v3-space)|v3)&highs != 0 {
				break
			}
		}
		for ; i+8 <= len(d); i += 8 {
			v := binary.LittleEndian.Uint64(d[i:])
			if m := ((v - space) | v) & highs; m != 0 {
				return i + firstFlagged(m)
			}
		}
		return tailRun(d, i, true)
	}
	for ; i+32 <= len(d); i += 32 {
		w := d[i : i+32 : i+32]
		v0, v1 := binary.LittleEndian.Uint64(w), binary.LittleEndian.Uint64(w[8:])
		v2, v3 := binary.LittleEndian.Uint64(w[16:]), binary.LittleEndian.Uint64(w[24:])
		if ((v0-space)&^v0|(v1-space)&^v1|(v2-space)&^v2|(v3-space)&^v3)&highs != 0 {
			break
		}
	}
	for ; i+8 <= len(d); i += 8 {
		v := binary.LittleEndian.Uint64(d[i:])
		if m := (v - space) &^ v & highs; m != 0 {
			return i + firstFlagged(m)
		}
	}
	return tailRun(d, i, false)
}

// tailRun is controlRun for the last bytes of its stretch, fewer than a
// word, one at a time.
func tailRun(d []byte, i int, ascii bool) int {
	for ; i < len(d); i++ {
		if d[i] < 0x20 || ascii && d[i] >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// firstFlagged returns the index, within its word, of the first byte a
// word test flagged. A test's borrow can flag bytes after a true match,
// never before one, so the lowest flag is exact: the bytes before it are
// plain and need no second look. Returning the word's start instead cost
// a call of plainRun per byte of a short string's last word, which is
// most of a short string.
func firstFlagged(mask uint64) int { return bits.TrailingZeros64(mask) >> 3 }

// stringPlain marks the ASCII bytes that stand for themselves inside a
// string: all but the quote, the backslash and the control characters.
var stringPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// escapeLen returns the length of the escape sequence d starts with, or 0
// if it is not one RFC 8259 §7 allows.
func escapeLen(d []byte) int {
	if len(d) < 2 {
		return 0
	}
	switch d[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if hex4(d[2:]) >= 0 {
			return 6
		}
	}
	return 0
}

// hex4 decodes the four hex digits d starts with, or returns -1.
func hex4(d []byte) rune {
	if len(d) < 4 {
		return -1
	}
	var r rune
	for _, c := range d[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Str reads the string at r.Off and returns its content decoded as
// encoding/json decodes strings: escapes resolved, and invalid UTF-8 and
// unpaired surrogate escapes replaced by U+FFFD. The common case, a string
// with neither escapes nor invalid UTF-8, returns a sub-slice of the data
// without copying; callers that keep the result must copy it.
func (r *Reader) Str() []byte {
	d := r.Data
	start := r.Off + 1
	for i := start; i < len(d); {
		i = r.plainRun(i, true)
		if i >= len(d) {
			break
		}
		switch c := d[i]; {
		case stringPlain[c]:
			i++
		case c == '"':
			r.Off = i + 1
			return d[start:i]
		case c < utf8.RuneSelf: // a backslash or a control character
			return r.unquote(start)
		default:
			rr, n := utf8.DecodeRune(d[i:])
			if rr == utf8.RuneError && n == 1 {
				return r.unquote(start)
			}
			i += n
		}
	}
	r.fail()
	return nil
}

// unquote is Str's slow path for the string whose content starts at start.
// It validates the string first, which finds its end, and then decodes it
// into a new slice; being valid, the content holds only complete escapes.
func (r *Reader) unquote(start int) []byte {
	r.skipString()
	if r.Invalid {
		return nil
	}
	s := r.Data[start : r.Off-1]
	b := make([]byte, 0, len(s)+utf8.UTFMax)
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\\' && s[i+1] != 'u':
			b = append(b, unescape[s[i+1]])
			i += 2
		case c == '\\':
			rr := hex4(s[i+2:])
			i += 6
			if utf16.IsSurrogate(rr) {
				// A surrogate is only meaningful as the first half of
				// a pair written as two escapes (RFC 8259 §7); like
				// encoding/json, decode anything else as U+FFFD and
				// read what follows on its own.
				rr2 := rune(-1)
				if len(s)-i >= 6 && s[i] == '\\' && s[i+1] == 'u' {
					rr2 = hex4(s[i+2:])
				}
				if pair := utf16.DecodeRune(rr, rr2); pair != unicode.ReplacementChar {
					rr = pair
					i += 6
				} else {
					rr = unicode.ReplacementChar
				}
			}
			b = utf8.AppendRune(b, rr)
		case c < utf8.RuneSelf:
			j := i + 1
			for j < len(s) && s[j] != '\\' && s[j] < utf8.RuneSelf {
				j++
			}
			b = append(b, s[i:j]...)
			i = j
		default:
			rr, n := utf8.DecodeRune(s[i:])
			b = utf8.AppendRune(b, rr) // U+FFFD for invalid UTF-8
			i += n
		}
	}
	return b
}

// unescape maps the character after a backslash to what it stands for.
var unescape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// Unescape returns the byte the two-character escape \c stands for, or 0
// when \c is not one (\u takes four hex digits and is not one either).
func Unescape(c byte) byte { return unescape[c] }

// IsPlain reports whether the byte c stands for itself inside a JSON
// string: not a quote, a backslash, a control character or the start of a
// multi-byte UTF-8 sequence.
func IsPlain(c byte) bool { return stringPlain[c] }

// FieldIndex returns the index of the field name in names that a member
// with the decoded key sets, or -1 for none. It matches as encoding/json
// matches struct fields: the exact name first, then case-insensitively.
// JSON-RPC 2.0 and MCP names are case-sensitive, so this is laxer than the
// specifications; it is what json.Unmarshal does, which the decoders built
// on Reader reproduce.
func FieldIndex(key []byte, names []string) int {
	for i, name := range names {
		if string(key) == name {
			return i
		}
	}
	for i, name := range names {
		if foldedEqual(key, name) {
			return i
		}
	}
	return -1
}

// foldedEqual reports whether key and the ASCII name are equal under
// encoding/json's folding (foldName in encoding/json/fold.go): ASCII
// letters are upper-cased, and any other rune is replaced by the smallest
// rune of its simple case-folding orbit. Two non-ASCII runes fold to ASCII
// letters that way: "ſ" (U+017F) to "S" and the Kelvin sign (U+212A) to "K".
func foldedEqual(key []byte, name string) bool {
	j := 0
	for i := 0; i < len(key); j++ {
		r, n := rune(key[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(key[i:])
			r = foldRune(r)
		}
		i += n
		if j >= len(name) || upperASCII(r) != upperASCII(rune(name[j])) {
			return false
		}
	}
	return j == len(name)
}

// foldRune returns the smallest rune of r's simple case-folding orbit, as
// encoding/json's foldRune does.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

func upperASCII(r rune) rune {
	if 'a' <= r && r <= 'z' {
		return r - ('a' - 'A')
	}
	return r
}

// SyntaxError returns the error json.Unmarshal gives for data, which a
// Reader found invalid, so that callers see the *json.SyntaxError
// (message and offset) json.Unmarshal would give. Only malformed input
// takes this path.
func SyntaxError(data []byte) error {
	var v json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	return errInvalidJSON // not reached while the reader and encoding/json agree
}

var errInvalidJSON = errors.New("messages: invalid JSON")

// jsonKind names the kind of the value whose first byte is c, as
// json.UnmarshalTypeError.Value does.
func jsonKind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// typeError is the error encoding/json reports for a value of the wrong
// kind (first byte c) in a field of type t.
func TypeError(c byte, t reflect.Type, structName, field string) *json.UnmarshalTypeError {
	return &json.UnmarshalTypeError{Value: jsonKind(c), Type: t, Struct: structName, Field: field}
}

// UnmarshalInto decodes raw (valid JSON) into *dst with encoding/json, for
// the members the single-pass decoders leave to it: nested objects such as
// _meta, annotations and icons, rare enough not to matter for speed.
// Decoding into a copy of *dst gives the same result as decoding in place
// (pointers, maps and slices share their referents, so duplicate keys still
// merge as encoding/json merges them), and it keeps the caller's struct off
// the heap: only this path allocates.
func UnmarshalInto[T any](raw []byte, dst *T) error {
	v := *dst
	err := json.Unmarshal(raw, &v)
	*dst = v
	return err
}
