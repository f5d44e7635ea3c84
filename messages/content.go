package messages

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// Content types (ContentBlock and SamplingMessageContentBlock, 2025-11-25
// schema).
const (
	// ContentTypeText is TextContent.
	ContentTypeText = "text"
	// ContentTypeImage is ImageContent.
	ContentTypeImage = "image"
	// ContentTypeAudio is AudioContent.
	ContentTypeAudio = "audio"
	// ContentTypeResourceLink is ResourceLink.
	ContentTypeResourceLink = "resource_link"
	// ContentTypeResource is EmbeddedResource.
	ContentTypeResource = "resource"
	// ContentTypeToolUse is ToolUseContent of sampling messages
	// (client/sampling, 2025-11-25). Content keeps it as raw JSON: see
	// Content.Raw.
	ContentTypeToolUse = "tool_use"
	// ContentTypeToolResult is ToolResultContent of sampling messages
	// (client/sampling, 2025-11-25), kept as raw JSON like tool_use.
	ContentTypeToolResult = "tool_result"
)

// Content is one content block of a tool result, prompt message or sampling
// message (server/tools "Tool Result", 2025-11-25). Type says which fields
// are meaningful:
//
//   - "text": Text
//   - "image", "audio": Data (base64) and MimeType
//   - "resource_link": URI, Name, Title, Description, MimeType, Size, Icons
//   - "resource": Resource
//
// Annotations and Meta apply to every kind. Any other type (tool_use,
// tool_result, or a kind from a newer spec) decodes without error and
// re-encodes exactly as received.
type Content struct {
	Type string

	Text string // text

	Data     string // image, audio: base64
	MimeType string // image, audio, resource_link

	URI         string // resource_link
	Name        string // resource_link
	Title       string // resource_link
	Description string // resource_link
	Size        *int64 // resource_link
	Icons       []Icon // resource_link

	Resource *ResourceContents // resource

	Annotations *Annotations
	Meta        Meta

	raw json.RawMessage // the JSON of a type this package does not model
}

// TextContent returns a text block.
func TextContent(s string) Content { return Content{Type: ContentTypeText, Text: s} }

// ImageContent returns an image block holding data, base64-encoded.
func ImageContent(data []byte, mimeType string) Content {
	return Content{Type: ContentTypeImage, Data: base64.StdEncoding.EncodeToString(data), MimeType: mimeType}
}

// AudioContent returns an audio block holding data, base64-encoded.
func AudioContent(data []byte, mimeType string) Content {
	return Content{Type: ContentTypeAudio, Data: base64.StdEncoding.EncodeToString(data), MimeType: mimeType}
}

// ResourceLinkContent returns a resource_link block pointing at r.
func ResourceLinkContent(r Resource) Content {
	return Content{
		Type: ContentTypeResourceLink, URI: r.URI, Name: r.Name, Title: r.Title,
		Description: r.Description, MimeType: r.MimeType, Size: r.Size, Icons: r.Icons,
		Annotations: r.Annotations, Meta: r.Meta,
	}
}

// EmbeddedResourceContent returns a resource block embedding rc.
func EmbeddedResourceContent(rc ResourceContents) Content {
	return Content{Type: ContentTypeResource, Resource: &rc}
}

// ResourceLink returns the Resource a resource_link block points at.
func (c Content) ResourceLink() Resource {
	return Resource{
		URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description,
		MimeType: c.MimeType, Size: c.Size, Icons: c.Icons, Annotations: c.Annotations, Meta: c.Meta,
	}
}

// Raw returns the JSON of a block whose type this package does not model
// (e.g. tool_use), or nil.
func (c Content) Raw() json.RawMessage { return c.raw }

// IsKnown reports whether c's type is one of the five ContentBlock kinds.
func (c Content) IsKnown() bool { return knownContentType(c.Type) }

func knownContentType(t string) bool {
	switch t {
	case ContentTypeText, ContentTypeImage, ContentTypeAudio, ContentTypeResourceLink, ContentTypeResource:
		return true
	}
	return false
}

// Bytes returns the payload of the block: the decoded data of an image or
// audio block, the text of a text block, the decoded blob or the text of an
// embedded resource.
func (c Content) Bytes() ([]byte, error) {
	switch c.Type {
	case ContentTypeImage, ContentTypeAudio:
		return decodeContentBase64(c.Data)
	case ContentTypeText:
		return []byte(c.Text), nil
	case ContentTypeResource:
		if c.Resource == nil {
			return nil, errors.New("mcp: resource content without a resource")
		}
		return c.Resource.Bytes()
	}
	return nil, fmt.Errorf("mcp: content of type %q has no bytes", c.Type)
}

// decodeContentBase64 accepts standard base64 with or without padding, and
// the URL alphabet, which some servers send.
func decodeContentBase64(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err == nil {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err2 := enc.DecodeString(s); err2 == nil {
			return b, nil
		}
	}
	return nil, err
}

type textWire struct {
	Type        string       `json:"type"`
	Text        string       `json:"text"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

type binaryWire struct {
	Type        string       `json:"type"`
	Data        string       `json:"data"`
	MimeType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

type linkWire struct {
	Type        string       `json:"type"`
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MimeType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

type embeddedWire struct {
	Type        string            `json:"type"`
	Resource    *ResourceContents `json:"resource,omitempty"`
	Annotations *Annotations      `json:"annotations,omitempty"`
	Meta        Meta              `json:"_meta,omitempty"`
}

type otherWire struct {
	Type        string       `json:"type"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// MarshalJSON encodes only the fields of c's kind.
func (c Content) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case ContentTypeText:
		return json.Marshal(textWire{c.Type, c.Text, c.Annotations, c.Meta})
	case ContentTypeImage, ContentTypeAudio:
		return json.Marshal(binaryWire{c.Type, c.Data, c.MimeType, c.Annotations, c.Meta})
	case ContentTypeResourceLink:
		return json.Marshal(linkWire{c.Type, c.URI, c.Name, c.Title, c.Description, c.MimeType, c.Size, c.Icons, c.Annotations, c.Meta})
	case ContentTypeResource:
		return json.Marshal(embeddedWire{c.Type, c.Resource, c.Annotations, c.Meta})
	}
	if c.raw != nil {
		return c.raw, nil
	}
	return json.Marshal(otherWire{c.Type, c.Annotations, c.Meta})
}
