package messages

import (
	"bytes"
	"encoding/json"
)

// This file keeps the encoding/json-based decoding of content blocks that
// content_decode.go replaced, verbatim but for names, as the reference the
// differential fuzz tests hold the single-pass decoders to.

// referenceContent wraps a Content with the UnmarshalJSON it had.
type referenceContent struct{ c Content }

// referenceCallToolResult is CallToolResult as it was: no UnmarshalJSON of
// its own, encoding/json calling its blocks' UnmarshalJSON one by one.
type referenceCallToolResult struct {
	Meta              Meta               `json:"_meta,omitempty"`
	Content           []referenceContent `json:"content"`
	StructuredContent json.RawMessage    `json:"structuredContent,omitempty"`
	IsError           bool               `json:"isError,omitempty"`
}

// referenceOf returns r as a referenceCallToolResult with the same layout,
// blocks past the length (within the capacity) included: encoding/json
// decodes into those.
func referenceOf(r CallToolResult) referenceCallToolResult {
	var blocks []referenceContent
	if r.Content != nil {
		all := r.Content[:cap(r.Content)]
		blocks = make([]referenceContent, len(all))
		for i, c := range all {
			blocks[i].c = c
		}
		blocks = blocks[:len(r.Content)]
	}
	return referenceCallToolResult{Meta: r.Meta, Content: blocks, StructuredContent: r.StructuredContent, IsError: r.IsError}
}

func (r referenceCallToolResult) result() CallToolResult {
	var blocks []Content
	if r.Content != nil {
		blocks = make([]Content, len(r.Content))
		for i, rc := range r.Content {
			blocks[i] = rc.c
		}
	}
	return CallToolResult{Meta: r.Meta, Content: blocks, StructuredContent: r.StructuredContent, IsError: r.IsError}
}

// UnmarshalJSON is Content.UnmarshalJSON as it was.
func (rc *referenceContent) UnmarshalJSON(data []byte) error {
	c := &rc.c
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	if !knownContentType(head.Type) {
		var w otherWire
		// Annotations or _meta of a shape we do not expect must not make
		// an unknown block fail: they are kept in raw anyway.
		if json.Unmarshal(data, &w) != nil {
			w = otherWire{Type: head.Type}
		}
		var raw bytes.Buffer
		if err := json.Compact(&raw, data); err != nil {
			return err
		}
		*c = Content{Type: head.Type, Annotations: w.Annotations, Meta: w.Meta, raw: raw.Bytes()}
		return nil
	}
	var err error
	switch head.Type {
	case ContentTypeText:
		var w textWire
		err = json.Unmarshal(data, &w)
		*c = Content{Type: w.Type, Text: w.Text, Annotations: w.Annotations, Meta: w.Meta}
	case ContentTypeImage, ContentTypeAudio:
		var w binaryWire
		err = json.Unmarshal(data, &w)
		*c = Content{Type: w.Type, Data: w.Data, MimeType: w.MimeType, Annotations: w.Annotations, Meta: w.Meta}
	case ContentTypeResourceLink:
		var w linkWire
		err = json.Unmarshal(data, &w)
		*c = Content{
			Type: w.Type, URI: w.URI, Name: w.Name, Title: w.Title, Description: w.Description,
			MimeType: w.MimeType, Size: w.Size, Icons: w.Icons, Annotations: w.Annotations, Meta: w.Meta,
		}
	case ContentTypeResource:
		var w embeddedWire
		err = json.Unmarshal(data, &w)
		*c = Content{Type: w.Type, Resource: w.Resource, Annotations: w.Annotations, Meta: w.Meta}
	}
	if err != nil {
		*c = Content{}
	}
	return err
}
