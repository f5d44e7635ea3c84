package messages

import (
	"context"
	"encoding/json"
)

// kindNames name the kinds on the wire (a cluster hop).
var kindNames = map[error]string{
	ErrTransportClosed: "transport-closed", ErrTimeout: "timeout", ErrStart: "start", ErrRPC: "rpc",
	ErrHTTP: "http", ErrAuthorization: "authorization", ErrBadResponse: "bad-response",
	ErrInvalidArguments: "invalid-arguments", ErrConfig: "config", ErrUnsupported: "unsupported",
	ErrStopped: "stopped", ErrServerUnavailable: "server-unavailable", ErrNotFound: "not-found",
	context.Canceled: "canceled", context.DeadlineExceeded: "deadline-exceeded",
}

// kindByName is the kind of the given wire name, or nil.
func kindByName(name string) error {
	for k, n := range kindNames {
		if n == name {
			return k
		}
	}
	return nil
}

// callErrorFields is a CallError without its methods, for its JSON.
type callErrorFields CallError

// callErrorJSON is a CallError's JSON: its kind and case by name beside
// its plain fields; the Cause is not encoded (a cluster hop carries it as
// an error of its own).
type callErrorJSON struct {
	Kind string `json:"Kind,omitempty"`
	Case string `json:"Case,omitempty"`
	*callErrorFields
	Cause *struct{} `json:"Cause,omitempty"`
}

// MarshalJSON encodes e's fields, its kind and its case (what its text
// reads as), but not its Cause: the form in which a cluster member sends
// it to another.
func (e *CallError) MarshalJSON() ([]byte, error) {
	c := *e
	c.Kind, c.Cause = nil, nil
	return json.Marshal(callErrorJSON{Kind: kindNames[e.Kind], Case: formNames[e.form], callErrorFields: (*callErrorFields)(&c)})
}

// UnmarshalJSON decodes what MarshalJSON encoded; the Cause stays as it
// was.
func (e *CallError) UnmarshalJSON(data []byte) error {
	cause := e.Cause
	v := callErrorJSON{callErrorFields: (*callErrorFields)(e)}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	e.Kind, e.Cause, e.form = kindByName(v.Kind), cause, formPlain
	for f, name := range formNames {
		if name == v.Case && name != "" {
			e.form = form(f)
		}
	}
	return nil
}
