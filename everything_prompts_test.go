package mcpactor_test

// server-everything's prompts
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts),
// argument completion
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion)
// and logging
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging).

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

// TestServerEverythingPrompts lists the prompts through ListPrompts and the
// Prompts iterator, gets each kind, and gets an unknown one (-32602).
func TestServerEverythingPrompts(t *testing.T) {
	checkEverythingPrompts(t, everything.use(t).c)
}

// checkEverythingPrompts lists server-everything's prompts (ListPrompts and
// the Prompts iterator), gets each kind (resource-prompt with a blob and a
// text), and an unknown one.
func checkEverythingPrompts(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	prompts, err := c.ListPrompts(ctx)
	names := listedNames(t, "ListPrompts", prompts, err, promptName)
	checkListed(t, "prompts/list", names, []string{"simple-prompt", "args-prompt", "completable-prompt", "resource-prompt"})
	if i := slices.Index(names, "args-prompt"); i >= 0 {
		args := prompts[i].Arguments
		if len(args) != 2 || args[0].Name != "city" || !args[0].Required || args[1].Name != "state" || args[1].Required {
			t.Errorf("args-prompt arguments = %+v, want city (required) and state", args)
		}
	}
	checkIterator(t, "Prompts", c.Prompts(ctx), promptName, names)

	gp, err := c.GetPrompt(ctx, "simple-prompt", nil)
	if err != nil {
		t.Fatalf("GetPrompt(simple-prompt): %v", err)
	}
	if len(gp.Messages) != 1 || gp.Messages[0].Content.Text != "This is a simple prompt without arguments." {
		t.Errorf("simple-prompt = %+v", gp.Messages)
	}

	gp, err = c.GetPrompt(ctx, "args-prompt", map[string]string{"city": "Paris", "state": "Texas"})
	if err != nil {
		t.Fatalf("GetPrompt(args-prompt): %v", err)
	}
	if len(gp.Messages) != 1 || gp.Messages[0].Role != messages.RoleUser || gp.Messages[0].Content.Text != "What's weather in Paris, Texas?" {
		t.Errorf("args-prompt = %+v", gp.Messages)
	}

	gp, err = c.GetPrompt(ctx, "resource-prompt", map[string]string{"resourceType": "Blob", "resourceId": "2"})
	if err != nil {
		t.Fatalf("GetPrompt(resource-prompt): %v", err)
	}
	if len(gp.Messages) != 2 || gp.Messages[1].Content.Type != messages.ContentTypeResource {
		t.Fatalf("resource-prompt = %+v, want text then an embedded resource", gp.Messages)
	}
	data, err := gp.Messages[1].Content.Bytes()
	if err != nil || !strings.HasPrefix(string(data), "Resource 2: This is a base64 blob") {
		t.Errorf("embedded blob = %q (%v)", data, err)
	}
	gp, err = c.GetPrompt(ctx, "resource-prompt", map[string]string{"resourceType": "Text", "resourceId": "2"})
	if err != nil || len(gp.Messages) != 2 || gp.Messages[1].Content.Type != messages.ContentTypeResource {
		t.Errorf("resource-prompt (Text) = %+v, %v; want text then an embedded resource", gp, err)
	}

	_, err = c.GetPrompt(ctx, "no-such-prompt", nil)
	var rpcErr *messages.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != messages.CodeInvalidParams {
		t.Errorf("unknown prompt: err = %v, want an RPCError -32602", err)
	}
}

// TestServerEverythingCompletion completes a prompt's arguments, one
// narrowed by the context, and a resource template's.
func TestServerEverythingCompletion(t *testing.T) {
	checkEverythingCompletion(t, everything.use(t).c)
}

// checkEverythingCompletion completes the arguments of a prompt of
// server-everything, one narrowed by the context, and a resource
// template's.
func checkEverythingCompletion(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	prompt := messages.CompleteReference{Type: messages.RefTypePrompt, Name: "completable-prompt"}
	res, err := c.Complete(ctx, messages.CompleteParams{Ref: prompt, Argument: messages.CompleteArgument{Name: "department", Value: "S"}})
	if err != nil {
		t.Fatalf("Complete(department): %v", err)
	}
	if !slices.Equal(res.Completion.Values, []string{"Sales", "Support"}) {
		t.Errorf("department completions = %v", res.Completion.Values)
	}
	// The context narrows the second argument.
	res, err = c.Complete(ctx, messages.CompleteParams{
		Ref:      prompt,
		Argument: messages.CompleteArgument{Name: "name", Value: ""},
		Context:  &messages.CompleteContext{Arguments: map[string]string{"department": "Engineering"}},
	})
	if err != nil {
		t.Fatalf("Complete(name): %v", err)
	}
	if !slices.Equal(res.Completion.Values, []string{"Alice", "Bob", "Charlie"}) {
		t.Errorf("name completions = %v", res.Completion.Values)
	}
	res, err = c.Complete(ctx, messages.CompleteParams{
		Ref:      messages.CompleteReference{Type: messages.RefTypeResource, URI: "demo://resource/dynamic/text/{resourceId}"},
		Argument: messages.CompleteArgument{Name: "resourceId", Value: "12"},
	})
	if err != nil {
		t.Fatalf("Complete(resourceId): %v", err)
	}
	if !slices.Equal(res.Completion.Values, []string{"12"}) {
		t.Errorf("resourceId completions = %v", res.Completion.Values)
	}
}

// TestServerEverythingLogging sets the log level and receives the server's
// simulated log messages. It has a server of its own: the level and the
// simulation are the session's state.
func TestServerEverythingLogging(t *testing.T) {
	t.Parallel()
	f := ownPeer(t, everythingPlainSpec(t))
	checkEverythingLogging(t, f.c, f.rec)
}

// checkEverythingLogging sets the log level to debug, has server-everything
// simulate log messages, and receives one in rec. It changes the
// session's state.
func checkEverythingLogging(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	ctx := waitCtx(t)
	if err := c.SetLoggingLevel(ctx, messages.LevelDebug); err != nil {
		t.Fatalf("SetLoggingLevel: %v", err)
	}
	mark := rec.notes.mark()
	if text := resultText(callOK(t, c, "toggle-simulated-logging", nil)); !strings.HasPrefix(text, "Started") {
		t.Fatalf("toggle-simulated-logging = %q", text)
	}
	n := rec.notes.waitAfter(t, mark, "simulated log message", func(_ string, n mcpactor.Notification) bool {
		return n.Method == messages.NotificationMessage &&
			(bytes.Contains(n.Params, []byte("-level message")) || bytes.Contains(n.Params, []byte("level-message")))
	})
	var p messages.LoggingMessageParams
	if err := json.Unmarshal(n.Params, &p); err != nil {
		t.Fatalf("notifications/message params %s: %v", n.Params, err)
	}
	if p.Level.Severity() < 0 {
		t.Errorf("log level %q is not an RFC 5424 level", p.Level)
	}
	var data string
	if err := json.Unmarshal(p.Data, &data); err != nil || data == "" {
		t.Errorf("log data %s (%v), want a string", p.Data, err)
	}
	if text := resultText(callOK(t, c, "toggle-simulated-logging", nil)); !strings.HasPrefix(text, "Stopped") {
		t.Errorf("second toggle-simulated-logging = %q", text)
	}
}
