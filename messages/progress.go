package messages

// ProgressParams are the params of notifications/progress
// (basic/utilities/progress, 2025-11-25).
type ProgressParams struct {
	Meta Meta `json:"_meta,omitempty"`
	// ProgressToken is the string or number from the request's _meta; see
	// ProgressTokenKey to match it.
	ProgressToken any      `json:"progressToken"`
	Progress      float64  `json:"progress"`
	Total         *float64 `json:"total,omitempty"`
	Message       string   `json:"message,omitempty"`
}
