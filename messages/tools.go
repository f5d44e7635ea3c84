package messages

import "encoding/json"

// Tool is a tool the server offers (server/tools, 2025-11-25).
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is a JSON Schema object; the spec requires one.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// OutputSchema describes StructuredContent (2025-06-18).
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	// Execution holds task support (2025-11-25).
	Execution *ToolExecution `json:"execution,omitempty"`
	Icons     []Icon         `json:"icons,omitempty"`
	Meta      Meta           `json:"_meta,omitempty"`
}

// ToolAnnotations are untrusted hints about a tool's behaviour
// (server/tools, ToolAnnotations, 2025-11-25). Nil hints take the spec's
// defaults: readOnly false, destructive true, idempotent false, openWorld
// true.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ToolExecution says whether a tool runs as a task (ToolExecution, 2025-11-25).
type ToolExecution struct {
	// TaskSupport is "forbidden" (the default), "optional" or "required".
	TaskSupport string `json:"taskSupport,omitempty"`
}

// ListToolsParams are the params of tools/list (server/tools, 2025-11-25).
type ListToolsParams struct {
	Meta   Meta   `json:"_meta,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListToolsResult is the result of tools/list (server/tools, 2025-11-25).
type ListToolsResult struct {
	Meta       Meta   `json:"_meta,omitempty"`
	Tools      []Tool `json:"tools"`
	NextCursor string `json:"nextCursor,omitempty"`
	// TTLMs and CacheScope are the 2026-07-28 caching hints
	// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching);
	// absent from earlier servers.
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}

// MarshalJSON encodes a nil Tools as [].
func (r ListToolsResult) MarshalJSON() ([]byte, error) {
	type plain ListToolsResult
	if r.Tools == nil {
		r.Tools = []Tool{}
	}
	return json.Marshal(plain(r))
}

// CallToolParams are the params of tools/call (server/tools, 2025-11-25).
type CallToolParams struct {
	Meta Meta   `json:"_meta,omitempty"`
	Name string `json:"name"`
	// Arguments is anything that encodes as a JSON object.
	Arguments any `json:"arguments,omitempty"`
	// InputResponses and RequestState retry after an InputRequiredResult
	// (2026-07-28 draft).
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
	RequestState   string                     `json:"requestState,omitempty"`
}

// CallToolResult is the result of tools/call (server/tools, 2025-11-25).
type CallToolResult struct {
	Meta    Meta      `json:"_meta,omitempty"`
	Content []Content `json:"content"`
	// StructuredContent is a JSON object (any JSON value in 2026-07-28).
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// MarshalJSON encodes a nil Content as [].
func (r CallToolResult) MarshalJSON() ([]byte, error) {
	type plain CallToolResult
	if r.Content == nil {
		r.Content = []Content{}
	}
	return json.Marshal(plain(r))
}
