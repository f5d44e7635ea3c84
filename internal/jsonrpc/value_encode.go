package jsonrpc

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/mcpactor/mcpactor/internal/rawjson"
	"github.com/mcpactor/mcpactor/messages"
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
		return rawjson.AppendString(b, v), nil
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
	case messages.Meta:
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
		b = rawjson.AppendString(b, k)
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
	r := rawjson.Reader{Data: raw}
	r.SkipValue()
	r.End()
	return !r.Invalid
}

// flatObjectKeys bounds the maps appendFlatObject encodes: their
// members are gathered on its frame, so the bound is that frame's size.
const flatObjectKeys = 4

// flatMember is a member of a map appendFlatObject encodes.
type flatMember struct {
	k string
	v any
}

// appendFlatObject encodes m as appendObject does when m is small (at
// most flatObjectKeys members) and flat (strings, booleans, numbers and
// nulls), and reports whether it did; otherwise it leaves b as it was.
// It is appendObject without the recursion, and without appendValue's
// large frame under each member: the common tools/call arguments, like
// {"message": "..."}, are encoded a few hundred bytes of stack shallower.
// The map is read by flatMembers, a frame beside the encoding's rather
// than above it: the map iterator is most of its size.
func appendFlatObject(b []byte, m map[string]any) ([]byte, bool) {
	var kv [flatObjectKeys]flatMember
	n, ok := flatMembers(m, &kv)
	if !ok {
		return b, false
	}
	start := len(b)
	b = append(b, '{')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, kv[i].k)
		b = append(b, ':')
		switch v := kv[i].v.(type) {
		case nil:
			b = append(b, "null"...)
		case string:
			b = rawjson.AppendString(b, v)
		case bool:
			b = strconv.AppendBool(b, v)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case float64:
			f, err := appendFloat(b, v)
			if err != nil {
				// NaN or an infinity: appendValue reports it.
				return b[:start], false
			}
			b = f
		}
	}
	return append(b, '}'), true
}

// flatMembers puts m's members in kv, sorted by key as encoding/json
// writes them, and returns how many there are; it reports false when m is
// nil, larger than kv, or has a value that is not a string, boolean,
// number (int, int64, float64) or nil.
//
//go:noinline
func flatMembers(m map[string]any, kv *[flatObjectKeys]flatMember) (int, bool) {
	if m == nil || len(m) > len(kv) {
		return 0, false
	}
	n := 0
	for k, v := range m {
		switch v.(type) {
		case nil, string, bool, int, int64, float64:
		default:
			return 0, false
		}
		if n == len(kv) {
			return 0, false // m grew while read
		}
		// Insertion sort: few members.
		i := n
		for ; i > 0 && kv[i-1].k > k; i-- {
			kv[i] = kv[i-1]
		}
		kv[i] = flatMember{k, v}
		n++
	}
	return n, true
}
