package messages

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// appendValue appends the JSON encoding of v, byte for byte what
// json.Marshal(v) returns. Tool arguments and _meta are nearly always built
// from the generic JSON shapes (map[string]any, []any, strings, float64,
// bool, nil); those are encoded here without reflection, and anything else
// (structs, named types, Marshalers) goes to encoding/json, value by value.
func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, v), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case float64:
		return appendFloat(b, v)
	case map[string]any:
		return appendObject(b, v)
	case json.RawMessage:
		if rawAsIs(v) {
			return append(b, v...), nil
		}
	case Meta:
		return appendObject(b, v)
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// appendObject encodes a map as encoding/json does: keys sorted, nil as null.
func appendObject(b []byte, m map[string]any) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	var small [8]string // most argument objects have a handful of keys
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendFloat follows encoding/json's float64 format (the shortest
// representation, in exponent form only for very small or large magnitudes,
// and a one-digit exponent written without its leading zero).
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		_, err := json.Marshal(f) // the same *json.UnsupportedValueError
		return nil, err
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 becomes 1e-7, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// rawAsIs reports whether json.Marshal would encode raw as the very same
// bytes: raw is one valid JSON text (checked by the one-pass reader,
// which accepts what json.Valid accepts), with no whitespace between its
// tokens for Marshal to compact away and none of the characters it
// escapes inside strings ('<', '>', '&', U+2028 and U+2029, whose UTF-8
// starts with 0xE2). Arguments that a caller encoded once and sends many
// times then cost a scan, not a compaction into a new buffer.
func rawAsIs(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			inString = !inString
		case '\\':
			i++ // the escaped byte cannot end the string
		case ' ', '\t', '\n', '\r':
			if !inString {
				return false
			}
		case '<', '>', '&', 0xE2:
			return false
		}
	}
	r := jsonReader{data: raw}
	r.skipValue()
	r.end()
	return !r.invalid
}
