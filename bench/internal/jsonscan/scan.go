// Package jsonscan is the small JSON scanner the benchmark's references
// share: the reference clients (package refclient) and the fast server
// (package fastserver) read only the few fields they need of a message. It
// finds where values start and end without building them: strings are
// skipped with bytes.IndexByte (the quote search is vectorized, so a 64 KiB
// text costs about a microsecond), and only the fields asked for are
// looked at. It is lenient: it checks structure enough never to index out
// of range and to find the right value, not to reject every invalid
// document. It uses the standard library only, as its users do: they are
// the references mcpactor is measured against, independent of its code.
package jsonscan

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// WS skips JSON whitespace from i.
func WS(b []byte, i int) int {
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

// StrEnd returns the index just past the string starting at b[i] == '"',
// or -1 if it is not terminated. A quote is escaped when the run of
// backslashes before it is odd: inside a JSON string a backslash only
// ever starts an escape, so the runs pair up.
func StrEnd(b []byte, i int) int {
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

// StringInto reads the string value starting at b[v]: when it is a
// terminated string, *dst becomes its raw contents (between the quotes,
// still escaped). It returns what a member function of ScanObject returns:
// the index just past the string, Skip when the value is not a string (to
// have it skipped), or Bad when it is not terminated. It costs a call more
// than StrEnd: scanners keep StrEnd for fields read on every answer.
func StringInto(b []byte, v int, dst *[]byte) int {
	if v >= len(b) || b[v] != '"' {
		return Skip
	}
	e := StrEnd(b, v)
	if e > 0 {
		*dst = b[v+1 : e-1]
	}
	return e
}

// SkipValue returns the index just past the value starting at b[i], or -1
// if there is none.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return StrEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); {
			switch b[j] {
			case '"':
				j = StrEnd(b, j)
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
	Skip = 0  // not parsed: Skip the value
	Bad  = -1 // malformed
)

// ScanObject walks the object starting at b[i] (after whitespace), calling
// member with each key (raw, between the quotes) and the index where its
// value starts. member returns the index just past the value if it parsed
// it, Skip to have it skipped, or Bad. ScanObject returns the index just
// past the object, or Bad.
func ScanObject(b []byte, i int, member func(key []byte, v int) int) int {
	i = WS(b, i)
	if i >= len(b) || b[i] != '{' {
		return Bad
	}
	i = WS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return Bad
		}
		ke := StrEnd(b, i)
		if ke < 0 {
			return Bad
		}
		key := b[i+1 : ke-1]
		i = WS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return Bad
		}
		i = WS(b, i+1)
		e := member(key, i)
		if e == Skip {
			e = SkipValue(b, i)
		}
		if e < 0 {
			return Bad
		}
		i = WS(b, e)
		if i >= len(b) {
			return Bad
		}
		switch b[i] {
		case ',':
			i = WS(b, i+1)
		case '}':
			return i + 1
		default:
			return Bad
		}
	}
}

// KeyIs tells whether the raw key k is name. Keys are compared as written;
// only a key with an escape in it (which no peer we know sends, but JSON
// allows) pays for unescaping.
func KeyIs(k []byte, name string) bool {
	if string(k) == name {
		return true
	}
	if bytes.IndexByte(k, '\\') < 0 {
		return false
	}
	s, ok := Unescape(k)
	return ok && s == name
}

// Unescape decodes the raw contents of a JSON string (between the
// quotes). Without a backslash it is one copy. Unpaired surrogates become
// U+FFFD, as encoding/json does.
func Unescape(raw []byte) (string, bool) {
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
