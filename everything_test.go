package mcpactor_test

// Tests against @modelcontextprotocol/server-everything (the reference
// server, pinned to 2026.8.31 in testdata/npm) over stdio. One server is
// shared by the subtests of a test function: its cold start is the slow
// part.
//
// What the installed version really offers (dist/tools, dist/prompts,
// dist/resources):
//   - tools always: echo, get-annotated-message, get-env,
//     get-resource-links, get-resource-reference, get-structured-content,
//     get-sum, get-tiny-image, gzip-file-as-resource,
//     toggle-simulated-logging, toggle-subscriber-updates,
//     trigger-long-running-operation, and the task tool
//     simulate-research-query (taskSupport "required");
//   - tools registered after initialize, only for the declared
//     capabilities: get-roots-list (roots), trigger-sampling-request
//     (sampling), trigger-elicitation-request (elicitation),
//     trigger-url-elicitation (elicitation.url); the *-async variants need
//     the tasks capability, which we do not declare;
//   - prompts: simple-prompt, args-prompt, completable-prompt,
//     resource-prompt;
//   - resources: the files of dist/docs as
//     demo://resource/static/document/<file>, in one page (this version
//     does not paginate), templates demo://resource/dynamic/{text,blob}/{resourceId},
//     and session resources made by gzip-file-as-resource.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/messages"
)

const everythingServer = "everything"

// The tools server-everything 2026.8.31 registers for every client.
var everythingBaseTools = []string{
	"echo", "get-annotated-message", "get-env", "get-resource-links",
	"get-resource-reference", "get-structured-content", "get-sum",
	"get-tiny-image", "gzip-file-as-resource", "toggle-simulated-logging",
	"toggle-subscriber-updates", "trigger-long-running-operation",
	"simulate-research-query",
}

// The tools it registers only for a client that declared roots, sampling
// and elicitation (form and URL).
var everythingCapabilityTools = []string{
	"get-roots-list", "trigger-sampling-request",
	"trigger-elicitation-request", "trigger-url-elicitation",
}

// The files of dist/docs, served as static resources.
var everythingDocs = []string{
	"architecture.md", "extension.md", "features.md", "how-it-works.md",
	"instructions.md", "startup.md", "structure.md",
}

const (
	everythingEnvKey   = "MCPACTOR_PEER_MARK"
	everythingEnvValue = "everything-env-7f3a"
	cannedSample       = "The answer is 4 (canned by mcpactor)."
	cannedModel        = "mcpactor-canned-model"
)

func everythingConfig(t *testing.T) (mcpactor.ServerConfig, string) {
	node, script := peers.ServerEverything(t)
	return mcpactor.ServerConfig{
		Command: node,
		Args:    []string{script, "stdio"},
		Env:     map[string]string{everythingEnvKey: everythingEnvValue},
	}, script
}

// everythingRecorder answers sampling with a canned message, form
// elicitation by accepting part of the form, and URL elicitation by
// accepting.
func everythingRecorder() *peerRecorder {
	rec := newPeerRecorder(everythingServer)
	rec.setRoots(
		messages.Root{URI: "file:///tmp/mcpactor/project-a", Name: "project-a"},
		messages.Root{URI: "file:///tmp/mcpactor/project-b", Name: "project-b"},
	)
	rec.sample = func(*messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
		return &messages.CreateMessageResult{
			Role:       messages.RoleAssistant,
			Content:    messages.TextContent(cannedSample),
			Model:      cannedModel,
			StopReason: messages.StopReasonEndTurn,
		}, nil
	}
	rec.elicit = func(p *messages.ElicitParams) (*messages.ElicitResult, error) {
		if p.Mode == messages.ElicitModeURL {
			return &messages.ElicitResult{Action: messages.ElicitActionAccept}, nil
		}
		// Part of the form only: the runtime fills in the schema's
		// defaults for the rest; "integer" has a default (42) that our
		// explicit 7 must win over.
		return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{
			"name":    "Ada Lovelace",
			"check":   true,
			"email":   "ada@example.com",
			"integer": 7,
		}}, nil
	}
	return rec
}

func TestServerEverything(t *testing.T) {
	cfg, script := everythingConfig(t)
	rec := everythingRecorder()
	defer rec.check(t)
	rt := startRuntime(t, rec.options())

	c, err := rt.Connect(waitCtx(t), everythingServer, cfg)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	pids := childPIDs(t, script)
	if len(pids) != 1 {
		t.Fatalf("want one server-everything child process, found %v", pids)
	}

	t.Run("handshake", func(t *testing.T) {
		if v := c.ProtocolVersion(); !slices.Contains(messages.SessionEraVersions, v) {
			t.Errorf("ProtocolVersion = %q, want one of %v", v, messages.SessionEraVersions)
		} else {
			t.Logf("negotiated %s", v)
		}
		info := c.ServerInfo()
		if info.Name != "mcp-servers/everything" {
			t.Errorf("ServerInfo().Name = %q, want mcp-servers/everything", info.Name)
		}
		if info.Version == "" {
			t.Errorf("ServerInfo().Version is empty")
		}
		caps := c.Capabilities()
		if caps.Tools == nil || caps.Prompts == nil || caps.Resources == nil || caps.Logging == nil {
			t.Errorf("Capabilities() = %+v, want tools, prompts, resources and logging", caps)
		}
		if caps.Resources != nil && !caps.Resources.Subscribe {
			t.Errorf("resources.subscribe = false, want true")
		}
		t.Logf("instructions: %d bytes", len(c.Instructions()))
		if c.Name() != everythingServer {
			t.Errorf("Name() = %q", c.Name())
		}
	})

	t.Run("list tools", func(t *testing.T) {
		ctx := waitCtx(t)
		tools, err := c.ListTools(ctx)
		if err != nil {
			t.Fatalf("ListTools: %v", err)
		}
		names := toolNames(tools)
		t.Logf("tools: %v", names)
		want := append(slices.Clone(everythingBaseTools), everythingCapabilityTools...)
		for _, name := range want {
			if !slices.Contains(names, name) {
				t.Errorf("tools/list lacks %q: %v", name, names)
			}
		}
		for _, tl := range tools {
			if len(tl.InputSchema) == 0 {
				t.Errorf("tool %s has no input schema", tl.Name)
			}
			switch tl.Name {
			case "get-structured-content":
				if len(tl.OutputSchema) == 0 {
					t.Errorf("get-structured-content has no output schema")
				}
			case "simulate-research-query":
				if tl.Execution == nil || tl.Execution.TaskSupport != "required" {
					t.Errorf("simulate-research-query execution = %+v, want taskSupport required", tl.Execution)
				}
			case "echo":
				if tl.Annotations == nil || tl.Annotations.ReadOnlyHint == nil || !*tl.Annotations.ReadOnlyHint {
					t.Errorf("echo annotations = %+v, want readOnlyHint true", tl.Annotations)
				}
			}
		}

		// The iterator yields the same tools.
		var iterated []string
		for tl, err := range c.Tools(ctx) {
			if err != nil {
				t.Fatalf("Tools iterator: %v", err)
			}
			iterated = append(iterated, tl.Name)
		}
		if !slices.Equal(iterated, names) {
			t.Errorf("Tools iterator = %v, ListTools = %v", iterated, names)
		}
		// Stopping the iteration early is allowed.
		for range c.Tools(ctx) {
			break
		}
	})

	t.Run("tools list_changed", func(t *testing.T) {
		// The capability tools are registered after initialize, and the
		// server announces each registration.
		rec.notes.waitAfter(t, 0, messages.NotificationToolsListChanged, isMethod(messages.NotificationToolsListChanged))
	})

	t.Run("echo", func(t *testing.T) {
		res := callOK(t, c, "echo", map[string]any{"message": "hello from mcpactor"})
		if got := resultText(res); got != "Echo: hello from mcpactor" {
			t.Errorf("echo = %q", got)
		}
	})

	t.Run("get-sum", func(t *testing.T) {
		res := callOK(t, c, "get-sum", map[string]any{"a": 19, "b": 23.5})
		if got, want := resultText(res), "The sum of 19 and 23.5 is 42.5."; got != want {
			t.Errorf("get-sum = %q, want %q", got, want)
		}
	})

	t.Run("env reaches the server", func(t *testing.T) {
		res := callOK(t, c, "get-env", nil)
		var env map[string]string
		if err := json.Unmarshal([]byte(resultText(res)), &env); err != nil {
			t.Fatalf("get-env result is not a JSON object: %v", err)
		}
		if got := env[everythingEnvKey]; got != everythingEnvValue {
			t.Errorf("server's %s = %q, want %q (ServerConfig.Env)", everythingEnvKey, got, everythingEnvValue)
		}
		if env["PATH"] == "" {
			t.Errorf("server's PATH is empty: Env must be set on top of the parent environment")
		}
	})

	t.Run("concurrent calls", func(t *testing.T) {
		ctx := waitCtx(t)
		const n = 40
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				msg := "m" + strings.Repeat("x", i)
				res, err := c.CallTool(ctx, "echo", map[string]any{"message": msg})
				if err != nil {
					t.Errorf("call %d: %v", i, err)
					return
				}
				if got := resultText(res); got != "Echo: "+msg {
					t.Errorf("call %d got %q, want the answer to its own request", i, got)
				}
			})
		}
		wg.Wait()
	})

	t.Run("get-structured-content", func(t *testing.T) {
		res := callOK(t, c, "get-structured-content", map[string]any{"location": "Chicago"})
		if len(res.StructuredContent) == 0 {
			t.Fatalf("no structuredContent: %+v", res)
		}
		var weather struct {
			Temperature float64 `json:"temperature"`
			Conditions  string  `json:"conditions"`
			Humidity    float64 `json:"humidity"`
		}
		if err := json.Unmarshal(res.StructuredContent, &weather); err != nil {
			t.Fatalf("structuredContent %s: %v", res.StructuredContent, err)
		}
		if weather.Temperature != 36 || weather.Conditions != "Light rain / drizzle" || weather.Humidity != 82 {
			t.Errorf("structuredContent = %+v", weather)
		}
		// The text block carries the same object for older clients.
		var fromText map[string]any
		if err := json.Unmarshal([]byte(resultText(res)), &fromText); err != nil || fromText["conditions"] != weather.Conditions {
			t.Errorf("text block %q does not mirror structuredContent (%v)", resultText(res), err)
		}
	})

	t.Run("get-tiny-image", func(t *testing.T) {
		res := callOK(t, c, "get-tiny-image", nil)
		var images int
		for _, b := range res.Content {
			if b.Type != messages.ContentTypeImage {
				continue
			}
			images++
			if b.MimeType != "image/png" {
				t.Errorf("image mimeType = %q", b.MimeType)
			}
			data, err := b.Bytes()
			if err != nil {
				t.Fatalf("image Bytes: %v", err)
			}
			if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
				t.Errorf("image does not start with the PNG signature: % x", data[:min(8, len(data))])
			}
		}
		if images != 1 {
			t.Errorf("got %d image blocks, want 1: %+v", images, res.Content)
		}
	})

	t.Run("get-annotated-message", func(t *testing.T) {
		res := callOK(t, c, "get-annotated-message", map[string]any{"messageType": "error", "includeImage": true})
		if len(res.Content) != 2 {
			t.Fatalf("content = %+v, want a text and an image", res.Content)
		}
		a := res.Content[0].Annotations
		if a == nil || a.Priority == nil || *a.Priority != 1 || !slices.Equal(a.Audience, []messages.Role{messages.RoleUser, messages.RoleAssistant}) {
			t.Errorf("text annotations = %+v, want priority 1 for user and assistant", a)
		}
		if img := res.Content[1]; img.Type != messages.ContentTypeImage || img.Annotations == nil || img.Annotations.Priority == nil || *img.Annotations.Priority != 0.5 {
			t.Errorf("image block = %+v, want an image with priority 0.5", img)
		}
	})

	t.Run("get-resource-links", func(t *testing.T) {
		res := callOK(t, c, "get-resource-links", map[string]any{"count": 4})
		var links []messages.Resource
		for _, b := range res.Content {
			if b.Type == messages.ContentTypeResourceLink {
				links = append(links, b.ResourceLink())
			}
		}
		want := []string{
			"demo://resource/dynamic/blob/1", "demo://resource/dynamic/text/2",
			"demo://resource/dynamic/blob/3", "demo://resource/dynamic/text/4",
		}
		var uris []string
		for _, l := range links {
			uris = append(uris, l.URI)
			if l.Name == "" || l.MimeType != "text/plain" {
				t.Errorf("link %+v: want a name and mimeType text/plain", l)
			}
		}
		if !slices.Equal(uris, want) {
			t.Fatalf("resource_link URIs = %v, want %v", uris, want)
		}
		// A link is something the client can read.
		rr, err := c.ReadResource(waitCtx(t), links[1].URI)
		if err != nil {
			t.Fatalf("ReadResource(%s): %v", links[1].URI, err)
		}
		if len(rr.Contents) != 1 || !strings.HasPrefix(rr.Contents[0].Text, "Resource 2: This is a plaintext resource") {
			t.Errorf("read %s = %+v", links[1].URI, rr.Contents)
		}
	})

	t.Run("get-resource-reference", func(t *testing.T) {
		res := callOK(t, c, "get-resource-reference", map[string]any{"resourceType": "Blob", "resourceId": 5})
		var embedded *messages.ResourceContents
		for _, b := range res.Content {
			if b.Type == messages.ContentTypeResource {
				embedded = b.Resource
			}
		}
		if embedded == nil {
			t.Fatalf("no embedded resource in %+v", res.Content)
		}
		if embedded.URI != "demo://resource/dynamic/blob/5" || !embedded.IsBlob() {
			t.Errorf("embedded resource = %+v, want blob 5", embedded)
		}
		data, err := embedded.Bytes()
		if err != nil || !strings.HasPrefix(string(data), "Resource 5: This is a base64 blob") {
			t.Errorf("embedded blob decodes to %q (%v)", data, err)
		}
	})

	t.Run("tool errors are results", func(t *testing.T) {
		ctx := waitCtx(t)
		res, err := c.CallTool(ctx, "no-such-tool", nil)
		if err != nil {
			t.Fatalf("unknown tool: error %v, want an isError result", err)
		}
		if !res.IsError || !strings.Contains(resultText(res), "not found") {
			t.Errorf("unknown tool: %+v, want isError with \"not found\"", res)
		}
		res, err = c.CallTool(ctx, "get-sum", map[string]any{"a": "one", "b": 2})
		if err != nil {
			t.Fatalf("invalid arguments: error %v, want an isError result", err)
		}
		if !res.IsError {
			t.Errorf("invalid arguments: %+v, want isError", res)
		}
	})

	t.Run("progress", func(t *testing.T) {
		var p progressRecorder
		res, err := c.CallToolWith(waitCtx(t), "trigger-long-running-operation",
			map[string]any{"duration": 2, "steps": 4}, mcpactor.CallOptions{OnProgress: p.onProgress})
		p.returned.Store(true)
		if err != nil {
			t.Fatalf("CallToolWith: %v", err)
		}
		if got := resultText(res); got != "Long running operation completed. Duration: 2 seconds, Steps: 4." {
			t.Errorf("result = %q", got)
		}
		p.check(t, []float64{1, 2, 3, 4}, 4)
	})

	t.Run("progress of concurrent calls", func(t *testing.T) {
		ctx := waitCtx(t)
		type run struct {
			steps int
			p     progressRecorder
		}
		runs := []*run{{steps: 4}, {steps: 3}}
		var wg sync.WaitGroup
		for _, r := range runs {
			wg.Go(func() {
				_, err := c.CallToolWith(ctx, "trigger-long-running-operation",
					map[string]any{"duration": 1.5, "steps": r.steps}, mcpactor.CallOptions{OnProgress: r.p.onProgress})
				r.p.returned.Store(true)
				if err != nil {
					t.Errorf("%d steps: %v", r.steps, err)
				}
			})
		}
		wg.Wait()
		for _, r := range runs {
			var want []float64
			for i := 1; i <= r.steps; i++ {
				want = append(want, float64(i))
			}
			r.p.check(t, want, float64(r.steps))
		}
		a, b := runs[0].p.tokens(), runs[1].p.tokens()
		if len(a) == 1 && len(b) == 1 && a[0] == b[0] {
			t.Errorf("both calls used progress token %s", a[0])
		}
	})

	t.Run("timeout", func(t *testing.T) {
		ctx := waitCtx(t)
		_, err := c.CallToolWith(ctx, "trigger-long-running-operation",
			map[string]any{"duration": 6, "steps": 2}, mcpactor.CallOptions{Timeout: 300 * time.Millisecond})
		var te *messages.TimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("err = %v (%T), want *messages.TimeoutError", err, err)
		}
		if !errors.Is(err, mcpactor.ErrTimeout) || err.Error() != "Request timeout after 300ms" {
			t.Errorf("err = %q, want errors.Is ErrTimeout and \"Request timeout after 300ms\"", err)
		}
		if te.Method != messages.MethodToolsCall || te.Server != everythingServer {
			t.Errorf("TimeoutError = %+v", te)
		}
		// The connection is still good.
		callOK(t, c, "echo", map[string]any{"message": "after timeout"})
	})

	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(waitCtx(t))
		defer cancel()
		_, err := c.CallToolWith(ctx, "trigger-long-running-operation",
			map[string]any{"duration": 4, "steps": 4},
			mcpactor.CallOptions{OnProgress: func(messages.ProgressParams) { cancel() }})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		var ce *messages.CanceledError
		if !errors.As(err, &ce) || ce.Method != messages.MethodToolsCall {
			t.Errorf("err = %#v, want a *messages.CanceledError for tools/call", err)
		}
		callOK(t, c, "echo", map[string]any{"message": "after cancel"})
	})

	t.Run("sampling", func(t *testing.T) {
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
	})

	t.Run("elicitation", func(t *testing.T) {
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
	})

	t.Run("URL elicitation", func(t *testing.T) {
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
	})

	t.Run("roots", func(t *testing.T) {
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
	})

	t.Run("roots list_changed", func(t *testing.T) {
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
	})

	t.Run("resources", func(t *testing.T) {
		ctx := waitCtx(t)
		resources, err := c.ListResources(ctx)
		if err != nil {
			t.Fatalf("ListResources: %v", err)
		}
		var uris []string
		for _, r := range resources {
			uris = append(uris, r.URI)
		}
		t.Logf("resources: %v", uris)
		for _, doc := range everythingDocs {
			uri := "demo://resource/static/document/" + doc
			i := slices.Index(uris, uri)
			if i < 0 {
				t.Errorf("resources/list lacks %s", uri)
				continue
			}
			if r := resources[i]; r.Name != doc || r.MimeType != "text/markdown" {
				t.Errorf("%s: name %q mimeType %q", uri, r.Name, r.MimeType)
			}
		}
		var iterated []string
		for r, err := range c.Resources(ctx) {
			if err != nil {
				t.Fatalf("Resources iterator: %v", err)
			}
			iterated = append(iterated, r.URI)
		}
		if !slices.Equal(iterated, uris) {
			t.Errorf("Resources iterator = %v, ListResources = %v", iterated, uris)
		}

		// The instructions are served as a document too.
		rr, err := c.ReadResource(ctx, "demo://resource/static/document/instructions.md")
		if err != nil {
			t.Fatalf("ReadResource(instructions.md): %v", err)
		}
		if len(rr.Contents) != 1 || rr.Contents[0].IsBlob() || rr.Contents[0].MimeType != "text/markdown" {
			t.Fatalf("instructions.md contents = %+v", rr.Contents)
		}
		if got := rr.Contents[0].Text; got == "" || got != c.Instructions() {
			t.Errorf("instructions.md (%d bytes) differs from Instructions() (%d bytes)", len(got), len(c.Instructions()))
		}
	})

	t.Run("resource templates", func(t *testing.T) {
		templates, err := c.ListResourceTemplates(waitCtx(t))
		if err != nil {
			t.Fatalf("ListResourceTemplates: %v", err)
		}
		var got []string
		for _, tpl := range templates {
			got = append(got, tpl.URITemplate)
		}
		for _, want := range []string{"demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/blob/{resourceId}"} {
			if !slices.Contains(got, want) {
				t.Errorf("templates %v lack %s", got, want)
			}
		}
	})

	t.Run("read text and blob", func(t *testing.T) {
		ctx := waitCtx(t)
		rr, err := c.ReadResource(ctx, "demo://resource/dynamic/text/3")
		if err != nil {
			t.Fatalf("read text: %v", err)
		}
		if len(rr.Contents) != 1 || rr.Contents[0].IsBlob() ||
			rr.Contents[0].URI != "demo://resource/dynamic/text/3" ||
			!strings.HasPrefix(rr.Contents[0].Text, "Resource 3: This is a plaintext resource") {
			t.Errorf("text resource = %+v", rr.Contents)
		}
		rr, err = c.ReadResource(ctx, "demo://resource/dynamic/blob/8")
		if err != nil {
			t.Fatalf("read blob: %v", err)
		}
		if len(rr.Contents) != 1 || !rr.Contents[0].IsBlob() {
			t.Fatalf("blob resource = %+v", rr.Contents)
		}
		data, err := rr.Contents[0].Bytes()
		if err != nil || !strings.HasPrefix(string(data), "Resource 8: This is a base64 blob") {
			t.Errorf("blob decodes to %q (%v)", data, err)
		}
		// A resource that does not exist is a JSON-RPC error.
		_, err = c.ReadResource(ctx, "demo://resource/dynamic/text/0")
		var rpcErr *messages.RPCError
		if !errors.As(err, &rpcErr) {
			t.Errorf("read of a missing resource: err = %v, want an RPCError", err)
		}
	})

	t.Run("subscribe", func(t *testing.T) {
		ctx := waitCtx(t)
		const uri = "demo://resource/dynamic/text/1"
		if err := c.Subscribe(ctx, uri); err != nil {
			t.Fatalf("Subscribe: %v", err)
		}
		mark := rec.notes.mark()
		if text := resultText(callOK(t, c, "toggle-subscriber-updates", nil)); !strings.HasPrefix(text, "Started") {
			t.Fatalf("toggle-subscriber-updates = %q", text)
		}
		n := rec.notes.waitAfter(t, mark, messages.NotificationResourcesUpdated, isMethod(messages.NotificationResourcesUpdated))
		var p messages.ResourceUpdatedParams
		if err := json.Unmarshal(n.Params, &p); err != nil || p.URI != uri {
			t.Errorf("resources/updated params %s (%v), want uri %s", n.Params, err, uri)
		}
		if err := c.Unsubscribe(ctx, uri); err != nil {
			t.Fatalf("Unsubscribe: %v", err)
		}
		if text := resultText(callOK(t, c, "toggle-subscriber-updates", nil)); !strings.HasPrefix(text, "Stopped") {
			t.Errorf("second toggle-subscriber-updates = %q", text)
		}
	})

	t.Run("session resource", func(t *testing.T) {
		ctx := waitCtx(t)
		const original = "mcpactor compresses nothing itself, the server does.\n"
		dataURI := "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte(original))
		mark := rec.notes.mark()
		res := callOK(t, c, "gzip-file-as-resource", map[string]any{"name": "mcpactor.txt.gz", "data": dataURI, "outputType": "resourceLink"})
		if len(res.Content) != 1 || res.Content[0].Type != messages.ContentTypeResourceLink {
			t.Fatalf("content = %+v, want one resource_link", res.Content)
		}
		link := res.Content[0].ResourceLink()
		if link.URI != "demo://resource/session/mcpactor.txt.gz" || link.MimeType != "application/gzip" {
			t.Errorf("link = %+v", link)
		}
		// Registering it changed the resource list.
		rec.notes.waitAfter(t, mark, messages.NotificationResourcesListChanged, isMethod(messages.NotificationResourcesListChanged))
		resources, err := c.ListResources(ctx)
		if err != nil {
			t.Fatalf("ListResources: %v", err)
		}
		if !slices.ContainsFunc(resources, func(r messages.Resource) bool { return r.URI == link.URI }) {
			t.Errorf("resources/list lacks %s", link.URI)
		}
		rr, err := c.ReadResource(ctx, link.URI)
		if err != nil {
			t.Fatalf("ReadResource(%s): %v", link.URI, err)
		}
		if len(rr.Contents) != 1 || !rr.Contents[0].IsBlob() {
			t.Fatalf("contents = %+v, want one blob", rr.Contents)
		}
		gz, err := rr.Contents[0].Bytes()
		if err != nil {
			t.Fatalf("blob: %v", err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatalf("blob is not gzip: %v", err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil || string(plain) != original {
			t.Errorf("gunzipped blob = %q (%v), want %q", plain, err, original)
		}
	})

	t.Run("prompts", func(t *testing.T) {
		ctx := waitCtx(t)
		prompts, err := c.ListPrompts(ctx)
		if err != nil {
			t.Fatalf("ListPrompts: %v", err)
		}
		var names []string
		for _, p := range prompts {
			names = append(names, p.Name)
		}
		t.Logf("prompts: %v", names)
		for _, want := range []string{"simple-prompt", "args-prompt", "completable-prompt", "resource-prompt"} {
			if !slices.Contains(names, want) {
				t.Errorf("prompts/list lacks %q", want)
			}
		}
		if i := slices.Index(names, "args-prompt"); i >= 0 {
			args := prompts[i].Arguments
			if len(args) != 2 || args[0].Name != "city" || !args[0].Required || args[1].Name != "state" || args[1].Required {
				t.Errorf("args-prompt arguments = %+v, want city (required) and state", args)
			}
		}
		var iterated []string
		for p, err := range c.Prompts(ctx) {
			if err != nil {
				t.Fatalf("Prompts iterator: %v", err)
			}
			iterated = append(iterated, p.Name)
		}
		if !slices.Equal(iterated, names) {
			t.Errorf("Prompts iterator = %v, ListPrompts = %v", iterated, names)
		}

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

		_, err = c.GetPrompt(ctx, "no-such-prompt", nil)
		var rpcErr *messages.RPCError
		if !errors.As(err, &rpcErr) || rpcErr.Code != messages.CodeInvalidParams {
			t.Errorf("unknown prompt: err = %v, want an RPCError -32602", err)
		}
	})

	t.Run("complete", func(t *testing.T) {
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
	})

	t.Run("logging", func(t *testing.T) {
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
	})

	t.Run("ping", func(t *testing.T) {
		if err := c.Ping(waitCtx(t)); err != nil {
			t.Fatalf("Ping: %v", err)
		}
	})

	t.Run("close", func(t *testing.T) {
		ctx := waitCtx(t)
		if err := c.Close(ctx); err != nil {
			t.Fatalf("Close: %v", err)
		}
		select {
		case <-c.Done():
		default:
			t.Errorf("Done() not closed after Close returned")
		}
		requireReaped(t, pids)
		_, err := c.CallTool(ctx, "echo", map[string]any{"message": "after close"})
		if err == nil {
			t.Errorf("CallTool after Close succeeded")
		}
		t.Logf("call after close: %v", err)
		t.Logf("notifications: %s", rec.notes.methods())
		if err := c.Close(ctx); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
}

// TestServerEverythingWithoutHandlers checks that a runtime without
// handlers declares no client capabilities: the server then leaves out the
// tools that need them. Runtime.Stop ends the server.
func TestServerEverythingWithoutHandlers(t *testing.T) {
	cfg, script := everythingConfig(t)
	rt, err := mcpactor.Start(context.Background(), mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := waitCtx(t)
	c, err := rt.Connect(ctx, everythingServer, cfg)
	if err != nil {
		rt.Stop(ctx)
		t.Fatalf("Connect: %v", err)
	}
	pids := childPIDs(t, script)

	// The server registers nothing more after initialize for this client,
	// but it does so asynchronously: a ping round trip after the handshake
	// orders tools/list after that registration either way.
	if err := c.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Errorf("ListTools: %v", err)
	}
	names := toolNames(tools)
	for _, name := range everythingBaseTools {
		if !slices.Contains(names, name) {
			t.Errorf("tools/list lacks %q: %v", name, names)
		}
	}
	for _, name := range everythingCapabilityTools {
		if slices.Contains(names, name) {
			t.Errorf("tools/list offers %q to a client without that capability", name)
		}
	}
	if res, err := c.CallTool(ctx, "echo", map[string]any{"message": "plain"}); err != nil || resultText(res) != "Echo: plain" {
		t.Errorf("echo = %+v, %v", res, err)
	}

	if err := rt.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
	select {
	case <-c.Done():
	default:
		t.Errorf("client not done after Runtime.Stop returned")
	}
	requireReaped(t, pids)
	if _, err := rt.Connect(ctx, "again", cfg); !errors.Is(err, mcpactor.ErrStopped) {
		t.Errorf("Connect after Stop: %v, want ErrStopped", err)
	}
}

// TestServerEverythingStopLeavesNothing uses a client after closing it
// (a second Close, calls) and then checks that nothing started for it
// outlives Runtime.Stop: no process and no goroutine.
func TestServerEverythingStopLeavesNothing(t *testing.T) {
	cfg, script := everythingConfig(t)
	ctx := waitCtx(t)
	rt, err := mcpactor.Start(ctx, mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := rt.Connect(ctx, everythingServer, cfg)
	if err != nil {
		rt.Stop(ctx)
		t.Fatalf("Connect: %v", err)
	}
	pids := childPIDs(t, script)
	callOK(t, c, "echo", map[string]any{"message": "once"})

	if err := c.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := c.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
	for range 10 {
		if err := c.Ping(ctx); !errors.Is(err, mcpactor.ErrTransportClosed) {
			t.Errorf("Ping after Close: %v, want ErrTransportClosed", err)
		}
	}
	if err := rt.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
	requireReaped(t, pids)
	goleak.VerifyNone(t)
}
