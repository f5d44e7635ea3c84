package actors

import (
	"encoding/json"
	"testing"

	"github.com/mcpactor/mcpactor/messages"
)

// TestSpeaksUnasked checks which declared capabilities let a server send
// a notification the client did not ask for, and so make a session with
// a notification reader open the GET listener (serverStream).
func TestSpeaksUnasked(t *testing.T) {
	for _, tc := range []struct {
		name string
		caps messages.ServerCapabilities
		want bool
	}{
		{"nothing", messages.ServerCapabilities{}, false},
		{"tools without listChanged", messages.ServerCapabilities{Tools: &messages.ToolsCapability{}}, false},
		{"completions", messages.ServerCapabilities{Completions: &messages.CompletionsCapability{}}, false},
		{"resources without subscribe or listChanged", messages.ServerCapabilities{Resources: &messages.ResourcesCapability{}}, false},
		{"logging", messages.ServerCapabilities{Logging: &messages.LoggingCapability{}}, true},
		{"tools listChanged", messages.ServerCapabilities{Tools: &messages.ToolsCapability{ListChanged: true}}, true},
		{"prompts listChanged", messages.ServerCapabilities{Prompts: &messages.PromptsCapability{ListChanged: true}}, true},
		{"resources listChanged", messages.ServerCapabilities{Resources: &messages.ResourcesCapability{ListChanged: true}}, true},
		{"resources subscribe", messages.ServerCapabilities{Resources: &messages.ResourcesCapability{Subscribe: true}}, true},
		{"tasks", messages.ServerCapabilities{Tasks: json.RawMessage(`{"requests":{}}`)}, true},
		{"an experimental capability", messages.ServerCapabilities{Experimental: map[string]any{"x": map[string]any{}}}, true},
		{"an extension", messages.ServerCapabilities{Extensions: map[string]any{"io.example/x": map[string]any{}}}, true},
	} {
		if got := speaksUnasked(tc.caps); got != tc.want {
			t.Errorf("%s: speaksUnasked = %v, want %v", tc.name, got, tc.want)
		}
	}
	quiet := messages.ServerCapabilities{Tools: &messages.ToolsCapability{}}
	loud := messages.ServerCapabilities{Tools: &messages.ToolsCapability{ListChanged: true}}
	for _, tc := range []struct {
		name string
		w    serverStream
		caps messages.ServerCapabilities
		want bool
	}{
		{"nothing reads, a loud server", serverStream{}, loud, false},
		{"a reader, a loud server", serverStream{reads: true}, loud, true},
		{"a reader, a quiet server", serverStream{reads: true}, quiet, false},
		{"a request handler, a quiet server", serverStream{answers: true}, quiet, true},
	} {
		if got := tc.w.opens(tc.caps); got != tc.want {
			t.Errorf("%s: opens = %v, want %v", tc.name, got, tc.want)
		}
	}
}
