package messages

// CancelledParams are the params of notifications/cancelled
// (basic/utilities/cancellation, 2025-11-25). A zero RequestID is omitted.
type CancelledParams struct {
	Meta      Meta   `json:"_meta,omitempty"`
	RequestID ID     `json:"requestId,omitzero"`
	Reason    string `json:"reason,omitempty"`
}
