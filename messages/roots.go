package messages

import "encoding/json"

// Root is a directory or file the server may operate on (client/roots, 2025-11-25).
type Root struct {
	// URI is a file:// URI.
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
	Meta Meta   `json:"_meta,omitempty"`
}

// ListRootsParams are the params of roots/list (client/roots, 2025-11-25).
type ListRootsParams struct {
	Meta Meta `json:"_meta,omitempty"`
}

// ListRootsResult is the result of roots/list (client/roots, 2025-11-25).
type ListRootsResult struct {
	Meta  Meta   `json:"_meta,omitempty"`
	Roots []Root `json:"roots"`
}

// MarshalJSON encodes a nil Roots as [].
func (r ListRootsResult) MarshalJSON() ([]byte, error) {
	type plain ListRootsResult
	if r.Roots == nil {
		r.Roots = []Root{}
	}
	return json.Marshal(plain(r))
}
