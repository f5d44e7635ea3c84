package messages

import (
	"encoding/json"

	"github.com/mcpactor/mcpactor/internal/rawjson"
)

// Values of a result's resultType (Result, 2026-07-28 draft).
const (
	// ResultTypeComplete is a final result; an absent resultType means it too.
	ResultTypeComplete = "complete"
	// ResultTypeInputRequired is an InputRequiredResult.
	ResultTypeInputRequired = "input_required"
)

// InputRequiredResult asks the client to fulfil server requests
// (elicitation, sampling, roots) and then retry the original request with
// their results in inputResponses and the opaque requestState
// ("Multi Round-Trip", 2026-07-28 draft).
type InputRequiredResult struct {
	Meta       Meta   `json:"_meta,omitempty"`
	ResultType string `json:"resultType"`
	// InputRequests maps server-chosen keys to the requests to fulfil.
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	// RequestState is opaque: send it back unchanged.
	RequestState string `json:"requestState,omitempty"`
}

// InputRequest is one server request inside an InputRequiredResult: a
// method such as MethodElicitationCreate and its raw params.
type InputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// ResultTypeOf returns the resultType of a raw result, ResultTypeComplete
// when it is absent (or the result is not an object). It reads the result
// once without decoding it, as json.Unmarshal into a struct of that one
// field would (keys matched as encoding/json matches them, the last one
// winning): it is on the path of every 2026-07-28 response.
func ResultTypeOf(result json.RawMessage) string {
	d := rawjson.Reader{Data: result}
	if d.Peek() != '{' {
		return ResultTypeComplete
	}
	var rt []byte
	ok := true
	for more := d.BeginObject(); more; more = d.NextMember() {
		if rawjson.FieldIndex(d.Key(), resultTypeField) != 0 {
			d.SkipValue()
			continue
		}
		switch d.Peek() {
		case '"':
			rt = d.Str()
		case 'n':
			d.SkipValue() // null leaves the field as it was
		default:
			d.SkipValue()
			ok = false // json.Unmarshal would fail: not a string
		}
	}
	d.End()
	if d.Invalid || !ok || len(rt) == 0 {
		return ResultTypeComplete
	}
	switch string(rt) { // the known values without a copy
	case ResultTypeComplete:
		return ResultTypeComplete
	case ResultTypeInputRequired:
		return ResultTypeInputRequired
	}
	return string(rt)
}

var resultTypeField = []string{"resultType"}
