package jsonscan

import "unicode/utf8"

// AppendString appends s as a JSON string literal, escaped as
// encoding/json escapes it except for its HTML escaping (<, >, &, U+2028
// and U+2029 stay as they are: JSON does not need it). Invalid UTF-8
// becomes U+FFFD. Bytes that need no escape are copied in runs, so a plain
// ASCII tool name or message is one copy.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(append(b, s[start:i]...), `\ufffd`...)
				start = i + size
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		if e := shortEscapes[c]; e != 0 {
			b = append(b, '\\', e)
		} else {
			b = append(b, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigit = "0123456789abcdef"

// shortEscapes maps the ASCII bytes JSON has a two-character escape for to
// its second character (RFC 8259, section 7).
var shortEscapes = [utf8.RuneSelf]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}
