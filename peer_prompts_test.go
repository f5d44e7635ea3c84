package mcpactor_test

// Prompts and completion against the independent peers, one row per peer
// and transport (peer_rows_test.go).

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// TestPrompts lists the prompts (ListPrompts and the Prompts iterator),
// gets each kind and an unknown one
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts).
func TestPrompts(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		if p.peer == everythingServer {
			checkEverythingPrompts(t, p.c)
			return
		}
		checkGoSDKPrompts(t, p.c)
	}, everythingStdio, everythingStreamable, everythingSSE, gosdkStdio, gosdkHTTP)
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
	var rpcErr *mcpactor.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != messages.CodeInvalidParams {
		t.Errorf("unknown prompt: err = %v, want an RPCError -32602", err)
	}
}

// checkGoSDKPrompts lists the go-sdk server's prompts, gets each kind, and
// an unknown one.
func checkGoSDKPrompts(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	prompts, err := c.ListPrompts(ctx)
	names := listedNames(t, "ListPrompts", prompts, err, promptName)
	checkListed(t, "prompts/list", names, gosdkPrompts)

	gp, err := c.GetPrompt(ctx, "test_prompt_with_arguments", map[string]string{"arg1": "alpha", "arg2": "beta"})
	if err != nil {
		t.Fatalf("GetPrompt(test_prompt_with_arguments): %v", err)
	}
	if len(gp.Messages) != 1 || gp.Messages[0].Content.Text != "Prompt with arguments: arg1='alpha', arg2='beta'" {
		t.Errorf("test_prompt_with_arguments = %+v", gp.Messages)
	}

	gp, err = c.GetPrompt(ctx, "test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://mcpactor/doc"})
	if err != nil {
		t.Fatalf("GetPrompt(test_prompt_with_embedded_resource): %v", err)
	}
	if len(gp.Messages) != 2 || gp.Messages[0].Content.Resource == nil || gp.Messages[0].Content.Resource.URI != "test://mcpactor/doc" {
		t.Errorf("test_prompt_with_embedded_resource = %+v", gp.Messages)
	}

	gp, err = c.GetPrompt(ctx, "test_prompt_with_image", nil)
	if err != nil {
		t.Fatalf("GetPrompt(test_prompt_with_image): %v", err)
	}
	if len(gp.Messages) != 2 || gp.Messages[0].Content.Type != messages.ContentTypeImage {
		t.Fatalf("test_prompt_with_image = %+v", gp.Messages)
	}
	if data, err := gp.Messages[0].Content.Bytes(); err != nil || !bytes.HasPrefix(data, []byte(pngSignature)) {
		t.Errorf("prompt image bytes % x (%v), want PNG", data, err)
	}

	_, err = c.GetPrompt(ctx, "no_such_prompt", nil)
	var rpcErr *mcpactor.RPCError
	if !errors.As(err, &rpcErr) {
		t.Errorf("unknown prompt: err = %v, want an RPCError", err)
	}
}

// TestCompletion asks for completions of a prompt's argument; the go-sdk
// server acknowledges with none
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion).
func TestCompletion(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		if p.peer == everythingServer {
			checkEverythingCompletion(t, p.c)
			return
		}
		checkGoSDKCompletion(t, p.c)
	}, everythingStdio, everythingStreamable, everythingSSE, gosdkStdio, gosdkHTTP)
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

// checkGoSDKCompletion asks the go-sdk server for completions of a
// prompt's argument: none.
func checkGoSDKCompletion(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	res, err := c.Complete(waitCtx(t), messages.CompleteParams{
		Ref:      messages.CompleteReference{Type: messages.RefTypePrompt, Name: "test_prompt_with_arguments"},
		Argument: messages.CompleteArgument{Name: "arg1", Value: "a"},
	})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if len(res.Completion.Values) != 0 {
		t.Errorf("completions = %v, want none (this server only acknowledges)", res.Completion.Values)
	}
}
