package messages

import "encoding/json"

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
// when it is absent (or the result is not an object).
func ResultTypeOf(result json.RawMessage) string {
	var r struct {
		ResultType string `json:"resultType"`
	}
	if json.Unmarshal(result, &r) != nil || r.ResultType == "" {
		return ResultTypeComplete
	}
	return r.ResultType
}
