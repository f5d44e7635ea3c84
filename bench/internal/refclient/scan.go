package refclient

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON scanner for the few fields a client reads of an answer.
// It finds where values start and end without building them: strings are
// skipped with bytes.IndexByte (the quote search is vectorized, so a 64 KiB
// text costs about a microsecond), and only the fields asked for are
// looked at. It is lenient: it checks structure enough never to index out
// of range and to find the right value, not to reject every invalid
// document, which is the server's business and not what is measured.

// ws skips JSON whitespace from i.
func ws(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// strEnd returns the index just past the string starting at b[i] == '"',
// or -1 if it is not terminated. A quote is escaped when the run of
// backslashes before it is odd: inside a JSON string a backslash only
// ever starts an escape, so the runs pair up.
func strEnd(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		k += j
		n := 0
		for p := k - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return k + 1
		}
		j = k + 1
	}
}

// skipValue returns the index just past the value starting at b[i], or -1
// if there is none.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return strEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); {
			switch b[j] {
			case '"':
				j = strEnd(b, j)
				if j < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
			j++
		}
		return -1
	}
	// A number or a literal: up to the next delimiter.
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r', ':', '"', '{', '[':
			if j == i {
				return -1
			}
			return j
		}
		j++
	}
	return j
}

// What a member function returns besides an end index.
const (
	skip = 0  // not parsed: skip the value
	bad  = -1 // malformed
)

// scanObject walks the object starting at b[i] (after whitespace), calling
// member with each key (raw, between the quotes) and the index where its
// value starts. member returns the index just past the value if it parsed
// it, skip to have it skipped, or bad. scanObject returns the index just
// past the object, or bad.
func scanObject(b []byte, i int, member func(key []byte, v int) int) int {
	i = ws(b, i)
	if i >= len(b) || b[i] != '{' {
		return bad
	}
	i = ws(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return bad
		}
		ke := strEnd(b, i)
		if ke < 0 {
			return bad
		}
		key := b[i+1 : ke-1]
		i = ws(b, ke)
		if i >= len(b) || b[i] != ':' {
			return bad
		}
		i = ws(b, i+1)
		e := member(key, i)
		if e == skip {
			e = skipValue(b, i)
		}
		if e < 0 {
			return bad
		}
		i = ws(b, e)
		if i >= len(b) {
			return bad
		}
		switch b[i] {
		case ',':
			i = ws(b, i+1)
		case '}':
			return i + 1
		default:
			return bad
		}
	}
}

// keyIs tells whether the raw key k is name. Keys are compared as written;
// only a key with an escape in it (which no server we know sends, but JSON
// allows) pays for unescaping.
func keyIs(k []byte, name string) bool {
	if string(k) == name {
		return true
	}
	if bytes.IndexByte(k, '\\') < 0 {
		return false
	}
	s, ok := unescape(k)
	return ok && s == name
}

// answer is what a client reads of one message from the server. Byte
// slices alias the line.
type answer struct {
	id     []byte // raw id token; nil if absent
	method bool   // a request or notification from the server, not an answer

	result, isError bool
	textOK          bool   // the first content item is {"type":"text","text":...}
	text            []byte // that text, raw (still escaped), between the quotes
	proto           []byte // result.protocolVersion, raw, between the quotes

	rpcErr  bool
	code    int64
	message []byte // raw, between the quotes
}

// parseAnswer reads the fields of a message a client needs in one pass
// over the line. ok is false if the line is not a JSON object.
func parseAnswer(line []byte, a *answer) (ok bool) {
	*a = answer{}
	end := scanObject(line, 0, func(k []byte, v int) int {
		switch {
		case keyIs(k, "id"):
			e := skipValue(line, v)
			if e > 0 {
				a.id = line[v:e]
			}
			return e
		case keyIs(k, "method"):
			a.method = true
		case keyIs(k, "result"):
			a.result = true
			return parseResult(line, v, a)
		case keyIs(k, "error"):
			if v < len(line) && line[v] == '{' {
				a.rpcErr = true
				return parseError(line, v, a)
			}
		}
		return skip
	})
	return end > 0
}

func parseResult(b []byte, v int, a *answer) int {
	if v >= len(b) || b[v] != '{' {
		return skip // a result that is not an object: no content
	}
	return scanObject(b, v, func(k []byte, v int) int {
		switch {
		case keyIs(k, "content"):
			return parseContent(b, v, a)
		case keyIs(k, "isError"):
			e := skipValue(b, v)
			a.isError = e > 0 && string(b[v:e]) == "true"
			return e
		case keyIs(k, "protocolVersion"):
			if v < len(b) && b[v] == '"' {
				e := strEnd(b, v)
				if e > 0 {
					a.proto = b[v+1 : e-1]
				}
				return e
			}
		}
		return skip
	})
}

// parseContent reads the first item of the content array at b[v] and
// skips the others.
func parseContent(b []byte, v int, a *answer) int {
	if v >= len(b) || b[v] != '[' {
		return skip
	}
	i := ws(b, v+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	var typ, text []byte
	textSet := false
	i = scanObject(b, i, func(k []byte, v int) int {
		if v >= len(b) || b[v] != '"' {
			return skip
		}
		switch {
		case keyIs(k, "type"):
			e := strEnd(b, v)
			if e > 0 {
				typ = b[v+1 : e-1]
			}
			return e
		case keyIs(k, "text"):
			e := strEnd(b, v)
			if e > 0 {
				text, textSet = b[v+1:e-1], true
			}
			return e
		}
		return skip
	})
	if i < 0 {
		return bad
	}
	a.textOK = textSet && string(typ) == "text"
	a.text = text
	// The rest of the array.
	for {
		i = ws(b, i)
		if i >= len(b) {
			return bad
		}
		switch b[i] {
		case ']':
			return i + 1
		case ',':
			i = skipValue(b, ws(b, i+1))
			if i < 0 {
				return bad
			}
		default:
			return bad
		}
	}
}

func parseError(b []byte, v int, a *answer) int {
	return scanObject(b, v, func(k []byte, v int) int {
		switch {
		case keyIs(k, "code"):
			e := skipValue(b, v)
			if e > 0 {
				a.code, _ = strconv.ParseInt(string(b[v:e]), 10, 64)
			}
			return e
		case keyIs(k, "message"):
			if v < len(b) && b[v] == '"' {
				e := strEnd(b, v)
				if e > 0 {
					a.message = b[v+1 : e-1]
				}
				return e
			}
		}
		return skip
	})
}

// parseID reads a numeric id as the clients write them (a small
// non-negative integer); ok is false for anything else, e.g. the string
// id of a server's request.
func parseID(raw []byte) (id uint64, ok bool) {
	if len(raw) == 0 || len(raw) > 19 {
		return 0, false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		id = id*10 + uint64(c-'0')
	}
	return id, true
}

// unescape decodes the raw contents of a JSON string (between the
// quotes). Without a backslash it is one copy. Unpaired surrogates become
// U+FFFD, as encoding/json does.
func unescape(raw []byte) (string, bool) {
	k := bytes.IndexByte(raw, '\\')
	if k < 0 {
		return string(raw), true
	}
	var sb strings.Builder
	sb.Grow(len(raw))
	sb.Write(raw[:k])
	for i := k; i < len(raw); {
		if raw[i] != '\\' {
			n := bytes.IndexByte(raw[i:], '\\')
			if n < 0 {
				sb.Write(raw[i:])
				break
			}
			sb.Write(raw[i : i+n])
			i += n
			continue
		}
		if i+1 >= len(raw) {
			return "", false
		}
		c := raw[i+1]
		i += 2
		switch c {
		case '"', '\\', '/':
			sb.WriteByte(c)
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r, ok := hex4(raw, i)
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					r2, ok = hex4(raw, i+2)
				}
				if ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			sb.WriteRune(r)
		default:
			return "", false
		}
	}
	return sb.String(), true
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendString appends s as a JSON string literal. Names of tools are
// plain ASCII in practice, so the common case is one copy; anything else
// is escaped by the rules of encoding/json (without its HTML escaping,
// which JSON does not need).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				start = i + 1
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			const hex = "0123456789abcdef"
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
