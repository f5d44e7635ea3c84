package testserver

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// A reflection-free decoding path for the messages the benchmark sends by
// the hundred thousand: tools/call echo requests, whose decoding by
// encoding/json (three nested Unmarshal calls per request) would be most
// of the server's time, so the common shapes are split here by hand. The line is validated once with json.Valid first, which
// lets the splitter assume well-formed input. Anything unusual (escaped
// keys or strings, invalid UTF-8, keys differing only in case, error
// objects) makes the fast path give up and the caller fall back to
// encoding/json, which remains the reference: the fuzz tests check that
// whatever the fast path accepts, it decodes exactly as encoding/json does.

// decodeMessage decodes line into m, reporting false when it could not
// (invalid JSON included) and json.Unmarshal must be used instead.
func decodeMessage(line []byte, m *message) bool {
	if !json.Valid(line) {
		return false
	}
	ok := true
	whole := eachMember(line, func(key, value []byte) {
		switch string(key) {
		case "jsonrpc":
			m.JSONRPC, ok = plainString(value, ok)
		case "id":
			m.ID = clone(value)
		case "method":
			m.Method, ok = plainString(value, ok)
		case "params":
			m.Params = clone(value)
		case "result":
			m.Result = clone(value)
		default:
			// encoding/json matches field names case-insensitively and
			// decodes error objects: leave those to it.
			ok = ok && !knownKeyFold(key)
		}
	})
	return whole && ok
}

// decodeCallParams splits tools/call params into the tool name, arguments
// and _meta; false means json.Unmarshal must be used instead.
func decodeCallParams(params []byte) (name string, args, meta json.RawMessage, ok bool) {
	ok = true
	whole := eachMember(params, func(key, value []byte) {
		switch string(key) {
		case "name":
			name, ok = plainString(value, ok)
		case "arguments":
			args = value // params is already a private copy
		case "_meta":
			meta = value
		default:
			ok = ok && !bytes.EqualFold(key, []byte("name")) &&
				!bytes.EqualFold(key, []byte("arguments")) && !bytes.EqualFold(key, []byte("_meta"))
		}
	})
	return name, args, meta, whole && ok
}

// stringArg returns the string argument key of args, reporting false when
// args is not an object of that simple shape.
func stringArg(args []byte, key string) (string, bool) {
	var (
		s     string
		found bool
		ok    = true
	)
	whole := eachMember(args, func(k, value []byte) {
		switch {
		case string(k) == key:
			if len(value) > 0 && value[0] == '"' && bytes.IndexByte(value, '\\') >= 0 {
				// Escapes: let encoding/json unquote the string alone.
				ok = ok && json.Unmarshal(value, &s) == nil
			} else {
				s, ok = plainString(value, ok)
			}
			found = true
		case bytes.EqualFold(k, []byte(key)):
			ok = false
		}
	})
	return s, whole && ok && found
}

var knownKeys = [][]byte{[]byte("jsonrpc"), []byte("id"), []byte("method"), []byte("params"), []byte("result"), []byte("error")}

func knownKeyFold(key []byte) bool {
	for _, k := range knownKeys {
		if bytes.EqualFold(key, k) {
			return true
		}
	}
	return false
}

// plainString returns the content of a JSON string without escapes; ok
// turns false when value is anything else. ok is threaded through so that
// one failure sticks.
func plainString(value []byte, ok bool) (string, bool) {
	// encoding/json replaces invalid UTF-8 with U+FFFD: leave that to it.
	if len(value) < 2 || value[0] != '"' || bytes.IndexByte(value, '\\') >= 0 || !utf8.Valid(value) {
		return "", false
	}
	return string(value[1 : len(value)-1]), ok
}

func clone(b []byte) json.RawMessage { return append(json.RawMessage(nil), b...) }

// eachMember calls fn with the raw key (without quotes) and raw value of
// each member of the JSON object data, which must be valid JSON. It
// reports false if data is not an object or a key has escapes.
func eachMember(data []byte, fn func(key, value []byte)) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for i < len(data) && data[i] == '"' {
		end := skipString(data, i)
		key := data[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		vend := skipValue(data, i)
		if vend <= i {
			return false
		}
		fn(key, data[i:vend])
		i = skipSpace(data, vend)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return true
		default:
			return false
		}
	}
	return false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at data[i].
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// skipValue returns the index just past the value starting at data[i].
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(data)
	default: // number, true, false, null
		for i < len(data) {
			switch data[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}
