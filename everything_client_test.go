package mcpactor_test

// The client features server-everything asks for: sampling
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling),
// elicitation
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation)
// and roots
// (https://modelcontextprotocol.io/specification/2025-11-25/client/roots),
// answered by everythingRecorder's handlers.

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// TestServerEverythingSampling answers the server's sampling request with
// the Sampling handler's canned message.
func TestServerEverythingSampling(t *testing.T) {
	f := everything.use(t)
	checkEverythingSampling(t, f.c, f.rec)
}

// checkEverythingSampling has server-everything ask for a sampling, which
// rec's handler answers.
func checkEverythingSampling(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	res := callOK(t, c, "trigger-sampling-request", map[string]any{"prompt": "What is 2+2?", "maxTokens": 64})
	p := rec.lastSampling()
	if p == nil {
		t.Fatal("the Sampling handler was not called")
	}
	if len(p.Messages) != 1 || p.Messages[0].Role != messages.RoleUser ||
		p.Messages[0].Content.Text != "Resource trigger-sampling-request context: What is 2+2?" {
		t.Errorf("sampling messages = %+v", p.Messages)
	}
	if p.MaxTokens != 64 || p.SystemPrompt != "You are a helpful test server." ||
		p.Temperature == nil || *p.Temperature != 0.7 {
		t.Errorf("sampling params: maxTokens %d, systemPrompt %q, temperature %v", p.MaxTokens, p.SystemPrompt, p.Temperature)
	}
	text := resultText(res)
	for _, want := range []string{cannedSample, cannedModel, `"role": "assistant"`, `"stopReason": "endTurn"`} {
		if !strings.Contains(text, want) {
			t.Errorf("tool result lacks %q:\n%s", want, text)
		}
	}
}

// TestServerEverythingElicitation answers a form elicitation with part of
// the form; the runtime fills in the schema's defaults for the rest.
func TestServerEverythingElicitation(t *testing.T) {
	f := everything.use(t)
	checkEverythingElicitation(t, f.c, f.rec)
}

// checkEverythingElicitation has server-everything ask for a form, which
// rec's handler answers in part.
func checkEverythingElicitation(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	res := callOK(t, c, "trigger-elicitation-request", nil)
	p := rec.lastElicit()
	if p == nil {
		t.Fatal("the Elicitation handler was not called")
	}
	if p.Mode != "" && p.Mode != messages.ElicitModeForm {
		t.Errorf("mode = %q, want form", p.Mode)
	}
	if p.Message != "Please provide inputs for the following fields:" {
		t.Errorf("message = %q", p.Message)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(p.RequestedSchema, &schema); err != nil {
		t.Fatalf("requestedSchema: %v", err)
	}
	for _, prop := range []string{"name", "check", "firstLine", "email", "integer", "number"} {
		if _, ok := schema.Properties[prop]; !ok {
			t.Errorf("requestedSchema lacks property %q", prop)
		}
	}
	if schema.Type != "object" || !slices.Equal(schema.Required, []string{"name"}) {
		t.Errorf("requestedSchema type %q required %v", schema.Type, schema.Required)
	}

	text := resultText(res)
	for _, want := range []string{
		"User provided the requested information",
		"- Name: Ada Lovelace",
		"- Agreed to terms: true",
		"- Email: ada@example.com",
		// Our explicit answer wins over the default (42)...
		"- Favorite Integer: 7",
		// ...and the defaults fill in what we did not answer.
		"- Favorite Number: 3.14",
		`"firstLine": "It was a dark and stormy night."`,
		`"untitledSingleSelectEnum": "Monica"`,
		`"legacyTitledEnum": "pet-1"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("tool result lacks %q:\n%s", want, text)
		}
	}
}

// TestServerEverythingURLElicitation accepts a URL elicitation, and gets the
// tool's -32042 error (URL elicitation required) as an RPCError.
func TestServerEverythingURLElicitation(t *testing.T) {
	f := everything.use(t)
	checkEverythingURLElicitation(t, f.c, f.rec)
}

// checkEverythingURLElicitation has server-everything ask for a URL
// elicitation, which rec's handler accepts, and then fail with -32042.
func checkEverythingURLElicitation(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	const url = "https://example.com/mcpactor/authorize"
	res := callOK(t, c, "trigger-url-elicitation", map[string]any{"url": url, "elicitationId": "mcpactor-elicit-1"})
	p := rec.lastElicit()
	if p == nil || p.Mode != messages.ElicitModeURL || p.URL != url || p.ElicitationID != "mcpactor-elicit-1" {
		t.Fatalf("Elicitation handler got %+v, want URL mode for %s", p, url)
	}
	if text := resultText(res); !strings.Contains(text, "User completed the URL elicitation flow") {
		t.Errorf("tool result = %q", text)
	}
	// The error path: the tool fails with -32042 (URL elicitation
	// required), a JSON-RPC error the caller can inspect.
	_, err := c.CallTool(waitCtx(t), "trigger-url-elicitation", map[string]any{"url": url, "errorPath": true})
	var rpcErr *messages.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32042 {
		t.Fatalf("error path: err = %v, want an RPCError with code -32042", err)
	}
	if !bytes.Contains(rpcErr.Data, []byte(`"elicitations"`)) {
		t.Errorf("error data %s lacks the elicitations", rpcErr.Data)
	}
}

// TestServerEverythingRoots serves the Roots handler's roots, then changes
// them and tells the server, which asks again. It is the only test that
// changes the shared connection's roots, and it runs its steps in order.
func TestServerEverythingRoots(t *testing.T) {
	f := everything.use(t)
	t.Run("get-roots-list", func(t *testing.T) { checkEverythingRootsList(t, f.c, f.rec) })
	t.Run("list_changed", func(t *testing.T) { checkEverythingRootsChanged(t, f.c, f.rec) })
}

// checkEverythingRootsList has server-everything list the roots of
// everythingRecorder, which it asks rec's handler for.
func checkEverythingRootsList(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	res := callOK(t, c, "get-roots-list", nil)
	text := resultText(res)
	for _, want := range []string{
		"Current MCP Roots (2 total)",
		"1. project-a\n   URI: file:///tmp/mcpactor/project-a",
		"2. project-b\n   URI: file:///tmp/mcpactor/project-b",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("get-roots-list lacks %q:\n%s", want, text)
		}
	}
	if rec.rootsCallCount() == 0 {
		t.Errorf("the Roots handler was never called")
	}
}

// checkEverythingRootsChanged adds a root and tells server-everything,
// which asks rec's handler again and lists the new root.
func checkEverythingRootsChanged(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	calls := rec.rootsCallCount()
	rec.setRoots(
		messages.Root{URI: "file:///tmp/mcpactor/project-a", Name: "project-a"},
		messages.Root{URI: "file:///tmp/mcpactor/project-b", Name: "project-b"},
		messages.Root{URI: "file:///tmp/mcpactor/project-c", Name: "project-c"},
	)
	mark := rec.notes.mark()
	if err := c.NotifyRootsChanged(waitCtx(t)); err != nil {
		t.Fatalf("NotifyRootsChanged: %v", err)
	}
	// The server asks for the roots again and logs what it got.
	rec.notes.waitAfter(t, mark, "log of the new roots", func(_ string, n mcpactor.Notification) bool {
		return n.Method == messages.NotificationMessage && bytes.Contains(n.Params, []byte("3 root(s) received"))
	})
	if rec.rootsCallCount() <= calls {
		t.Errorf("the Roots handler was not called again")
	}
	if text := resultText(callOK(t, c, "get-roots-list", nil)); !strings.Contains(text, "3. project-c") {
		t.Errorf("get-roots-list after the change:\n%s", text)
	}
}
