package rawjson

import "bytes"

// KindOf names the kind of the JSON value v ("a JSON array", "null", ...),
// by its first byte, for an error that must not quote the value (it may
// hold a secret).
func KindOf(v []byte) string {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "a JSON object"
	case '[':
		return "a JSON array"
	case '"':
		return "a JSON string"
	case 't', 'f':
		return "a JSON boolean"
	case 'n':
		return "null"
	}
	return "a JSON number"
}
