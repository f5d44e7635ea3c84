package messages

import (
	"encoding/base64"
	"encoding/json"
)

// ResourceContents is the content of a resource: text or a base64 blob
// (TextResourceContents | BlobResourceContents, server/resources,
// 2025-11-25). It encodes "blob" when IsBlob, "text" (even when empty)
// otherwise.
type ResourceContents struct {
	URI      string
	MimeType string
	Text     string
	Blob     string // base64
	Meta     Meta

	emptyBlob bool // decoded from "blob":""
}

// TextResource returns text resource contents.
func TextResource(uri, mimeType, text string) ResourceContents {
	return ResourceContents{URI: uri, MimeType: mimeType, Text: text}
}

// BlobResource returns binary resource contents holding data, base64-encoded.
func BlobResource(uri, mimeType string, data []byte) ResourceContents {
	blob := base64.StdEncoding.EncodeToString(data)
	return ResourceContents{URI: uri, MimeType: mimeType, Blob: blob, emptyBlob: blob == ""}
}

// IsBlob reports whether rc is binary (BlobResourceContents).
func (rc ResourceContents) IsBlob() bool { return rc.Blob != "" || rc.emptyBlob }

// Bytes returns the decoded blob, or the text.
func (rc ResourceContents) Bytes() ([]byte, error) {
	if rc.IsBlob() {
		return decodeContentBase64(rc.Blob)
	}
	return []byte(rc.Text), nil
}

type textResourceWire struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text"`
	Meta     Meta   `json:"_meta,omitempty"`
}

type blobResourceWire struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Blob     string `json:"blob"`
	Meta     Meta   `json:"_meta,omitempty"`
}

// MarshalJSON encodes text or blob contents.
func (rc ResourceContents) MarshalJSON() ([]byte, error) {
	if rc.IsBlob() {
		return json.Marshal(blobResourceWire{rc.URI, rc.MimeType, rc.Blob, rc.Meta})
	}
	return json.Marshal(textResourceWire{rc.URI, rc.MimeType, rc.Text, rc.Meta})
}

// UnmarshalJSON decodes text or blob contents. When both keys are present
// the blob wins (IsBlob reports true).
func (rc *ResourceContents) UnmarshalJSON(data []byte) error {
	var w struct {
		URI      string  `json:"uri"`
		MimeType string  `json:"mimeType"`
		Text     string  `json:"text"`
		Blob     *string `json:"blob"`
		Meta     Meta    `json:"_meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*rc = ResourceContents{URI: w.URI, MimeType: w.MimeType, Text: w.Text, Meta: w.Meta}
	if w.Blob != nil {
		rc.Text = ""
		rc.Blob = *w.Blob
		rc.emptyBlob = *w.Blob == ""
	}
	return nil
}
