package mcpactor_test

// server-everything's tools
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools):
// listing, the content kinds of their results, and tool errors.

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// TestServerEverythingListTools lists every tool, with the capability tools
// our handlers unlock, through ListTools and the Tools iterator.
func TestServerEverythingListTools(t *testing.T) {
	checkEverythingListTools(t, everything.use(t).c)
}

// checkEverythingListTools lists server-everything's tools for a client
// with everythingRecorder's handlers: the base tools and the capability
// tools, their schemas and annotations, and the same through the Tools
// iterator.
func checkEverythingListTools(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	tools, err := c.ListTools(ctx)
	names := listedNames(t, "ListTools", tools, err, toolName)
	checkListed(t, "tools/list", names, append(slices.Clone(everythingBaseTools), everythingCapabilityTools...))
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
	checkIterator(t, "Tools", c.Tools(ctx), toolName, names)
	// Stopping the iteration early is allowed.
	for range c.Tools(ctx) {
		break
	}
}

// TestServerEverythingToolsListChanged receives the list_changed
// notifications the server sends as it registers the capability tools after
// initialize.
func TestServerEverythingToolsListChanged(t *testing.T) {
	rec := everything.use(t).rec
	// The capability tools are registered after initialize, and the
	// server announces each registration.
	rec.notes.waitAfter(t, 0, messages.NotificationToolsListChanged, isMethod(messages.NotificationToolsListChanged))
}

// TestServerEverythingToolResults calls the tools whose results carry each
// kind of content: text, structured content, images, annotations, resource
// links and embedded resources.
func TestServerEverythingToolResults(t *testing.T) {
	checkEverythingToolResults(t, everything.use(t).c)
}

// checkEverythingToolResults calls each of server-everything's tools that
// give a kind of content, as a subtest of t.
func checkEverythingToolResults(t *testing.T, c *mcpactor.Client) {
	t.Helper()
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
			if !bytes.HasPrefix(data, []byte(pngSignature)) {
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
}

// TestServerEverythingEnv checks that ServerConfig.Env reaches the server on
// top of the parent's environment.
func TestServerEverythingEnv(t *testing.T) {
	c := everything.use(t).c
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
}

// TestServerEverythingConcurrentCalls makes many calls at once on one
// connection: each caller gets the answer to its own request.
func TestServerEverythingConcurrentCalls(t *testing.T) {
	checkEverythingConcurrentCalls(t, everything.use(t).c, 40)
}

// checkEverythingConcurrentCalls makes n echo calls at once and checks
// that each gets the answer to its own request.
func checkEverythingConcurrentCalls(t *testing.T, c *mcpactor.Client, n int) {
	t.Helper()
	ctx := waitCtx(t)
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
}

// TestServerEverythingToolErrors checks that an unknown tool and invalid
// arguments are isError results, not errors.
func TestServerEverythingToolErrors(t *testing.T) {
	checkEverythingToolErrors(t, everything.use(t).c)
}

// checkEverythingToolErrors calls an unknown tool and a tool with invalid
// arguments: isError results, not errors.
func checkEverythingToolErrors(t *testing.T, c *mcpactor.Client) {
	t.Helper()
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
}
