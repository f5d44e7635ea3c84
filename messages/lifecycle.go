package messages

import "encoding/json"

// Implementation names an MCP client or server (basic/lifecycle,
// 2025-11-25).
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
	// Description says what the implementation does (2025-11-25).
	Description string `json:"description,omitempty"`
	// WebsiteURL is the implementation's home page (2025-11-25).
	WebsiteURL string `json:"websiteUrl,omitempty"`
	Icons      []Icon `json:"icons,omitempty"`
}

// ClientCapabilities are what a client supports (basic/lifecycle
// "Capability Negotiation", 2025-11-25). A nil pointer means the capability
// is absent; a pointer to an empty struct encodes as {}.
type ClientCapabilities struct {
	Experimental map[string]any         `json:"experimental,omitempty"`
	Roots        *RootsCapability       `json:"roots,omitempty"`
	Sampling     *SamplingCapability    `json:"sampling,omitempty"`
	Elicitation  *ElicitationCapability `json:"elicitation,omitempty"`
	// Tasks is the 2025-11-25 tasks capability, kept as raw JSON.
	Tasks json.RawMessage `json:"tasks,omitempty"`
	// Extensions maps extension ids to their settings (2026-07-28 draft).
	Extensions map[string]any `json:"extensions,omitempty"`
}

// RootsCapability: the client answers roots/list (client/roots).
type RootsCapability struct {
	// ListChanged: the client sends notifications/roots/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapability: the client answers sampling/createMessage
// (client/sampling).
type SamplingCapability struct {
	// Context: the client honours includeContext other than "none".
	Context *SamplingContextCapability `json:"context,omitempty"`
	// Tools: the client accepts tools and toolChoice (2025-11-25).
	Tools *SamplingToolsCapability `json:"tools,omitempty"`
}

// SamplingContextCapability marks support for includeContext (client/sampling, 2025-11-25).
type SamplingContextCapability struct{}

// SamplingToolsCapability marks support for tool use in sampling (client/sampling, 2025-11-25).
type SamplingToolsCapability struct{}

// ElicitationCapability: the client answers elicitation/create
// (client/elicitation). An empty object means form mode only.
type ElicitationCapability struct {
	Form *ElicitationFormCapability `json:"form,omitempty"`
	URL  *ElicitationURLCapability  `json:"url,omitempty"`
}

// ElicitationFormCapability marks support for form-mode elicitation (client/elicitation, 2025-11-25).
type ElicitationFormCapability struct{}

// ElicitationURLCapability marks support for URL-mode elicitation (client/elicitation, 2025-11-25).
type ElicitationURLCapability struct{}

// ServerCapabilities are what a server offers (basic/lifecycle
// "Capability Negotiation", 2025-11-25).
type ServerCapabilities struct {
	Experimental map[string]any         `json:"experimental,omitempty"`
	Logging      *LoggingCapability     `json:"logging,omitempty"`
	Completions  *CompletionsCapability `json:"completions,omitempty"`
	Prompts      *PromptsCapability     `json:"prompts,omitempty"`
	Resources    *ResourcesCapability   `json:"resources,omitempty"`
	Tools        *ToolsCapability       `json:"tools,omitempty"`
	// Tasks is the 2025-11-25 tasks capability, kept as raw JSON.
	Tasks json.RawMessage `json:"tasks,omitempty"`
	// Extensions maps extension ids to their settings (2026-07-28 draft).
	Extensions map[string]any `json:"extensions,omitempty"`
}

// LoggingCapability: the server sends notifications/message (server/utilities/logging).
type LoggingCapability struct{}

// CompletionsCapability: the server answers completion/complete (server/utilities/completion).
type CompletionsCapability struct{}

// PromptsCapability: the server offers prompts (server/prompts).
type PromptsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability: the server offers resources (server/resources).
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// ToolsCapability: the server offers tools (server/tools).
type ToolsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// InitializeParams are the params of initialize (basic/lifecycle, 2025-11-25).
type InitializeParams struct {
	Meta            Meta               `json:"_meta,omitempty"`
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ClientCapabilities `json:"capabilities"`
	ClientInfo      Implementation     `json:"clientInfo"`
}

// InitializeResult is the result of initialize (basic/lifecycle, 2025-11-25).
type InitializeResult struct {
	Meta            Meta               `json:"_meta,omitempty"`
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

// PingParams are the params of ping (basic/utilities/ping, 2025-11-25).
type PingParams struct {
	Meta Meta `json:"_meta,omitempty"`
}

// EmptyResult is a result that carries no data, e.g. the answer to ping
// (EmptyResult, 2025-11-25 schema).
type EmptyResult struct {
	Meta Meta `json:"_meta,omitempty"`
}

// NotificationParams are the params of notifications that carry nothing
// but _meta: notifications/initialized and the */list_changed ones
// (NotificationParams, 2025-11-25 schema).
type NotificationParams struct {
	Meta Meta `json:"_meta,omitempty"`
}
