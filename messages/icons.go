package messages

// Icon is an optionally-sized icon for a user interface (basic/index
// "Icons", 2025-11-25).
type Icon struct {
	// Src is an http(s) URL or a data: URI.
	Src string `json:"src"`
	// MimeType overrides a missing or generic source MIME type.
	MimeType string `json:"mimeType,omitempty"`
	// Sizes are "WxH" strings or "any".
	Sizes []string `json:"sizes,omitempty"`
	// Theme is "light" or "dark"; empty means any.
	Theme string `json:"theme,omitempty"`
}
