package rawjson

import (
	"hash/maphash"
	"maps"
	"strconv"
	"sync/atomic"
	"unsafe"
)

// DecodeObject decodes a JSON object (raw, valid JSON), a _meta in
// practice, as json.Unmarshal into a nil map[string]any would: objects as
// map[string]any, arrays as []any, numbers as float64, the last of
// duplicate keys winning, without reflection: a server of the stateless
// protocol may put _meta in every result, so this is on the path of every
// call. With owned data (see Reader.Owned) the strings share the data's
// memory.
//
// It reports false for what it leaves to encoding/json: anything but an
// object, nesting deeper than maxMetaDepth (the decoder recurses), and a
// number float64 cannot hold (encoding/json's error is the one to give).
func DecodeObject(raw []byte, owned bool) (map[string]any, bool) {
	if len(raw) <= maxTemplateMeta {
		if m, ok := metaFromTemplate(raw); ok {
			return m, true
		}
	}
	return decodeMetaFresh(raw, owned)
}

// decodeMetaFresh is DecodeObject without the templates.
func decodeMetaFresh(raw []byte, owned bool) (map[string]any, bool) {
	d := Reader{Data: raw, Owned: owned}
	if d.Peek() != '{' {
		return nil, false
	}
	m, ok := d.anyObject(0)
	d.End()
	if !ok || d.Invalid {
		return nil, false
	}
	return m, true
}

// A server of the stateless protocol may put the same _meta in every
// result (the go-sdk's server puts its serverInfo there), and each
// result must have maps of its own, since a caller may change its Meta.
// What need not be made again are the values inside the maps: a string or
// a number in an interface cannot be changed, so each one boxed costs an
// allocation once, not per result. metaTemplates remembers the decoded
// form of a _meta seen twice in a row in its slot (one seen once is only
// noted, by its hash, so that _meta that differs on every result costs
// nothing more than the hash), and a result whose _meta has exactly those
// bytes gets a copy of its maps, made without decoding. The templates are
// never handed out; they are shared by every connection of the process,
// and bounded: metaTemplateSlots of at most maxTemplateMeta bytes each.
const (
	metaTemplateSlots = 64
	maxTemplateMeta   = 1024
)

// metaTemplate is a decoded _meta and its bytes, which its strings share.
type metaTemplate struct {
	raw  string
	meta map[string]any
}

var (
	metaSeed      = maphash.MakeSeed()
	metaTemplates [metaTemplateSlots]struct {
		seen atomic.Uint64 // the hash of the last _meta that missed here
		t    atomic.Pointer[metaTemplate]
	}
)

// metaFromTemplate returns a copy of raw's template, making the template
// when raw missed its slot twice in a row; false when there is none.
func metaFromTemplate(raw []byte) (map[string]any, bool) {
	h := maphash.Bytes(metaSeed, raw)
	slot := &metaTemplates[h%metaTemplateSlots]
	if t := slot.t.Load(); t != nil && t.raw == string(raw) {
		return copyMetaMap(t.meta), true
	}
	if slot.seen.Load() != h {
		slot.seen.Store(h)
		return nil, false
	}
	t := &metaTemplate{raw: string(raw)}
	m, ok := decodeMetaFresh(unsafe.Slice(unsafe.StringData(t.raw), len(t.raw)), true)
	if !ok {
		return nil, false
	}
	t.meta = m
	slot.t.Store(t)
	return copyMetaMap(m), true
}

// copyMetaMap copies a decoded object, its objects and arrays with it;
// the other values, which nothing can change, are shared.
func copyMetaMap(m map[string]any) map[string]any {
	c := maps.Clone(m)
	for k, v := range m {
		switch v := v.(type) {
		case map[string]any:
			c[k] = copyMetaMap(v)
		case []any:
			c[k] = copyMetaArray(v)
		}
	}
	return c
}

func copyMetaArray(a []any) []any {
	c := make([]any, len(a))
	for i, v := range a {
		switch v := v.(type) {
		case map[string]any:
			c[i] = copyMetaMap(v)
		case []any:
			c[i] = copyMetaArray(v)
		default:
			c[i] = v
		}
	}
	return c
}

// maxMetaDepth bounds DecodeObject's recursion; deeper _meta (which no
// protocol key has) goes to encoding/json.
const maxMetaDepth = 32

func (r *Reader) anyObject(depth int) (map[string]any, bool) {
	if depth > maxMetaDepth {
		return nil, false
	}
	m := map[string]any{}
	for more := r.BeginObject(); more; more = r.NextMember() {
		k := r.text(r.Key())
		v, ok := r.anyValue(depth)
		if !ok {
			return nil, false
		}
		m[k] = v
	}
	return m, !r.Invalid
}

func (r *Reader) anyArray(depth int) ([]any, bool) {
	if depth > maxMetaDepth {
		return nil, false
	}
	a := []any{}
	for more := r.BeginArray(); more; more = r.NextElement() {
		v, ok := r.anyValue(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
	}
	return a, !r.Invalid
}

// anyValue decodes the value at r as encoding/json decodes into an any.
func (r *Reader) anyValue(depth int) (any, bool) {
	switch c := r.Peek(); c {
	case '{':
		return r.anyObject(depth + 1)
	case '[':
		return r.anyArray(depth + 1)
	case '"':
		return r.text(r.Str()), !r.Invalid
	case 't':
		r.literal("true")
		return true, !r.Invalid
	case 'f':
		r.literal("false")
		return false, !r.Invalid
	case 'n':
		r.literal("null")
		return nil, !r.Invalid
	default:
		start := r.Off
		r.skipNumber()
		if r.Invalid {
			return nil, false
		}
		b := r.Data[start:r.Off]
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
func (r *Reader) text(b []byte) string {
	if r.Owned && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return string(b)
}
