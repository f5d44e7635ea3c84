package messages

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"unsafe"

	"github.com/mcpactor/mcpactor/internal/rawjson"
)

// Content blocks are decoded in one pass over their bytes (rawjson.Reader),
// and a CallToolResult decodes its content array itself rather than
// handing each block to Content.UnmarshalJSON; docs/architecture.md,
// "Decoding and encoding by hand", says why.
//
// The result is that of the json.Unmarshal-based reference decoder
// (content_reference_test.go), rules included: members that do not belong
// to the block's type are ignored even when their JSON type is wrong, a
// block of an unknown type keeps its JSON, and repeated keys, null
// members and case-insensitive key matches behave as in encoding/json.
// The fuzz tests compare the two (content_decode_test.go).

// The members of the content block kinds, in the order of contentFields.
// The first cfSize of them are strings.
const (
	cfType = iota
	cfText
	cfData
	cfMimeType
	cfURI
	cfName
	cfTitle
	cfDescription
	cfSize
	cfIcons
	cfResource
	cfAnnotations
	cfMeta
	numContentFields
)

var contentFields = [numContentFields]string{
	"type", "text", "data", "mimeType", "uri", "name", "title", "description",
	"size", "icons", "resource", "annotations", "_meta",
}

// The members each kind decodes, as bit sets over the cf constants.
const (
	commonMembers       = 1<<cfType | 1<<cfAnnotations | 1<<cfMeta
	textMembers         = commonMembers | 1<<cfText
	binaryMembers       = commonMembers | 1<<cfData | 1<<cfMimeType
	resourceLinkMembers = commonMembers | 1<<cfURI | 1<<cfName | 1<<cfTitle | 1<<cfDescription |
		1<<cfMimeType | 1<<cfSize | 1<<cfIcons
	embeddedMembers = commonMembers | 1<<cfResource
)

var (
	contentType        = reflect.TypeFor[Content]()
	contentSliceType   = reflect.TypeFor[[]Content]()
	callToolResultType = reflect.TypeFor[CallToolResult]()
	stringType         = reflect.TypeFor[string]()
	boolType           = reflect.TypeFor[bool]()
)

// contentWire collects the members of every kind of content block in one
// pass: the type, which decides which of them count, may come last.
type contentWire struct {
	strs        [cfSize][]byte // decoded strings; may alias the data
	size        *int64
	icons       []Icon
	resource    *ResourceContents
	annotations *Annotations
	meta        Meta
	errs        []memberError // type errors, in the order met
	owned       bool          // the data is the result's: see payload
}

// memberError is a member whose value has the wrong JSON type; it counts
// only if the member belongs to the block's kind.
type memberError struct {
	field int // a cf constant
	err   error
}

// payload is a block's text or data as a string. When the data was
// handed over (owned), the string shares its memory instead of copying it:
// the bytes of a decoded string are either a part of the data, which
// nothing changes any more, or a new slice unquote made for it alone. A
// large result is then held once, not twice.
func (w *contentWire) payload(b []byte) string {
	if w.owned && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return string(b)
}

// UnmarshalJSON decodes a content block. Fields that do not belong to the
// block's kind are ignored; a block of an unknown kind keeps its JSON.
func (c *Content) UnmarshalJSON(data []byte) error {
	r := rawjson.Reader{Data: data}
	decoded := *c // so that invalid JSON, found only at the end, leaves c alone
	err := readContentBlock(&r, &decoded)
	r.End()
	if r.Invalid {
		return rawjson.SyntaxError(data)
	}
	*c = decoded
	return err
}

// readContentBlock decodes the block at r into c. A null block leaves c as it
// is, as json.Unmarshal leaves it. Syntax errors are left in r.
func readContentBlock(r *rawjson.Reader, c *Content) error {
	switch k := r.Peek(); k {
	case '{':
	case 'n':
		r.Value()
		return nil
	default:
		r.Value()
		return rawjson.TypeError(k, contentType, "", "")
	}
	start := r.Off
	w := contentWire{owned: r.Owned}
	for more := r.BeginObject(); more; more = r.NextMember() {
		w.member(r, rawjson.FieldIndex(r.Key(), contentFields[:]))
	}
	if r.Invalid {
		return nil
	}
	return w.build(c, r.Data[start:r.Off])
}

// member reads the value of the member f (-1 for a key no kind has).
func (w *contentWire) member(r *rawjson.Reader, f int) {
	switch {
	case f < 0:
		r.Value()
	case f < cfSize:
		switch k := r.Peek(); k {
		case '"':
			w.strs[f] = r.Str()
		case 'n': // null leaves a string as it was
			r.Value()
		default:
			r.Value()
			w.typeError(f, rawjson.TypeError(k, stringType, "Content", contentFields[f]))
		}
	default:
		raw := r.Value()
		if raw == nil {
			return
		}
		var err error
		switch f {
		case cfSize:
			err = rawjson.UnmarshalInto(raw, &w.size)
		case cfIcons:
			err = rawjson.UnmarshalInto(raw, &w.icons)
		case cfResource:
			err = rawjson.UnmarshalInto(raw, &w.resource)
		case cfAnnotations:
			err = rawjson.UnmarshalInto(raw, &w.annotations)
		case cfMeta:
			err = rawjson.UnmarshalInto(raw, &w.meta)
		}
		if err != nil {
			w.typeError(f, inField(err, "Content", contentFields[f]))
		}
	}
}

func (w *contentWire) typeError(f int, err error) {
	w.errs = append(w.errs, memberError{f, err})
}

// firstError returns the first type error among members, a bit set over
// the cf constants: the error encoding/json reported decoding only those.
func (w *contentWire) firstError(members uint) error {
	for _, e := range w.errs {
		if members&(1<<e.field) != 0 {
			return e.err
		}
	}
	return nil
}

// build makes the block of w's kind; raw is the block's JSON, kept for a
// kind this package does not model. On a type error, c is left as it is if
// the error is the type's, and zeroed otherwise, as the json.Unmarshal-based
// decoder left it.
func (w *contentWire) build(c *Content, raw []byte) error {
	if err := w.firstError(1 << cfType); err != nil {
		return err
	}
	typ := w.strs[cfType]
	var members uint
	switch string(typ) {
	case ContentTypeText:
		members = textMembers
	case ContentTypeImage, ContentTypeAudio:
		members = binaryMembers
	case ContentTypeResourceLink:
		members = resourceLinkMembers
	case ContentTypeResource:
		members = embeddedMembers
	default:
		return w.buildOther(c, raw)
	}
	if err := w.firstError(members); err != nil {
		*c = Content{}
		return err
	}
	*c = Content{Type: contentTypeName(typ), Annotations: w.annotations, Meta: w.meta}
	switch c.Type {
	case ContentTypeText:
		c.Text = w.payload(w.strs[cfText])
	case ContentTypeImage, ContentTypeAudio:
		c.Data = w.payload(w.strs[cfData])
		c.MimeType = string(w.strs[cfMimeType])
	case ContentTypeResourceLink:
		c.URI = string(w.strs[cfURI])
		c.Name = string(w.strs[cfName])
		c.Title = string(w.strs[cfTitle])
		c.Description = string(w.strs[cfDescription])
		c.MimeType = string(w.strs[cfMimeType])
		c.Size = w.size
		c.Icons = w.icons
	case ContentTypeResource:
		c.Resource = w.resource
	}
	return nil
}

// buildOther makes a block of a kind this package does not model: its type,
// annotations and _meta, and its JSON, compacted. Annotations or _meta of
// an unexpected shape must not make such a block fail; neither is kept
// then (the JSON holds them anyway).
func (w *contentWire) buildOther(c *Content, raw []byte) error {
	if w.firstError(1<<cfAnnotations|1<<cfMeta) != nil {
		w.annotations, w.meta = nil, nil
	}
	var compact bytes.Buffer
	compact.Grow(len(raw))
	if err := json.Compact(&compact, raw); err != nil {
		return err
	}
	*c = Content{Type: string(w.strs[cfType]), Annotations: w.annotations, Meta: w.meta, raw: compact.Bytes()}
	return nil
}

// contentTypeName returns the constant for a known type, sparing a string
// allocation per block.
func contentTypeName(typ []byte) string {
	switch string(typ) {
	case ContentTypeText:
		return ContentTypeText
	case ContentTypeImage:
		return ContentTypeImage
	case ContentTypeAudio:
		return ContentTypeAudio
	case ContentTypeResourceLink:
		return ContentTypeResourceLink
	case ContentTypeResource:
		return ContentTypeResource
	}
	return string(typ)
}

// The members of a CallToolResult, in the order of callToolResultFields.
const (
	ctrMeta = iota
	ctrContent
	ctrStructuredContent
	ctrIsError
)

var callToolResultFields = []string{"_meta", "content", "structuredContent", "isError"}

// UnmarshalJSON decodes a tools/call result, content blocks included, in
// one pass over data. It decodes exactly what json.Unmarshal decoded before
// CallToolResult had this method, into r as it is (present members replace
// or merge into r's, as encoding/json's do). It validates data as
// json.Unmarshal does, so callers may also call it directly, skipping the
// two passes json.Unmarshal makes before it calls UnmarshalJSON.
func (r *CallToolResult) UnmarshalJSON(data []byte) error { return r.decode(data, false) }

// UnmarshalOwned is UnmarshalJSON for data handed over to the result: the
// text and data of its content may share data's memory, so data must not
// be changed afterwards. The runtime decodes the answers it has read this
// way, so that a large result is held once, not twice.
func (r *CallToolResult) UnmarshalOwned(data []byte) error { return r.decode(data, true) }

// decode is UnmarshalJSON, and UnmarshalOwned when owned is set.
func (r *CallToolResult) decode(data []byte, owned bool) error {
	d := rawjson.Reader{Data: data, Owned: owned}
	err := r.read(&d)
	d.End()
	if d.Invalid {
		return rawjson.SyntaxError(data)
	}
	return err
}

// read decodes the result at d into r. Like encoding/json, it reports the
// first type error after reading everything, so that a syntax error later
// on takes precedence.
func (r *CallToolResult) read(d *rawjson.Reader) error {
	switch k := d.Peek(); k {
	case '{':
	case 'n':
		d.Value()
		return nil
	default:
		d.Value()
		return rawjson.TypeError(k, callToolResultType, "", "")
	}
	var first error
	note := func(err error) {
		if first == nil {
			first = err
		}
	}
	for more := d.BeginObject(); more; more = d.NextMember() {
		switch rawjson.FieldIndex(d.Key(), callToolResultFields) {
		case ctrMeta:
			if raw := d.Value(); raw != nil {
				if m, ok := rawjson.DecodeObject(raw, d.Owned); ok && r.Meta == nil {
					r.Meta = m
				} else if err := rawjson.UnmarshalInto(raw, &r.Meta); err != nil {
					note(inField(err, "CallToolResult", "_meta"))
				}
			}
		case ctrContent:
			if err := r.readContent(d); err != nil {
				note(err)
			}
		case ctrStructuredContent:
			// As json.RawMessage.UnmarshalJSON, reusing r's buffer.
			if raw := d.Value(); raw != nil {
				r.StructuredContent = append(r.StructuredContent[:0], raw...)
			}
		case ctrIsError:
			switch k := d.Peek(); k {
			case 't', 'f':
				if d.Value() != nil {
					r.IsError = k == 't'
				}
			case 'n':
				d.Value()
			default:
				d.Value()
				note(rawjson.TypeError(k, boolType, "CallToolResult", "isError"))
			}
		default:
			d.Value()
		}
	}
	return first
}

// readContent decodes the content array into r.Content the way
// encoding/json fills a slice (decode.go, array): the elements already
// there, up to the slice's capacity, are decoded into (a null element
// leaves one as it is), and an empty array gives a new empty slice.
func (r *CallToolResult) readContent(d *rawjson.Reader) error {
	switch k := d.Peek(); k {
	case '[':
	case 'n':
		d.Value()
		r.Content = nil
		return nil
	default:
		d.Value()
		return rawjson.TypeError(k, contentSliceType, "CallToolResult", "content")
	}
	var first error
	blocks, n := r.Content, 0
	for more := d.BeginArray(); more; more = d.NextElement() {
		if n < cap(blocks) {
			blocks = blocks[:n+1]
		} else {
			blocks = append(blocks[:n], Content{})
		}
		if err := readContentBlock(d, &blocks[n]); err != nil && first == nil {
			first = inField(err, "CallToolResult", "content")
		}
		n++
	}
	if n == 0 {
		blocks = []Content{}
	}
	r.Content = blocks[:n]
	return first
}

// inField places a type error from inside the field of a struct, as
// encoding/json's error context does: "content.text", "_meta".
func inField(err error, structName, field string) error {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		ute.Struct = structName
		if ute.Field != "" {
			field += "." + ute.Field
		}
		ute.Field = field
	}
	return err
}
