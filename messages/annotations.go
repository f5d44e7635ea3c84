package messages

// Role is the sender or recipient of a message (Role, 2025-11-25 schema).
type Role string

// The two roles.
const (
	// RoleUser is the human side of a conversation.
	RoleUser Role = "user"
	// RoleAssistant is the model side of a conversation.
	RoleAssistant Role = "assistant"
)

// Annotations tell the client how to use or display an object
// (Annotations, server/resources "Annotations", 2025-11-25).
type Annotations struct {
	// Audience is who the data is for: user, assistant or both.
	Audience []Role `json:"audience,omitempty"`
	// Priority ranges from 0 (optional) to 1 (effectively required).
	Priority *float64 `json:"priority,omitempty"`
	// LastModified is an ISO 8601 timestamp.
	LastModified string `json:"lastModified,omitempty"`
}
