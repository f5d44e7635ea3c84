package rawjson

import (
	"encoding/json"
	"unicode/utf8"
)

// AppendString appends s as a JSON string, byte for byte what json.Marshal
// gives. Plain ASCII (every MCP method name) takes the fast path; anything
// else goes through encoding/json.
func AppendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		// Anything encoding/json would escape (including its HTML-safe
		// '<', '>', '&') takes the slow path, so the output is the same.
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			return appendStringSlow(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendStringSlow is AppendString's encoding/json path, a frame of its
// own: inlined, its call's temporaries would make every AppendString's
// frame, on the way of every tools/call's name and arguments, three times
// as large.
//
//go:noinline
func appendStringSlow(b []byte, s string) []byte {
	enc, _ := json.Marshal(s)
	return append(b, enc...)
}
