package callerr

import (
	"context"
	"encoding/json"

	"github.com/mcpactor/mcpactor/internal/errkind"
)

// kindNames name the kinds on the wire (a cluster hop).
var kindNames = map[error]string{
	errkind.ErrTransportClosed: "transport-closed", errkind.ErrTimeout: "timeout", errkind.ErrStart: "start", errkind.ErrRPC: "rpc",
	errkind.ErrHTTP: "http", errkind.ErrAuthorization: "authorization", errkind.ErrBadResponse: "bad-response",
	errkind.ErrInvalidArguments: "invalid-arguments", errkind.ErrConfig: "config", errkind.ErrUnsupported: "unsupported",
	errkind.ErrStopped: "stopped", errkind.ErrServerUnavailable: "server-unavailable", errkind.ErrNotFound: "not-found",
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

// errorFields is an Error without its methods, for its JSON.
type errorFields Error

// errorJSON is an Error's JSON: its kind and case by name beside
// its plain fields; the Cause is not encoded (a cluster hop carries it as
// an error of its own).
type errorJSON struct {
	Kind string `json:"Kind,omitempty"`
	Case string `json:"Case,omitempty"`
	*errorFields
	Cause *struct{} `json:"Cause,omitempty"`
}

// Marshal encodes e's fields, its kind and its case (what its text reads
// as), but not its Cause: the form in which a cluster member sends it to
// another. It is a function, not a MarshalJSON method, so that the root
// package's Error shows no encoding of its own.
func Marshal(e *Error) ([]byte, error) {
	c := *e
	c.Kind, c.Cause = nil, nil
	return json.Marshal(errorJSON{Kind: kindNames[e.Kind], Case: formNames[e.form], errorFields: (*errorFields)(&c)})
}

// Unmarshal decodes into e what Marshal encoded; e's Cause stays as it
// was.
func Unmarshal(data []byte, e *Error) error {
	cause := e.Cause
	v := errorJSON{errorFields: (*errorFields)(e)}
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
