package messages

import "encoding/json"

// Completion reference types (server/utilities/completion, 2025-11-25).
const (
	// RefTypePrompt is a PromptReference.
	RefTypePrompt = "ref/prompt"
	// RefTypeResource is a ResourceTemplateReference.
	RefTypeResource = "ref/resource"
)

// CompleteParams are the params of completion/complete
// (server/utilities/completion, 2025-11-25).
type CompleteParams struct {
	Meta     Meta              `json:"_meta,omitempty"`
	Ref      CompleteReference `json:"ref"`
	Argument CompleteArgument  `json:"argument"`
	Context  *CompleteContext  `json:"context,omitempty"`
}

// CompleteReference names what is being completed: a prompt (Type
// "ref/prompt", Name) or a resource template (Type "ref/resource", URI).
type CompleteReference struct {
	Type  string `json:"type"`
	Name  string `json:"name,omitempty"`
	Title string `json:"title,omitempty"`
	URI   string `json:"uri,omitempty"`
}

// CompleteArgument is the argument being completed and its partial value.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext holds already-resolved arguments (2025-06-18).
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteResult is the result of completion/complete
// (server/utilities/completion, 2025-11-25).
type CompleteResult struct {
	Meta       Meta       `json:"_meta,omitempty"`
	Completion Completion `json:"completion"`
}

// Completion holds at most 100 completion values.
type Completion struct {
	Values  []string `json:"values"`
	Total   *int     `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// MarshalJSON encodes a nil Values as [].
func (c Completion) MarshalJSON() ([]byte, error) {
	type plain Completion
	if c.Values == nil {
		c.Values = []string{}
	}
	return json.Marshal(plain(c))
}
