package testserver

import (
	"context"
	"encoding/json"
	"errors"
)

// Fixtures for the content-kinds tool. They are real, decodable media so
// that a client test can go as far as decoding them.
const (
	// pngBase64 is a 1x1 red PNG image.
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAAEElEQVR4nGL6z8AACAAA//8DCQECWLbVUAAAAABJRU5ErkJggg=="
	// wavBase64 is a WAV file: 8 kHz, mono, 8-bit PCM, 8 samples of silence.
	wavBase64 = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="
)

// Content blocks of a tool result, as the MCP schema names them.
type (
	textBlock struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	mediaBlock struct {
		Type     string `json:"type"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
	}
	resourceLinkBlock struct {
		Type     string `json:"type"`
		URI      string `json:"uri"`
		Name     string `json:"name"`
		MimeType string `json:"mimeType,omitempty"`
	}
	embeddedResourceBlock struct {
		Type     string          `json:"type"`
		Resource resourceContent `json:"resource"`
	}
)

// textContent is a text content block.
func textContent(text string) textBlock { return textBlock{Type: "text", Text: text} }

// contentKindsResult is computed once: the tool's answer never changes.
var contentKindsResult = mustJSON(struct {
	Content []any `json:"content"`
}{[]any{
	textContent("one block of each content kind"),
	mediaBlock{Type: "image", Data: pngBase64, MimeType: "image/png"},
	mediaBlock{Type: "audio", Data: wavBase64, MimeType: "audio/wav"},
	resourceLinkBlock{Type: "resource_link", URI: "test://static/1", Name: "static-1", MimeType: "text/plain"},
	embeddedResourceBlock{Type: "resource", Resource: resourceContent{
		URI: "test://dynamic/42", MimeType: "text/plain", Text: dynamicText("42"),
	}},
}})

func (s *server) toolContentKinds(context.Context, *Call) (json.RawMessage, *rpcError) {
	return contentKindsResult, nil
}

// messageArgs are the arguments of the tools that send a message of the
// caller's choosing.
type messageArgs struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// decodeMessageArgs decodes c's arguments as messageArgs: a method is
// required, and null params are none.
func decodeMessageArgs(c *Call) (messageArgs, *rpcError) {
	var a messageArgs
	if err := decodeArgs(c.args, &a); err != nil {
		return a, err
	}
	if a.Method == "" {
		return a, newError(codeInvalidParams, "Invalid arguments: method is required")
	}
	if isNull(a.Params) {
		a.Params = nil
	}
	return a, nil
}

// toolAskClient sends a request to the client (roots/list,
// sampling/createMessage, elicitation/create, ping...) with a string id of
// its own (in a 2026-07-28 request under Options.Stateless, as a multi
// round-trip instead: Call.Ask), waits for the answer, and returns the
// answer's result, or its error with isError set, as JSON text.
func (s *server) toolAskClient(ctx context.Context, c *Call) (json.RawMessage, *rpcError) {
	a, rpcErr := decodeMessageArgs(c)
	if rpcErr != nil {
		return nil, rpcErr
	}
	res, err := c.Ask(ctx, a.Method, a.Params)
	var answer *rpcError
	switch {
	case errors.As(err, &answer):
		return textResult(string(mustJSON(answer)), true), nil
	case err != nil:
		return nil, nil // cancelled: unanswered
	}
	return textResult(string(res), false), nil
}

// toolNotify sends the notification it is given, then answers "ok"; the
// notification therefore always precedes the answer on the wire.
func (s *server) toolNotify(_ context.Context, c *Call) (json.RawMessage, *rpcError) {
	a, rpcErr := decodeMessageArgs(c)
	if rpcErr != nil {
		return nil, rpcErr
	}
	s.sendNotification(c.out, a.Method, a.Params)
	return textResult("ok", false), nil
}

// continueTrace copies the W3C trace context of the tools/call that asked
// (its params._meta) into the request it makes, as an instrumented server
// would, unless the caller supplied a _meta of its own. Clients can then
// parent their SERVER span on our work (telemetry: "Context propagation").
func continueTrace(params, callMeta json.RawMessage) json.RawMessage {
	var meta map[string]json.RawMessage
	if json.Unmarshal(callMeta, &meta) != nil || meta["traceparent"] == nil {
		return params
	}
	obj := map[string]json.RawMessage{}
	if params != nil && json.Unmarshal(params, &obj) != nil {
		return params
	}
	if _, ok := obj["_meta"]; ok {
		return params
	}
	trace := map[string]json.RawMessage{}
	for _, k := range []string{"traceparent", "tracestate", "baggage"} {
		if v, ok := meta[k]; ok {
			trace[k] = v
		}
	}
	obj["_meta"] = mustJSON(trace)
	return mustJSON(obj)
}
