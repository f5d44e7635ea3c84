package mcpactor_test

// Tools against the independent peers, one row per peer and transport
// (peer_rows_test.go)
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools).

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// TestListTools lists every tool, through ListTools and the Tools
// iterator: server-everything's, the capability tools our handlers unlock
// included, and the go-sdk server's (over HTTP with test_x_mcp_header).
func TestListTools(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		switch {
		case p.peer == everythingServer:
			checkEverythingListTools(t, p.c)
		case p.http == nil:
			checkGoSDKListTools(t, p.c, gosdkTools)
		default:
			checkGoSDKListTools(t, p.c, append(slices.Clone(gosdkTools), "test_x_mcp_header"))
		}
	}, everythingStdio, everythingStreamable, everythingSSE, gosdkStdio, gosdkHTTP)
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

// TestToolResults calls the tools whose results carry each kind of
// content.
func TestToolResults(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		if p.peer == everythingServer {
			checkEverythingToolResults(t, p.c)
			return
		}
		checkGoSDKSimpleText(t, p.c)
		checkGoSDKContentKinds(t, p.c)
	}, everythingStdio, everythingStreamable, everythingSSE, gosdkStdio, gosdkHTTP)
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

// checkGoSDKSimpleText calls test_simple_text.
func checkGoSDKSimpleText(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	if got := resultText(callOK(t, c, "test_simple_text", nil)); got != "This is a simple text response for testing." {
		t.Errorf("test_simple_text = %q", got)
	}
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

// TestToolErrors checks that an unknown tool, invalid arguments and a
// failing tool are isError results, not errors.
func TestToolErrors(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		if p.peer == everythingServer {
			checkEverythingToolErrors(t, p.c)
			return
		}
		checkGoSDKToolError(t, p.c)
	}, everythingStdio, everythingStreamable, everythingSSE, gosdkStdio, gosdkHTTP)
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

// TestToolCapabilitiesDeclared calls the go-sdk tool that checks the
// client capabilities our handlers declare.
func TestToolCapabilitiesDeclared(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) { checkGoSDKCapabilitiesDeclared(t, p.c) }, gosdkStdio, gosdkHTTP)
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

// TestToolParamHeader calls test_x_mcp_header, whose input schema marks
// region with x-mcp-header "Region". In the session era the argument is
// only an argument: no Mcp-Param-* header. In the 2026-07-28 era the
// request carries Mcp-Param-Region: eu-west, which the server checks
// against the body.
func TestToolParamHeader(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		if !p.stateless {
			if got := resultText(callOK(t, p.c, "test_x_mcp_header", map[string]any{"region": "eu-west"})); got != "region=eu-west" {
				t.Errorf("test_x_mcp_header = %q", got)
			}
			return
		}
		mark := h.wireMark()
		res := callOK(t, h.c, "test_x_mcp_header", map[string]any{"region": "eu-west"})
		if got := resultText(res); got != "region=eu-west" {
			t.Errorf("test_x_mcp_header = %q", got)
		}
		var call exchange
		for _, ex := range postsOf(h.wire(), messages.MethodToolsCall) {
			if ex.StartSeq > mark {
				call = ex
			}
		}
		if !call.IsMsg {
			t.Fatalf("no tools/call on the wire:\n%s", dumpExchanges(h.wire()))
		}
		checkModernHeaders(t, call)
		if got := call.Header.Get("Mcp-Param-Region"); got != "eu-west" {
			t.Errorf("Mcp-Param-Region = %q, want eu-west; headers %v", got, call.Header)
		}
		if call.Header.Get("Mcp-Name") != "test_x_mcp_header" {
			t.Errorf("Mcp-Name = %q", call.Header.Get("Mcp-Name"))
		}

	}, gosdkHTTP, gosdkHTTPStateless)
}

// TestToolsListChanged receives notifications/tools/list_changed.
//
// server-everything sends it as it registers the capability tools after
// initialize. Over stdio and legacy HTTP+SSE only: over Streamable HTTP the
// server sends it on the GET stream while it handles
// notifications/initialized, and the TypeScript SDK drops a message for the
// GET stream when none is open (the spec lets it: the server MAY send
// there); the runtime opens its listener concurrently with the POST of
// notifications/initialized, so whether the notification arrives depends on
// which reaches the server first.
//
// The go-sdk server in the stateless era changes its tool list when a tool
// asks; listen brings the notification: over stdio subscriptions/listen
// was sent, over HTTP the notification came on a subscriptions/listen
// stream (a connection of its own).
func TestToolsListChanged(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		switch {
		case p.peer == everythingServer:
			// The capability tools are registered after initialize, and the
			// server announces each registration.
			p.rec.notes.waitAfter(t, 0, messages.NotificationToolsListChanged, isMethod(messages.NotificationToolsListChanged))
		case p.sent != nil:
			checkGoSDKToolListChanged(t, p.c, p.rec)
			var listen bool
			for _, m := range p.sent.sent(t) {
				listen = listen || m.Method == messages.MethodSubscriptionsListen
			}
			if !listen {
				t.Errorf("subscriptions/listen not sent")
			}
		default:
			h.waitWire(t, "the subscriptions/listen stream", func(ex exchange) bool {
				return ex.isPost(messages.MethodSubscriptionsListen) && ex.Status == http.StatusOK
			})
			checkGoSDKToolListChanged(t, h.c, h.rec)
			var listens []exchange
			for _, ex := range postsOf(h.wire(), messages.MethodSubscriptionsListen) {
				checkModernHeaders(t, ex)
				if _, ok := ex.carries(messages.NotificationToolsListChanged); ok {
					listens = append(listens, ex)
				}
			}
			if len(listens) == 0 {
				t.Errorf("list_changed did not come on a subscriptions/listen stream:\n%s", dumpExchanges(h.wire()))
			}

		}
	}, everythingStdio, everythingSSE, gosdkStdioStateless, gosdkHTTPStateless.own(false))
}

// checkGoSDKToolListChanged has the go-sdk server change its tool list
// (for every session) and receives notifications/tools/list_changed in
// rec.
func checkGoSDKToolListChanged(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	mark := rec.notes.mark()
	callOK(t, c, "test_trigger_tool_change", nil)
	rec.notes.waitAfter(t, mark, messages.NotificationToolsListChanged, isMethod(messages.NotificationToolsListChanged))
}

// TestToolEnv checks that ServerConfig.Env reaches the server on top of
// the parent's environment.
func TestToolEnv(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		c := p.c
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

	}, everythingStdio)
}

// TestConcurrentCalls makes many calls at once on one connection: each
// caller gets the answer to its own request. Over Streamable HTTP each call
// is a POST of its own, answered on its own stream, which the wire shows;
// over legacy HTTP+SSE every answer comes on the one stream and is matched
// by id.
func TestConcurrentCalls(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		if h == nil {
			checkEverythingConcurrentCalls(t, p.c, 40)
			return
		}
		before := len(h.wire())
		const n = 40
		checkEverythingConcurrentCalls(t, h.c, n)
		if h.isLegacy() {
			return
		}
		calls := postsOf(h.wire()[before:], messages.MethodToolsCall)
		if len(calls) != n {
			t.Fatalf("%d tools/call POSTs, want %d", len(calls), n)
		}
		for _, ex := range calls {
			if _, ok := findResponse(ex.streamed(), ex.Msg.ID); !ok {
				t.Errorf("%s: its stream did not carry the answer to id %s", ex, ex.Msg.ID)
			}
		}

	}, everythingStdio, everythingStreamable, everythingSSE)
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
