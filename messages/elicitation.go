package messages

import (
	"bytes"
	"encoding/json"
	"maps"
)

// Elicitation modes (client/elicitation, 2025-11-25).
const (
	// ElicitModeForm asks for data through a form; it is the default.
	ElicitModeForm = "form"
	// ElicitModeURL sends the user to a URL, out of band (2025-11-25).
	ElicitModeURL = "url"
)

// Elicitation actions (client/elicitation, 2025-11-25).
const (
	// ElicitActionAccept: the user submitted the form or agreed.
	ElicitActionAccept = "accept"
	// ElicitActionDecline: the user explicitly declined.
	ElicitActionDecline = "decline"
	// ElicitActionCancel: the user dismissed without choosing.
	ElicitActionCancel = "cancel"
)

// ElicitParams are the params of elicitation/create (client/elicitation,
// 2025-11-25): form mode uses RequestedSchema, URL mode uses URL and
// ElicitationID.
type ElicitParams struct {
	Meta Meta `json:"_meta,omitempty"`
	// Mode is "form" (also when empty) or "url".
	Mode    string `json:"mode,omitempty"`
	Message string `json:"message"`
	// RequestedSchema is a flat JSON Schema object of primitive properties.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
}

// ElicitResult is the result of elicitation/create (client/elicitation, 2025-11-25).
type ElicitResult struct {
	Meta Meta `json:"_meta,omitempty"`
	// Action is "accept", "decline" or "cancel".
	Action string `json:"action"`
	// Content is the submitted form data: accept in form mode only.
	Content map[string]any `json:"content,omitempty"`
}

// ElicitationCompleteParams are the params of
// notifications/elicitation/complete (client/elicitation, 2025-11-25).
type ElicitationCompleteParams struct {
	Meta          Meta   `json:"_meta,omitempty"`
	ElicitationID string `json:"elicitationId"`
}

// ApplySchemaDefaults returns content with, for every top-level property of
// the object schema that has a non-null "default", that default filled in
// where content lacks the key. Clients apply these defaults when accepting
// a form (client/elicitation, 2025-11-25, SEP-1034).
//
// Existing values are kept, content itself is never modified (a copy is
// returned when something is added), and a malformed schema or property is
// ignored.
func ApplySchemaDefaults(schema json.RawMessage, content map[string]any) map[string]any {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return content
	}
	out, copied := content, false
	for name, prop := range s.Properties {
		if _, ok := content[name]; ok {
			continue
		}
		var p map[string]json.RawMessage
		if json.Unmarshal(prop, &p) != nil {
			continue
		}
		raw, ok := p["default"]
		if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			continue
		}
		var def any
		if json.Unmarshal(raw, &def) != nil {
			continue
		}
		if !copied {
			out = make(map[string]any, len(content)+1)
			maps.Copy(out, content)
			copied = true
		}
		out[name] = def
	}
	return out
}
