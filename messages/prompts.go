package messages

import "encoding/json"

// Prompt is a prompt or prompt template the server offers (server/prompts, 2025-11-25).
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        Meta             `json:"_meta,omitempty"`
}

// PromptArgument is an argument a prompt accepts (server/prompts, 2025-11-25).
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// ListPromptsParams are the params of prompts/list (server/prompts, 2025-11-25).
type ListPromptsParams struct {
	Meta   Meta   `json:"_meta,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListPromptsResult is the result of prompts/list (server/prompts, 2025-11-25).
type ListPromptsResult struct {
	Meta       Meta     `json:"_meta,omitempty"`
	Prompts    []Prompt `json:"prompts"`
	NextCursor string   `json:"nextCursor,omitempty"`
	// TTLMs and CacheScope are the 2026-07-28 caching hints
	// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching);
	// absent from earlier servers.
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}

// MarshalJSON encodes a nil Prompts as [].
func (r ListPromptsResult) MarshalJSON() ([]byte, error) {
	type plain ListPromptsResult
	if r.Prompts == nil {
		r.Prompts = []Prompt{}
	}
	return json.Marshal(plain(r))
}

// GetPromptParams are the params of prompts/get (server/prompts, 2025-11-25).
type GetPromptParams struct {
	Meta      Meta              `json:"_meta,omitempty"`
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
	// InputResponses and RequestState retry after an InputRequiredResult
	// (2026-07-28 draft).
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
	RequestState   string                     `json:"requestState,omitempty"`
}

// GetPromptResult is the result of prompts/get (server/prompts, 2025-11-25).
type GetPromptResult struct {
	Meta        Meta            `json:"_meta,omitempty"`
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// MarshalJSON encodes a nil Messages as [].
func (r GetPromptResult) MarshalJSON() ([]byte, error) {
	type plain GetPromptResult
	if r.Messages == nil {
		r.Messages = []PromptMessage{}
	}
	return json.Marshal(plain(r))
}

// PromptMessage is one message of a rendered prompt (server/prompts, 2025-11-25).
type PromptMessage struct {
	Role    Role    `json:"role"`
	Content Content `json:"content"`
}
