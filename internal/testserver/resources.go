package testserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// resourceInfo is a resources/list entry.
type resourceInfo struct {
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MimeType string `json:"mimeType,omitempty"`
}

// resourceTemplate is a resources/templates/list entry.
type resourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	MimeType    string `json:"mimeType,omitempty"`
}

// resourceContent is one entry of a resources/read result, and the body of
// an embedded resource content block.
type resourceContent struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

const dynamicPrefix = "test://dynamic/"

// staticBlob is the content of test://static/2: bytes that are not text.
var staticBlob = []byte{0x00, 0x01, 0x02, 0xfe, 0xff}

var (
	staticResources = []resourceInfo{
		{URI: "test://static/1", Name: "static-1", MimeType: "text/plain"},
		{URI: "test://static/2", Name: "static-2", MimeType: "application/octet-stream"},
	}
	resourceTemplates = []resourceTemplate{
		{URITemplate: dynamicPrefix + "{id}", Name: "dynamic", MimeType: "text/plain"},
	}
)

// dynamicText is the text of test://dynamic/<id>.
func dynamicText(id string) string { return "dynamic resource " + id }

func (s *server) resourcesList(_ context.Context, req *request) (json.RawMessage, *rpcError) {
	page, next, err := paginate(s, req.params, s.catalog().Resources)
	if err != nil {
		return nil, err
	}
	return mustJSON(struct {
		Resources  []json.RawMessage `json:"resources"`
		NextCursor string            `json:"nextCursor,omitempty"`
	}{page, next}), nil
}

func (s *server) resourceTemplatesList(_ context.Context, req *request) (json.RawMessage, *rpcError) {
	page, next, err := paginate(s, req.params, s.catalog().ResourceTemplates)
	if err != nil {
		return nil, err
	}
	return mustJSON(struct {
		ResourceTemplates []json.RawMessage `json:"resourceTemplates"`
		NextCursor        string            `json:"nextCursor,omitempty"`
	}{page, next}), nil
}

func resourcesRead(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(params, &p)
	var c resourceContent
	switch id, dynamic := strings.CutPrefix(p.URI, dynamicPrefix); {
	case p.URI == "test://static/1":
		c = resourceContent{URI: p.URI, MimeType: "text/plain", Text: "static resource 1"}
	case p.URI == "test://static/2":
		c = resourceContent{URI: p.URI, MimeType: "application/octet-stream", Blob: base64.StdEncoding.EncodeToString(staticBlob)}
	case dynamic && id != "":
		c = resourceContent{URI: p.URI, MimeType: "text/plain", Text: dynamicText(id)}
	default:
		return nil, &rpcError{Code: codeResourceNotFound, Message: "Resource not found",
			Data: mustJSON(map[string]string{"uri": p.URI})}
	}
	return mustJSON(struct {
		Contents []resourceContent `json:"contents"`
	}{[]resourceContent{c}}), nil
}

// resourcesSubscribe answers resources/subscribe and unsubscribe. Nothing is
// ever sent for a subscription on its own: tests trigger
// notifications/resources/updated explicitly with the notify tool.
func (s *server) resourcesSubscribe(context.Context, *request) (json.RawMessage, *rpcError) {
	return json.RawMessage(`{}`), nil
}

// promptArgument is an argument of a prompt in prompts/list.
type promptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// promptInfo is a prompts/list entry.
type promptInfo struct {
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	Arguments   []promptArgument `json:"arguments,omitempty"`
}

var prompts = []promptInfo{
	{Name: "simple", Description: "A prompt without arguments."},
	{Name: "greet", Description: "Greets someone.", Arguments: []promptArgument{
		{Name: "name", Description: "Who to greet.", Required: true},
	}},
}

func (s *server) promptsList(_ context.Context, req *request) (json.RawMessage, *rpcError) {
	page, next, err := paginate(s, req.params, s.catalog().Prompts)
	if err != nil {
		return nil, err
	}
	return mustJSON(struct {
		Prompts    []json.RawMessage `json:"prompts"`
		NextCursor string            `json:"nextCursor,omitempty"`
	}{page, next}), nil
}

func promptsGet(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, newError(codeInvalidParams, "Invalid params: %v", err)
	}
	var description, text string
	switch p.Name {
	case "simple":
		description, text = "A prompt without arguments.", "This is a simple prompt."
	case "greet":
		name := p.Arguments["name"]
		if name == "" {
			return nil, newError(codeInvalidParams, "Invalid params: missing required argument: name")
		}
		description, text = "Greets someone.", "Hello, "+name+"!"
	default:
		return nil, newError(codeInvalidParams, "Invalid params: unknown prompt: %s", p.Name)
	}
	type message struct {
		Role    string    `json:"role"`
		Content textBlock `json:"content"`
	}
	return mustJSON(struct {
		Description string    `json:"description"`
		Messages    []message `json:"messages"`
	}{description, []message{{Role: "user", Content: textContent(text)}}}), nil
}

// Completion candidates: the greet prompt's name argument, and the id of
// the dynamic resource template.
var (
	completionNames = []string{"Alice", "Alan", "Albert", "Bob", "Bella", "Carol", "Charlie"}
	completionIDs   = []string{"1", "2", "3", "42", "100"}
)

// complete answers completion/complete: candidates for argument "name" (or
// "id") that start with the given value, case-insensitively; any other
// argument gets no candidates.
func complete(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, newError(codeInvalidParams, "Invalid params: %v", err)
	}
	var candidates []string
	switch p.Argument.Name {
	case "name":
		candidates = completionNames
	case "id":
		candidates = completionIDs
	}
	values := []string{}
	prefix := strings.ToLower(p.Argument.Value)
	for _, c := range candidates {
		if strings.HasPrefix(strings.ToLower(c), prefix) {
			values = append(values, c)
		}
	}
	type completion struct {
		Values  []string `json:"values"`
		Total   int      `json:"total"`
		HasMore bool     `json:"hasMore"`
	}
	return mustJSON(struct {
		Completion completion `json:"completion"`
	}{completion{values, len(values), false}}), nil
}

// DefaultSpec is this package's own catalogue, which Serve and
// NewHTTPHandler serve: the tools of tools.go (with "no-schema" under
// Options.ToolWithoutSchema), the test:// resources, the prompts simple
// and greet, and completions for their arguments.
func DefaultSpec(opts Options) *Spec {
	return &Spec{
		Instructions:      instructions,
		Capabilities:      capabilities,
		Tools:             toolCatalogue(opts),
		Resources:         encodeAll(staticResources),
		ResourceTemplates: encodeAll(resourceTemplates),
		Prompts:           encodeAll(prompts),
		Methods: map[string]Method{
			"resources/read":      resourcesRead,
			"prompts/get":         promptsGet,
			"completion/complete": complete,
		},
	}
}

// encodeAll encodes each of items.
func encodeAll[T any](items []T) []json.RawMessage {
	out := make([]json.RawMessage, len(items))
	for i, it := range items {
		out[i] = mustJSON(it)
	}
	return out
}
