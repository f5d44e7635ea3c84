package messages

import "encoding/json"

// Resource is a resource the server can read (server/resources, 2025-11-25).
type Resource struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MimeType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"` // raw bytes, before base64
	Icons       []Icon       `json:"icons,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ResourceTemplate is an RFC 6570 template of resource URIs
// (server/resources "Resource Templates", 2025-11-25).
type ResourceTemplate struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MimeType    string       `json:"mimeType,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ListResourcesParams are the params of resources/list (server/resources, 2025-11-25).
type ListResourcesParams struct {
	Meta   Meta   `json:"_meta,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListResourcesResult is the result of resources/list (server/resources, 2025-11-25).
type ListResourcesResult struct {
	Meta       Meta       `json:"_meta,omitempty"`
	Resources  []Resource `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
	// TTLMs and CacheScope are the 2026-07-28 caching hints
	// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching);
	// absent from earlier servers.
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}

// MarshalJSON encodes a nil Resources as [].
func (r ListResourcesResult) MarshalJSON() ([]byte, error) {
	type plain ListResourcesResult
	if r.Resources == nil {
		r.Resources = []Resource{}
	}
	return json.Marshal(plain(r))
}

// ListResourceTemplatesParams are the params of resources/templates/list
// (server/resources, 2025-11-25).
type ListResourceTemplatesParams struct {
	Meta   Meta   `json:"_meta,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListResourceTemplatesResult is the result of resources/templates/list
// (server/resources, 2025-11-25).
type ListResourceTemplatesResult struct {
	Meta              Meta               `json:"_meta,omitempty"`
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
	NextCursor        string             `json:"nextCursor,omitempty"`
	// TTLMs and CacheScope are the 2026-07-28 caching hints
	// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching);
	// absent from earlier servers.
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}

// MarshalJSON encodes a nil ResourceTemplates as [].
func (r ListResourceTemplatesResult) MarshalJSON() ([]byte, error) {
	type plain ListResourceTemplatesResult
	if r.ResourceTemplates == nil {
		r.ResourceTemplates = []ResourceTemplate{}
	}
	return json.Marshal(plain(r))
}

// ReadResourceParams are the params of resources/read (server/resources, 2025-11-25).
type ReadResourceParams struct {
	Meta Meta   `json:"_meta,omitempty"`
	URI  string `json:"uri"`
	// InputResponses and RequestState retry after an InputRequiredResult
	// (2026-07-28 draft).
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
	RequestState   string                     `json:"requestState,omitempty"`
}

// ReadResourceResult is the result of resources/read (server/resources, 2025-11-25).
type ReadResourceResult struct {
	Meta     Meta               `json:"_meta,omitempty"`
	Contents []ResourceContents `json:"contents"`
	// TTLMs and CacheScope are the 2026-07-28 caching hints
	// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching);
	// absent from earlier servers.
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}

// MarshalJSON encodes a nil Contents as [].
func (r ReadResourceResult) MarshalJSON() ([]byte, error) {
	type plain ReadResourceResult
	if r.Contents == nil {
		r.Contents = []ResourceContents{}
	}
	return json.Marshal(plain(r))
}

// SubscribeParams are the params of resources/subscribe (server/resources, 2025-11-25).
type SubscribeParams struct {
	Meta Meta   `json:"_meta,omitempty"`
	URI  string `json:"uri"`
}

// UnsubscribeParams are the params of resources/unsubscribe (server/resources, 2025-11-25).
type UnsubscribeParams struct {
	Meta Meta   `json:"_meta,omitempty"`
	URI  string `json:"uri"`
}

// ResourceUpdatedParams are the params of notifications/resources/updated
// (server/resources, 2025-11-25).
type ResourceUpdatedParams struct {
	Meta Meta   `json:"_meta,omitempty"`
	URI  string `json:"uri"`
}
