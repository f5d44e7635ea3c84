package mcpactor_test

// Tests against the Go SDK's conformance everything-server
// (github.com/modelcontextprotocol/go-sdk v1.8.0,
// conformance/everything-server), a second independent server, over stdio
// with no flags. Sent initialize, it speaks the session era (2025-11-25).
// Most tests take turns on one shared server (gosdk, a sharedPeer); those
// that change the session's state (log level, subscriptions) or end it
// start their own (ownPeer). Each test's checks (checkGoSDK*) take a
// *mcpactor.Client, so that the HTTP tests (gosdk_http_test.go) run them
// too.
//
// What it offers (conformance/everything-server/main.go):
//   - tools: test_simple_text, test_image_content, test_audio_content,
//     test_embedded_resource, test_multiple_content_types,
//     test_tool_with_logging, test_tool_with_progress, test_error_handling,
//     test_sampling, test_elicitation, test_elicitation_sep1034_defaults,
//     test_elicitation_sep1330_enums, json_schema_2020_12_tool,
//     test_reconnection, test_x_mcp_header, test_missing_capability,
//     test_streaming_elicitation, test_logging_tool,
//     test_trigger_tool_change, test_trigger_prompt_change and the
//     test_input_required_result_* tools (2026-07-28 draft);
//   - resources test://static-text, test://static-binary,
//     test://watched-resource (updated every 3 s) and the template
//     test://template/{id}/data;
//   - prompts test_simple_prompt, test_prompt_with_arguments,
//     test_prompt_with_embedded_resource, test_prompt_with_image,
//     test_input_required_result_prompt;
//   - completion/complete answering no values; it sends log messages only
//     after logging/setLevel.
//
// test_elicitation_sep1330_enums is not called: v1.8.0 rejects its own
// schema before sending the request ("items must specify enum for untitled
// enums"), so it never reaches a client.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/messages"
)

const gosdkServer = "gosdk"

var gosdkTools = []string{
	"test_simple_text", "test_image_content", "test_audio_content",
	"test_embedded_resource", "test_multiple_content_types",
	"test_tool_with_logging", "test_tool_with_progress", "test_error_handling",
	"test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults",
	"test_elicitation_sep1330_enums", "json_schema_2020_12_tool",
	"test_reconnection", "test_missing_capability",
}

var gosdkPrompts = []string{
	"test_simple_prompt", "test_prompt_with_arguments",
	"test_prompt_with_embedded_resource", "test_prompt_with_image",
}

const pngSignature = "\x89PNG\r\n\x1a\n"

// gosdk is the go-sdk server connection the tests share.
var gosdk = &sharedPeer{spec: gosdkSpec}

// gosdkSpec starts the go-sdk server over stdio for a runtime with
// gosdkRecorder's handlers.
func gosdkSpec(t *testing.T) peerSpec {
	bin := peers.GoSDKServer(t)
	// The server speaks both eras; these tests pin the session era (the
	// stateless era has tests of its own, gosdk_stateless_test.go).
	cfg := mcpactor.ServerConfig{Command: bin, ProtocolVersion: messages.Version20251125}
	return peerSpec{rec: gosdkRecorder(), cfg: cfg, marker: bin}
}

// gosdkRecorder answers sampling with a canned reply to the prompt,
// elicitation with a username (or, for the defaults test, a name only),
// and roots with one root.
func gosdkRecorder() *peerRecorder {
	rec := newPeerRecorder(gosdkServer)
	rec.sample = func(p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
		return &messages.CreateMessageResult{
			Role:       messages.RoleAssistant,
			Content:    messages.TextContent("canned reply to: " + p.Messages[0].Content.Text),
			Model:      cannedModel,
			StopReason: messages.StopReasonEndTurn,
		}, nil
	}
	rec.elicit = func(p *messages.ElicitParams) (*messages.ElicitResult, error) {
		switch p.Message {
		case "Test defaults for primitives":
			// Only the name: the runtime must fill in the other defaults.
			return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{"name": "Grace Hopper"}}, nil
		}
		return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{"username": "ada"}}, nil
	}
	rec.setRoots(messages.Root{URI: "file:///tmp/mcpactor/gosdk", Name: "gosdk-root"})
	return rec
}

// TestGoSDKServerHandshake checks what initialize negotiated
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle).
func TestGoSDKServerHandshake(t *testing.T) {
	checkGoSDKSessionHandshake(t, gosdk.use(t).c)
}

// checkGoSDKSessionHandshake checks what initialize with the go-sdk server
// gave: the session era, the server's identity and capabilities.
func checkGoSDKSessionHandshake(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	if v := c.ProtocolVersion(); v != messages.Version20251125 {
		t.Errorf("ProtocolVersion = %q, want %s", v, messages.Version20251125)
	}
	if info := c.ServerInfo(); info.Name != "mcp-conformance-test-server" || info.Version != "1.0.0" {
		t.Errorf("ServerInfo = %+v", info)
	}
	caps := c.Capabilities()
	if caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil || caps.Logging == nil {
		t.Errorf("Capabilities() = %+v, want tools, resources, prompts, completions and logging", caps)
	}
	if caps.Resources != nil && !caps.Resources.Subscribe {
		t.Errorf("resources.subscribe = false, want true")
	}
	t.Logf("instructions: %q", c.Instructions())
}

// TestGoSDKServerListTools lists the tools; a JSON Schema 2020-12 input
// schema reaches the caller verbatim.
func TestGoSDKServerListTools(t *testing.T) {
	checkGoSDKListTools(t, gosdk.use(t).c, gosdkTools)
}

// checkGoSDKListTools lists the go-sdk server's tools, want among them; a
// JSON Schema 2020-12 input schema reaches the caller verbatim.
func checkGoSDKListTools(t *testing.T, c *mcpactor.Client, want []string) {
	t.Helper()
	tools, err := c.ListTools(waitCtx(t))
	names := listedNames(t, "ListTools", tools, err, toolName)
	checkListed(t, "tools/list", names, want)
	// A JSON Schema 2020-12 input schema reaches the caller verbatim.
	i := slices.Index(names, "json_schema_2020_12_tool")
	if i < 0 {
		return
	}
	for _, key := range []string{`"$schema"`, `"$defs"`, `"$anchor"`, `"allOf"`, `"if"`, `"additionalProperties"`} {
		if !bytes.Contains(tools[i].InputSchema, []byte(key)) {
			t.Errorf("json_schema_2020_12_tool input schema lacks %s: %s", key, tools[i].InputSchema)
		}
	}
}

// TestGoSDKServerSimpleText calls a tool that answers one text block.
func TestGoSDKServerSimpleText(t *testing.T) {
	checkGoSDKSimpleText(t, gosdk.use(t).c)
}

// checkGoSDKSimpleText calls test_simple_text.
func checkGoSDKSimpleText(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	if got := resultText(callOK(t, c, "test_simple_text", nil)); got != "This is a simple text response for testing." {
		t.Errorf("test_simple_text = %q", got)
	}
}

// TestGoSDKServerContentKinds calls the tools whose results carry an image,
// audio, an embedded resource, and several kinds at once.
func TestGoSDKServerContentKinds(t *testing.T) {
	checkGoSDKContentKinds(t, gosdk.use(t).c)
}

// checkGoSDKContentKinds calls the go-sdk server's tools that answer an
// image, audio, an embedded resource, and several kinds at once.
func checkGoSDKContentKinds(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	img := callOK(t, c, "test_image_content", nil)
	if len(img.Content) != 1 || img.Content[0].Type != messages.ContentTypeImage || img.Content[0].MimeType != "image/png" {
		t.Fatalf("test_image_content = %+v", img.Content)
	}
	if data, err := img.Content[0].Bytes(); err != nil || !bytes.HasPrefix(data, []byte(pngSignature)) {
		t.Errorf("image bytes % x (%v), want PNG", data, err)
	}

	audio := callOK(t, c, "test_audio_content", nil)
	if len(audio.Content) != 1 || audio.Content[0].Type != messages.ContentTypeAudio || audio.Content[0].MimeType != "audio/wav" {
		t.Fatalf("test_audio_content = %+v", audio.Content)
	}
	if data, err := audio.Content[0].Bytes(); err != nil || !bytes.HasPrefix(data, []byte("RIFF")) {
		t.Errorf("audio bytes % x (%v), want RIFF/WAVE", data, err)
	}

	emb := callOK(t, c, "test_embedded_resource", nil)
	if len(emb.Content) != 1 || emb.Content[0].Resource == nil ||
		emb.Content[0].Resource.URI != "test://embedded-resource" ||
		emb.Content[0].Resource.Text != "This is an embedded resource" {
		t.Errorf("test_embedded_resource = %+v", emb.Content)
	}

	multi := callOK(t, c, "test_multiple_content_types", nil)
	var kinds []string
	for _, b := range multi.Content {
		kinds = append(kinds, b.Type)
	}
	if !slices.Equal(kinds, []string{messages.ContentTypeText, messages.ContentTypeImage, messages.ContentTypeResource}) {
		t.Errorf("test_multiple_content_types kinds = %v", kinds)
	}
}

// TestGoSDKServerToolError gets a tool's failure as an isError result.
func TestGoSDKServerToolError(t *testing.T) {
	checkGoSDKToolError(t, gosdk.use(t).c)
}

// checkGoSDKToolError calls test_error_handling: an isError result.
func checkGoSDKToolError(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	res, err := c.CallTool(waitCtx(t), "test_error_handling", nil)
	if err != nil {
		t.Fatalf("err = %v, want an isError result", err)
	}
	if !res.IsError || !strings.Contains(resultText(res), "intentionally returns an error") {
		t.Errorf("test_error_handling = %+v", res)
	}
}

// TestGoSDKServerCapabilitiesDeclared has the server confirm the client
// capabilities our handlers declare.
func TestGoSDKServerCapabilitiesDeclared(t *testing.T) {
	checkGoSDKCapabilitiesDeclared(t, gosdk.use(t).c)
}

// checkGoSDKCapabilitiesDeclared has the go-sdk server confirm the
// sampling capability gosdkRecorder's handlers declare.
func checkGoSDKCapabilitiesDeclared(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	res := callOK(t, c, "test_missing_capability", nil)
	if got := resultText(res); !strings.Contains(got, "Client declared the sampling capability") {
		t.Errorf("test_missing_capability = %q", got)
	}
}

// TestGoSDKServerProgress receives the progress of a call: 0, 50 and 100 of
// 100, with the token the server was given
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress).
func TestGoSDKServerProgress(t *testing.T) {
	checkGoSDKProgress(t, gosdk.use(t).c)
}

// checkGoSDKProgress calls test_tool_with_progress and checks its
// progress: 0, 50 and 100 of 100, with their messages, under the token the
// server saw.
func checkGoSDKProgress(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	res, p, err := callWithProgress(waitCtx(t), c, "test_tool_with_progress", nil)
	if err != nil {
		t.Fatalf("CallToolWith: %v", err)
	}
	checkGoSDKProgressOf(t, "", p, resultText(res))
}

// checkGoSDKProgressOf checks what p recorded of one call to
// test_tool_with_progress, whose result (the token the server saw) was
// result; call names the call in failures.
func checkGoSDKProgressOf(t *testing.T, call string, p *progressRecorder, result string) {
	t.Helper()
	p.check(t, []float64{0, 50, 100}, 100)
	for i, pp := range p.got {
		if want := fmt.Sprintf("Completed step %.0f of 100", pp.Progress); pp.Message != want {
			t.Errorf("%sprogress %d message = %q, want %q", call, i, pp.Message, want)
		}
	}
	if len(p.got) > 0 {
		if tok := fmt.Sprint(p.got[0].ProgressToken); result != tok {
			t.Errorf("%sthe server saw token %q, progress carried %q", call, result, tok)
		}
	}
}

// TestGoSDKServerProgressOfConcurrentCalls makes three calls with progress at
// once: each gets its own token and only its own progress.
func TestGoSDKServerProgressOfConcurrentCalls(t *testing.T) {
	checkGoSDKProgressOfConcurrentCalls(t, gosdk.use(t).c)
}

// checkGoSDKProgressOfConcurrentCalls makes three calls to
// test_tool_with_progress at once and checks that each got its own
// progress under a token of its own.
func checkGoSDKProgressOfConcurrentCalls(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	recs := make([]*progressRecorder, 3)
	results := make([]string, len(recs))
	var wg sync.WaitGroup
	for i := range recs {
		wg.Go(func() {
			res, p, err := callWithProgress(ctx, c, "test_tool_with_progress", nil)
			recs[i] = p
			if err != nil {
				t.Errorf("call %d: %v", i, err)
				return
			}
			results[i] = resultText(res)
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, p := range recs {
		checkGoSDKProgressOf(t, fmt.Sprintf("call %d: ", i), p, results[i])
		if len(p.got) == 0 {
			continue
		}
		tok := fmt.Sprint(p.got[0].ProgressToken)
		if seen[tok] {
			t.Errorf("token %s used by two calls", tok)
		}
		seen[tok] = true
	}
}

// TestGoSDKServerSampling answers the server's sampling request
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling).
func TestGoSDKServerSampling(t *testing.T) {
	f := gosdk.use(t)
	checkGoSDKSampling(t, f.c, f.rec)
}

// checkGoSDKSampling has the go-sdk server ask for a sampling, which rec's
// handler answers.
func checkGoSDKSampling(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	res := callOK(t, c, "test_sampling", map[string]any{"prompt": "Name a prime."})
	p := rec.lastSampling()
	if p == nil {
		t.Fatal("the Sampling handler was not called")
	}
	if len(p.Messages) != 1 || p.Messages[0].Role != messages.RoleUser || p.Messages[0].Content.Text != "Name a prime." || p.MaxTokens != 100 {
		t.Errorf("sampling params = %+v", p)
	}
	if got, want := resultText(res), "LLM response: canned reply to: Name a prime."; got != want {
		t.Errorf("test_sampling = %q, want %q", got, want)
	}
}

// TestGoSDKServerElicitation answers a form elicitation
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation).
func TestGoSDKServerElicitation(t *testing.T) {
	f := gosdk.use(t)
	checkGoSDKElicitation(t, f.c, f.rec)
}

// checkGoSDKElicitation has the go-sdk server ask for a form, which rec's
// handler answers.
func checkGoSDKElicitation(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	res := callOK(t, c, "test_elicitation", map[string]any{"message": "Who are you?"})
	p := rec.lastElicit()
	if p == nil || p.Message != "Who are you?" {
		t.Fatalf("Elicitation handler got %+v", p)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(p.RequestedSchema, &schema); err != nil || schema.Properties["username"] == nil || !slices.Equal(schema.Required, []string{"username"}) {
		t.Errorf("requestedSchema %s (%v), want a required username", p.RequestedSchema, err)
	}
	if got, want := resultText(res), "Elicitation result: action=accept, content=map[username:ada]"; got != want {
		t.Errorf("test_elicitation = %q, want %q", got, want)
	}
}

// TestGoSDKServerElicitationDefaults answers part of a form: the runtime
// fills in the schema's defaults for the rest.
func TestGoSDKServerElicitationDefaults(t *testing.T) {
	checkGoSDKElicitationDefaults(t, gosdk.use(t).c)
}

// checkGoSDKElicitationDefaults has the go-sdk server ask for a form that
// gosdkRecorder answers in part.
func checkGoSDKElicitationDefaults(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	res := callOK(t, c, "test_elicitation_sep1034_defaults", nil)
	// We answered only the name; the schema's defaults fill the rest.
	want := "Elicitation result: action=accept, content=map[age:30 name:Grace Hopper score:95.5 status:active verified:true]"
	if got := resultText(res); got != want {
		t.Errorf("test_elicitation_sep1034_defaults = %q, want %q", got, want)
	}
}

// TestGoSDKServerLogging sets the log level and receives a tool's log
// messages in order
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging).
// It has a server of its own: the level is the session's state.
func TestGoSDKServerLogging(t *testing.T) {
	t.Parallel()
	f := ownPeer(t, gosdkSpec(t))
	checkGoSDKLogging(t, f.c, f.rec, messages.LevelInfo)
}

// checkGoSDKLogging sets the log level and receives the three info
// messages of test_tool_with_logging in rec, in order. It changes the
// client's or the session's state.
func checkGoSDKLogging(t *testing.T, c *mcpactor.Client, rec *peerRecorder, level messages.LoggingLevel) {
	t.Helper()
	if err := c.SetLoggingLevel(waitCtx(t), level); err != nil {
		t.Fatalf("SetLoggingLevel: %v", err)
	}
	mark := rec.notes.mark()
	if got := resultText(callOK(t, c, "test_tool_with_logging", nil)); got != "Tool with logging executed successfully" {
		t.Errorf("test_tool_with_logging = %q", got)
	}
	notes := rec.notes.collectAfter(t, mark, 3, "3 log messages", isMethod(messages.NotificationMessage))
	var data []string
	for _, n := range notes {
		var p messages.LoggingMessageParams
		if err := json.Unmarshal(n.Params, &p); err != nil {
			t.Fatalf("params %s: %v", n.Params, err)
		}
		if p.Level != messages.LevelInfo {
			t.Errorf("level = %q, want info", p.Level)
		}
		var s string
		_ = json.Unmarshal(p.Data, &s)
		data = append(data, s)
	}
	if want := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}; !slices.Equal(data, want) {
		t.Errorf("log data = %q, want %q in order", data, want)
	}
}

// TestGoSDKServerResources lists resources and templates and reads a text, a
// blob and a templated resource
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources).
func TestGoSDKServerResources(t *testing.T) {
	checkGoSDKResources(t, gosdk.use(t).c)
}

// checkGoSDKResources lists the go-sdk server's resources and templates
// and reads a text, a blob and a templated resource.
func checkGoSDKResources(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	resources, err := c.ListResources(ctx)
	uris := listedNames(t, "ListResources", resources, err, resourceURI)
	checkListed(t, "resources/list", uris, []string{"test://static-text", "test://static-binary", "test://watched-resource"})
	templates, err := c.ListResourceTemplates(ctx)
	if err != nil {
		t.Fatalf("ListResourceTemplates: %v", err)
	}
	if len(templates) != 1 || templates[0].URITemplate != "test://template/{id}/data" {
		t.Errorf("templates = %+v", templates)
	}

	rr, err := c.ReadResource(ctx, "test://static-text")
	if err != nil {
		t.Fatalf("read static-text: %v", err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].IsBlob() || rr.Contents[0].Text != "This is the content of the static text resource." {
		t.Errorf("static-text = %+v", rr.Contents)
	}
	rr, err = c.ReadResource(ctx, "test://static-binary")
	if err != nil {
		t.Fatalf("read static-binary: %v", err)
	}
	if len(rr.Contents) != 1 || !rr.Contents[0].IsBlob() || rr.Contents[0].MimeType != "image/png" {
		t.Fatalf("static-binary = %+v", rr.Contents)
	}
	if data, err := rr.Contents[0].Bytes(); err != nil || !bytes.HasPrefix(data, []byte(pngSignature)) {
		t.Errorf("static-binary bytes % x (%v), want PNG", data, err)
	}
	rr, err = c.ReadResource(ctx, "test://template/42/data")
	if err != nil {
		t.Fatalf("read template: %v", err)
	}
	var doc struct {
		ID           string `json:"id"`
		TemplateTest bool   `json:"templateTest"`
	}
	if len(rr.Contents) != 1 || json.Unmarshal([]byte(rr.Contents[0].Text), &doc) != nil || doc.ID != "42" || !doc.TemplateTest {
		t.Errorf("template resource = %+v", rr.Contents)
	}
}

// TestGoSDKServerSubscribe subscribes to the resource the server updates
// every 3 s. It has a server of its own: subscriptions are the session's
// state.
func TestGoSDKServerSubscribe(t *testing.T) {
	t.Parallel()
	f := ownPeer(t, gosdkSpec(t))
	checkGoSDKSubscribe(t, f.c, f.rec)
}

// checkGoSDKSubscribe subscribes to the resource the go-sdk server updates
// every 3 s, receives an update in rec, and unsubscribes. It changes the
// session's state.
func checkGoSDKSubscribe(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	ctx := waitCtx(t)
	const uri = "test://watched-resource"
	mark := rec.notes.mark()
	if err := c.Subscribe(ctx, uri); err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	// The server updates the resource every 3 s.
	n := rec.notes.waitAfter(t, mark, messages.NotificationResourcesUpdated, isMethod(messages.NotificationResourcesUpdated))
	var p messages.ResourceUpdatedParams
	if err := json.Unmarshal(n.Params, &p); err != nil || p.URI != uri {
		t.Errorf("resources/updated params %s (%v)", n.Params, err)
	}
	if err := c.Unsubscribe(ctx, uri); err != nil {
		t.Errorf("Unsubscribe: %v", err)
	}
}

// TestGoSDKServerPrompts lists the prompts and gets each kind, and an
// unknown one (an RPCError)
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts).
func TestGoSDKServerPrompts(t *testing.T) {
	checkGoSDKPrompts(t, gosdk.use(t).c)
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
	var rpcErr *messages.RPCError
	if !errors.As(err, &rpcErr) {
		t.Errorf("unknown prompt: err = %v, want an RPCError", err)
	}
}

// TestGoSDKServerCompletion asks for completions, which this server
// acknowledges with none
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion).
func TestGoSDKServerCompletion(t *testing.T) {
	checkGoSDKCompletion(t, gosdk.use(t).c)
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

// TestGoSDKServerPing pings the server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping).
func TestGoSDKServerPing(t *testing.T) {
	c := gosdk.use(t).c
	if err := c.Ping(waitCtx(t)); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

// TestGoSDKServerClose closes a client: the server is reaped, Done is
// closed, calls fail with ErrTransportClosed, and a second Close is fine.
// It has a server of its own.
func TestGoSDKServerClose(t *testing.T) {
	t.Parallel()
	ownPeer(t, gosdkSpec(t)).closeClient(t)
}
