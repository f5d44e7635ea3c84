package jsonrpc

import (
	"bytes"
	"errors"

	"github.com/mcpactor/mcpactor/internal/rawjson"
)

// errParamsNotObject is returned by WithMeta for params that are not a JSON
// object (MCP params always are).
var errParamsNotObject = errors.New("params are not a JSON object")

// WithMeta returns params with members added to its _meta object: members
// is the inside of a JSON object ("\"k\":v,\"k2\":v2", no braces), usually
// encoded once and reused. The members go last in _meta, so where a key is
// there already, ours is the one that counts (the last of repeated keys
// wins for encoding/json and JSON.parse alike). params that are empty or
// null become {"_meta":{members}}. It scans params once, without decoding
// them, so it costs little even for large tool arguments. The result is a
// new slice; params is not changed.
func WithMeta(params []byte, members []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(params)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		out := make([]byte, 0, len(members)+12)
		out = append(out, `{"_meta":{`...)
		out = append(out, members...)
		return append(out, "}}"...), nil
	}
	r := rawjson.Reader{Data: trimmed}
	if r.Peek() != '{' {
		return nil, errParamsNotObject
	}
	// The last _meta member is the one decoders keep.
	var others [][]byte // the members other than _meta, as written
	metaEnd := -1       // the offset of the '}' closing the last _meta, if an object
	metaEmpty, metaSeen := false, false
	for more := r.BeginObject(); more; more = r.NextMember() {
		keyStart := r.Off
		isMeta := string(r.Key()) == "_meta"
		r.SkipSpace()
		start := r.Off
		v := r.Value()
		switch {
		case !isMeta:
			others = append(others, r.Data[keyStart:r.Off])
		case len(v) > 0 && v[0] == '{':
			metaSeen, metaEnd = true, start+len(v)-1
			metaEmpty = len(bytes.TrimSpace(v[1:len(v)-1])) == 0
		default:
			metaSeen, metaEnd = true, -1
		}
	}
	r.End()
	if r.Invalid {
		return nil, rawjson.SyntaxError(trimmed)
	}
	out := make([]byte, 0, len(trimmed)+len(members)+12)
	if metaEnd >= 0 {
		out = append(out, trimmed[:metaEnd]...)
		if !metaEmpty {
			out = append(out, ',')
		}
		out = append(out, members...)
		return append(out, trimmed[metaEnd:]...), nil
	}
	// No _meta object: ours goes first, then the other members as they
	// were (a _meta that was null or not an object is dropped).
	out = append(out, `{"_meta":{`...)
	out = append(out, members...)
	out = append(out, '}')
	if !metaSeen {
		if rest := bytes.TrimSpace(trimmed[1:]); rest[0] != '}' {
			out = append(out, ',')
		}
		return append(out, bytes.TrimSpace(trimmed[1:])...), nil
	}
	for _, m := range others {
		out = append(out, ',')
		out = append(out, m...)
	}
	return append(out, '}'), nil
}
