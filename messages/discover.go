package messages

import "encoding/json"

// DiscoverParams are the params of server/discover (2026-07-28 draft,
// basic/lifecycle). The draft requires _meta to carry MetaKeyProtocolVersion
// and MetaKeyClientCapabilities.
type DiscoverParams struct {
	Meta Meta `json:"_meta,omitempty"`
}

// DiscoverResult is the result of server/discover (2026-07-28 draft). Every
// field is optional here so that earlier drafts decode too.
type DiscoverResult struct {
	Meta Meta `json:"_meta,omitempty"`
	// ResultType is "complete" for a 2026-07-28 server.
	ResultType        string             `json:"resultType,omitempty"`
	SupportedVersions []string           `json:"supportedVersions,omitempty"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	// ServerInfo is sent by earlier drafts; the 2026-07-28 schema moved it
	// to _meta (MetaKeyServerInfo). See Info.
	ServerInfo   *Implementation `json:"serverInfo,omitempty"`
	Instructions string          `json:"instructions,omitempty"`
	// TTLMs is how long, in milliseconds, the client may cache the result.
	TTLMs *int64 `json:"ttlMs,omitempty"`
	// CacheScope is "public" or "private".
	CacheScope string `json:"cacheScope,omitempty"`
}

// Info returns the server's Implementation, from ServerInfo or else from
// _meta, and whether there was one.
func (r DiscoverResult) Info() (Implementation, bool) {
	if r.ServerInfo != nil {
		return *r.ServerInfo, true
	}
	v, ok := r.Meta[MetaKeyServerInfo]
	if !ok {
		return Implementation{}, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Implementation{}, false
	}
	var impl Implementation
	if json.Unmarshal(b, &impl) != nil {
		return Implementation{}, false
	}
	return impl, true
}
