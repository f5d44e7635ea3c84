package messages

import (
	"strconv"
	"unsafe"
)

// decodeMeta decodes a _meta object (raw, valid JSON) as json.Unmarshal
// into a nil Meta would: objects as map[string]any, arrays as []any,
// numbers as float64, the last of duplicate keys winning. In the
// 2026-07-28 era a server may put _meta in every result (the go-sdk's
// server sends its serverInfo), so this is on the path of every call:
// encoding/json's reflection cost about fifteen allocations for that one
// small object. With owned data (see jsonReader.owned) the strings share
// the data's memory.
//
// It reports false for what it leaves to encoding/json: anything but an
// object, nesting deeper than maxMetaDepth (the decoder recurses), and a
// number float64 cannot hold (encoding/json's error is the one to give).
func decodeMeta(raw []byte, owned bool) (Meta, bool) {
	d := jsonReader{data: raw, owned: owned}
	if d.peek() != '{' {
		return nil, false
	}
	m, ok := d.anyObject(0)
	d.end()
	if !ok || d.invalid {
		return nil, false
	}
	return m, true
}

// maxMetaDepth bounds decodeMeta's recursion; deeper _meta (which no
// protocol key has) goes to encoding/json.
const maxMetaDepth = 32

func (r *jsonReader) anyObject(depth int) (map[string]any, bool) {
	if depth > maxMetaDepth {
		return nil, false
	}
	m := map[string]any{}
	for more := r.beginObject(); more; more = r.nextMember() {
		k := r.text(r.key())
		v, ok := r.anyValue(depth)
		if !ok {
			return nil, false
		}
		m[k] = v
	}
	return m, !r.invalid
}

func (r *jsonReader) anyArray(depth int) ([]any, bool) {
	if depth > maxMetaDepth {
		return nil, false
	}
	a := []any{}
	for more := r.beginArray(); more; more = r.nextElement() {
		v, ok := r.anyValue(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
	}
	return a, !r.invalid
}

// anyValue decodes the value at r as encoding/json decodes into an any.
func (r *jsonReader) anyValue(depth int) (any, bool) {
	switch c := r.peek(); c {
	case '{':
		return r.anyObject(depth + 1)
	case '[':
		return r.anyArray(depth + 1)
	case '"':
		return r.text(r.str()), !r.invalid
	case 't':
		r.literal("true")
		return true, !r.invalid
	case 'f':
		r.literal("false")
		return false, !r.invalid
	case 'n':
		r.literal("null")
		return nil, !r.invalid
	default:
		start := r.off
		r.skipNumber()
		if r.invalid {
			return nil, false
		}
		b := r.data[start:r.off]
		f, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
		if err != nil {
			return nil, false
		}
		return f, true
	}
}

// text is a decoded string's bytes as a string: shared with the data when
// it is owned (a part of it, which nothing changes any more, or a slice
// unquote made for this string alone), copied otherwise.
func (r *jsonReader) text(b []byte) string {
	if r.owned && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return string(b)
}
