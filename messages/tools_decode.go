package messages

import (
	"encoding/json"

	"github.com/mcpactor/mcpactor/internal/rawjson"
)

// A tools/list result is decoded at every connection and every
// list_changed, for every server a manager runs: with encoding/json, whose
// reflection and second pass over the text (json.Valid before decoding)
// were a sixth of the client's CPU in the bring-up of a hundred servers of
// twenty tools each (docs/benchmarks.md, "8. Bring-up of 100 stdio
// servers"). UnmarshalOwned reads the usual shape of a list in one pass,
// by hand, and leaves the rest to encoding/json: a member of the wrong
// JSON type, a key given twice, a null where a value was expected, a
// syntax error. It decodes what json.Unmarshal would decode either way
// (TestListToolsResultDecodesAsEncodingJSON holds it to that).

// UnmarshalOwned decodes a tools/list result into r as json.Unmarshal
// would. The runtime decodes the lists it reads this way; data must not
// be changed afterwards, as for CallToolResult.UnmarshalOwned.
func (r *ListToolsResult) UnmarshalOwned(data []byte) error {
	if r.Meta == nil && r.Tools == nil && r.NextCursor == "" && r.TTLMs == nil && r.CacheScope == "" {
		// Into a zero result only: json.Unmarshal merges into what r
		// holds, which the hand-written path does not replicate.
		var fresh ListToolsResult
		if fresh.read(data) {
			*r = fresh
			return nil
		}
	}
	return json.Unmarshal(data, r)
}

var listToolsFields = []string{"_meta", "tools", "nextCursor", "ttlMs", "cacheScope"}

// read decodes data into the zero result r, and reports false, having
// perhaps filled part of r, for anything it leaves to encoding/json.
func (r *ListToolsResult) read(data []byte) bool {
	d := rawjson.Reader{Data: data}
	if d.Peek() != '{' {
		return false
	}
	var seen uint64
	ok := true
	for more := d.BeginObject(); more && ok; more = d.NextMember() {
		f, again := member(&d, listToolsFields, &seen)
		if again {
			return false
		}
		switch f {
		case 0:
			ok = decodeMeta(&d, &r.Meta)
		case 1:
			ok = readTools(&d, &r.Tools)
		case 2:
			ok = readString(&d, &r.NextCursor)
		case 3:
			ok = rawjson.UnmarshalInto(d.Value(), &r.TTLMs) == nil
		case 4:
			ok = readString(&d, &r.CacheScope)
		default:
			d.SkipValue()
		}
	}
	d.End()
	return ok && !d.Invalid
}

// readTools decodes the tools array.
func readTools(d *rawjson.Reader, tools *[]Tool) bool {
	if d.Peek() != '[' {
		return false
	}
	out := []Tool{}
	for more := d.BeginArray(); more; more = d.NextElement() {
		out = append(out, Tool{})
		if !readTool(d, &out[len(out)-1]) {
			return false
		}
	}
	*tools = out
	return !d.Invalid
}

var toolFields = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations", "execution", "icons", "_meta"}

// readTool decodes one tool: its names and schemas by hand, its rarer
// members by encoding/json.
func readTool(d *rawjson.Reader, t *Tool) bool {
	if d.Peek() != '{' {
		return false
	}
	var seen uint64
	ok := true
	for more := d.BeginObject(); more && ok; more = d.NextMember() {
		f, again := member(d, toolFields, &seen)
		if again {
			return false
		}
		switch f {
		case 0:
			ok = readString(d, &t.Name)
		case 1:
			ok = readString(d, &t.Title)
		case 2:
			ok = readString(d, &t.Description)
		case 3:
			ok = readRaw(d, &t.InputSchema)
		case 4:
			ok = readRaw(d, &t.OutputSchema)
		case 5:
			ok = rawjson.UnmarshalInto(d.Value(), &t.Annotations) == nil
		case 6:
			ok = rawjson.UnmarshalInto(d.Value(), &t.Execution) == nil
		case 7:
			ok = rawjson.UnmarshalInto(d.Value(), &t.Icons) == nil
		case 8:
			ok = decodeMeta(d, &t.Meta)
		default:
			d.SkipValue()
		}
	}
	return ok
}

// member returns the index in fields of the member at d (-1 for none),
// and whether a member of that field came before: json.Unmarshal merges a
// key given twice, which the hand-written path leaves to it.
func member(d *rawjson.Reader, fields []string, seen *uint64) (f int, again bool) {
	f = rawjson.FieldIndex(d.Key(), fields)
	if f < 0 {
		return f, false
	}
	again = *seen&(1<<f) != 0
	*seen |= 1 << f
	return f, again
}

// readString decodes a string member; null, which leaves a string as it
// was, is left to encoding/json with everything else.
func readString(d *rawjson.Reader, s *string) bool {
	if d.Peek() != '"' {
		return false
	}
	*s = string(d.Str())
	return true
}

// readRaw keeps a member's JSON as written, in a copy, as json.RawMessage
// does; null is left to encoding/json.
func readRaw(d *rawjson.Reader, raw *json.RawMessage) bool {
	if d.Peek() == 'n' {
		return false
	}
	if v := d.Value(); v != nil {
		*raw = append(json.RawMessage(nil), v...)
	}
	return true
}

// decodeMeta decodes a _meta object as encoding/json decodes it into a
// map; null and what DecodeObject leaves go to encoding/json.
func decodeMeta(d *rawjson.Reader, m *Meta) bool {
	if d.Peek() != '{' {
		return false
	}
	raw := d.Value()
	if raw == nil {
		return false
	}
	v, ok := rawjson.DecodeObject(raw, false)
	*m = v
	return ok
}
