package mcpactor_test

// Tests against the Go SDK's conformance everything-server (go-sdk v1.8.0)
// over Streamable HTTP, with ServerConfig.ProtocolVersion unset (the
// runtime probes with server/discover first):
//
//   - here, `-http 127.0.0.1:<p> -stateless=false`: sessions, so the probe
//     ends in the session era (2025-11-25);
//   - gosdk_http_stateless_test.go: the server's default over HTTP,
//     stateless, which speaks the 2026-07-28 era.
//
// gosdk_http_faults_test.go has the session era when the connection
// breaks.
//
// Both servers serve every path; one process per mode serves every test,
// behind the recording proxy (http_peer_fixture_test.go). Unlike
// server-everything, all sessions share one mcp.Server: a tool that
// changes the tool list (test_trigger_tool_change) changes it for every
// session, so tests assert that the tools they need are there, never the
// exact list.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/messages"
)

// gosdkHTTPSpec starts the go-sdk server over HTTP, stateless or not; rec
// makes the recorder of each connection.
func gosdkHTTPSpec(stateless bool, rec func(t *testing.T) func() *peerRecorder) func(t *testing.T) httpSpec {
	return func(t *testing.T) httpSpec {
		bin := peers.GoSDKServer(t)
		return httpSpec{
			name: gosdkServer,
			command: func(port int) (string, []string, []string) {
				return bin, []string{"-http", "127.0.0.1:" + strconv.Itoa(port), "-stateless=" + strconv.FormatBool(stateless)}, nil
			},
			path: "/mcp",
			typ:  mcpactorTypeHTTP,
			rec:  rec(t),
		}
	}
}

// gosdkHTTPRecorder answers as gosdkSpec's recorder does (the canned
// handlers of the stdio tests), with a fresh recorder per connection.
func gosdkHTTPRecorder(t *testing.T) func() *peerRecorder {
	base := gosdkSpec(t).rec
	return func() *peerRecorder {
		r := newPeerRecorder(gosdkServer)
		r.sample, r.elicit = base.sample, base.elicit
		r.setRoots(base.roots...)
		return r
	}
}

var (
	gosdkSessionHTTP = &sharedHTTP{spec: gosdkHTTPSpec(false, gosdkHTTPRecorder)}
	gosdkSession     = []httpMode{{"session", gosdkSessionHTTP}}
)

// TestGoSDKHTTPNegotiation checks what the probe found and what was
// negotiated. The runtime sends server/discover (with the 2026-07-28
// _meta, MCP-Protocol-Version 2026-07-28 and Mcp-Method); the stateful
// go-sdk server answers it with a DiscoverResult whose supportedVersions
// are the session era's only (2025-11-25, 2025-06-18, 2025-03-26,
// 2024-11-05: a stateful HTTP server cannot serve 2026-07-28), so the
// runtime speaks the session era: initialize with 2025-11-25, which the
// server accepts, a session id, and the session's headers on every later
// request.
func TestGoSDKHTTPNegotiation(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		c := h.c
		if v := c.ProtocolVersion(); v != messages.Version20251125 {
			t.Errorf("ProtocolVersion = %q, want %s", v, messages.Version20251125)
		}
		if info := c.ServerInfo(); info.Name != "mcp-conformance-test-server" || info.Version != "1.0.0" {
			t.Errorf("ServerInfo = %+v", info)
		}
		caps := c.Capabilities()
		if caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil || caps.Logging == nil {
			t.Errorf("Capabilities() = %+v", caps)
		}
		h.waitWire(t, "notifications/initialized", func(ex exchange) bool {
			return ex.isPost(messages.NotificationInitialized) && ex.Done
		})
		exs := h.wire()
		probe := exs[0]
		checkModernHeaders(t, probe)
		var discovered struct {
			Result messages.DiscoverResult `json:"result"`
		}
		msgs := probe.streamed()
		if len(msgs) != 1 || json.Unmarshal(msgs[0].Result, &discovered.Result) != nil {
			t.Fatalf("the probe's answer %s: %.400s", probe, probe.Resp)
		}
		t.Logf("server/discover answered supportedVersions %v", discovered.Result.SupportedVersions)
		if slices.Contains(discovered.Result.SupportedVersions, messages.Version20260728) {
			t.Errorf("a stateful server offered 2026-07-28: %v", discovered.Result.SupportedVersions)
		}
		checkStreamableHandshake(t, exs, messages.Version20251125)
		if init := postsOf(exs, messages.MethodInitialize); len(init) != 1 || !bytes.Contains(init[0].Body, []byte(`"protocolVersion":"2025-11-25"`)) {
			t.Errorf("initialize: %s", dumpExchanges(init))
		}
	})
}

// checkModernHeaders checks a request of the 2026-07-28 era: the _meta of
// the era in its params, MCP-Protocol-Version equal to the _meta version,
// Mcp-Method equal to the method, and Mcp-Name equal to the tool, prompt
// or resource it names
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-headers).
func checkModernHeaders(t *testing.T, ex exchange) {
	t.Helper()
	if !ex.IsMsg || ex.Msg.Kind() != messages.KindRequest {
		t.Errorf("%s: not a request", ex)
		return
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
		Name string                     `json:"name"`
		URI  string                     `json:"uri"`
	}
	if err := json.Unmarshal(ex.Msg.Params, &p); err != nil {
		t.Errorf("%s: params %s: %v", ex, ex.Msg.Params, err)
		return
	}
	var version string
	_ = json.Unmarshal(p.Meta[messages.MetaKeyProtocolVersion], &version)
	if version == "" || p.Meta[messages.MetaKeyClientCapabilities] == nil || p.Meta[messages.MetaKeyClientInfo] == nil {
		t.Errorf("%s went without the era's _meta: %s", ex, ex.Msg.Params)
	}
	if got := ex.Header.Get("Mcp-Protocol-Version"); got != version {
		t.Errorf("%s: MCP-Protocol-Version header %q, _meta version %q; they must be equal", ex, got, version)
	}
	if got := ex.Header.Get("Mcp-Method"); got != ex.Msg.Method {
		t.Errorf("%s: Mcp-Method header %q", ex, got)
	}
	var name string
	switch ex.Msg.Method {
	case messages.MethodToolsCall, messages.MethodPromptsGet:
		name = p.Name
	case messages.MethodResourcesRead:
		name = p.URI
	}
	if got := ex.Header.Get("Mcp-Name"); got != name {
		t.Errorf("%s: Mcp-Name header %q, want %q", ex, got, name)
	}
	if sid := ex.Header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("%s carries a session id %q in the stateless era", ex, sid)
	}
}

// TestGoSDKHTTPTools lists the tools and calls those whose results carry
// each kind of content, a failing one, and the one that checks the client
// capabilities our handlers declare.
func TestGoSDKHTTPTools(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		c := h.c
		tools, err := c.ListTools(waitCtx(t))
		if err != nil {
			t.Fatalf("ListTools: %v", err)
		}
		names := toolNames(tools)
		for _, want := range append(slices.Clone(gosdkTools), "test_x_mcp_header") {
			if !slices.Contains(names, want) {
				t.Errorf("tools/list lacks %q", want)
			}
		}
		// A JSON Schema 2020-12 input schema reaches the caller verbatim.
		if i := slices.Index(names, "json_schema_2020_12_tool"); i >= 0 {
			for _, key := range []string{`"$schema"`, `"$defs"`, `"allOf"`, `"additionalProperties"`} {
				if !bytes.Contains(tools[i].InputSchema, []byte(key)) {
					t.Errorf("json_schema_2020_12_tool input schema lacks %s: %s", key, tools[i].InputSchema)
				}
			}
		}
		if got := resultText(callOK(t, c, "test_simple_text", nil)); got != "This is a simple text response for testing." {
			t.Errorf("test_simple_text = %q", got)
		}
		img := callOK(t, c, "test_image_content", nil)
		if len(img.Content) != 1 || img.Content[0].Type != messages.ContentTypeImage {
			t.Fatalf("test_image_content = %+v", img.Content)
		}
		if data, err := img.Content[0].Bytes(); err != nil || !bytes.HasPrefix(data, []byte(pngSignature)) {
			t.Errorf("image bytes % x (%v), want PNG", data[:min(8, len(data))], err)
		}
		audio := callOK(t, c, "test_audio_content", nil)
		if len(audio.Content) != 1 || audio.Content[0].Type != messages.ContentTypeAudio || audio.Content[0].MimeType != "audio/wav" {
			t.Errorf("test_audio_content = %+v", audio.Content)
		}
		emb := callOK(t, c, "test_embedded_resource", nil)
		if len(emb.Content) != 1 || emb.Content[0].Resource == nil || emb.Content[0].Resource.Text != "This is an embedded resource" {
			t.Errorf("test_embedded_resource = %+v", emb.Content)
		}
		var kinds []string
		for _, b := range callOK(t, c, "test_multiple_content_types", nil).Content {
			kinds = append(kinds, b.Type)
		}
		if !slices.Equal(kinds, []string{messages.ContentTypeText, messages.ContentTypeImage, messages.ContentTypeResource}) {
			t.Errorf("test_multiple_content_types kinds = %v", kinds)
		}
		res, err := c.CallTool(waitCtx(t), "test_error_handling", nil)
		if err != nil || !res.IsError || !strings.Contains(resultText(res), "intentionally returns an error") {
			t.Errorf("test_error_handling = %+v, %v; want an isError result", res, err)
		}
		if got := resultText(callOK(t, c, "test_missing_capability", nil)); !strings.Contains(got, "Client declared the sampling capability") {
			t.Errorf("test_missing_capability = %q", got)
		}
		// In the session era the x-mcp-header argument is only an
		// argument: no Mcp-Param-* header.
		if got := resultText(callOK(t, c, "test_x_mcp_header", map[string]any{"region": "eu-west"})); got != "region=eu-west" {
			t.Errorf("test_x_mcp_header = %q", got)
		}
	})
}

// TestGoSDKHTTPProgress receives the progress of a call (0, 50 and 100 of
// 100, with the token the server was given), and of three calls at once,
// each its own.
func TestGoSDKHTTPProgress(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		ctx := waitCtx(t)
		recs := make([]progressRecorder, 3)
		results := make([]string, len(recs))
		var wg sync.WaitGroup
		for i := range recs {
			wg.Go(func() {
				res, err := h.c.CallToolWith(ctx, "test_tool_with_progress", nil, mcpactor.CallOptions{OnProgress: recs[i].onProgress})
				recs[i].returned.Store(true)
				if err != nil {
					t.Errorf("call %d: %v", i, err)
					return
				}
				results[i] = resultText(res)
			})
		}
		wg.Wait()
		seen := map[string]bool{}
		for i := range recs {
			recs[i].check(t, []float64{0, 50, 100}, 100)
			if len(recs[i].got) == 0 {
				continue
			}
			for j, pp := range recs[i].got {
				if want := fmt.Sprintf("Completed step %.0f of 100", pp.Progress); pp.Message != want {
					t.Errorf("call %d progress %d message = %q, want %q", i, j, pp.Message, want)
				}
			}
			tok := fmt.Sprint(recs[i].got[0].ProgressToken)
			if results[i] != tok {
				t.Errorf("call %d: the server saw token %q, its progress carried %q", i, results[i], tok)
			}
			if seen[tok] {
				t.Errorf("token %s used by two calls", tok)
			}
			seen[tok] = true
		}
	})
}

// TestGoSDKHTTPSampling answers the server's sampling request, which comes
// on the tools/call POST's stream.
func TestGoSDKHTTPSampling(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		mark := h.wireMark()
		res := callOK(t, h.c, "test_sampling", map[string]any{"prompt": "Name a prime."})
		p := h.rec.lastSampling()
		if p == nil || len(p.Messages) != 1 || p.Messages[0].Content.Text != "Name a prime." || p.MaxTokens != 100 {
			t.Fatalf("sampling params = %+v", p)
		}
		if got, want := resultText(res), "LLM response: canned reply to: Name a prime."; got != want {
			t.Errorf("test_sampling = %q, want %q", got, want)
		}
		serverRequestOn(t, h, mark, messages.MethodSamplingCreateMessage)
	})
}

// TestGoSDKHTTPElicitation answers a form elicitation, and part of a form
// whose defaults the runtime fills in.
func TestGoSDKHTTPElicitation(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		mark := h.wireMark()
		res := callOK(t, h.c, "test_elicitation", map[string]any{"message": "Who are you?"})
		if p := h.rec.lastElicit(); p == nil || p.Message != "Who are you?" {
			t.Fatalf("Elicitation handler got %+v", p)
		}
		if got, want := resultText(res), "Elicitation result: action=accept, content=map[username:ada]"; got != want {
			t.Errorf("test_elicitation = %q, want %q", got, want)
		}
		serverRequestOn(t, h, mark, messages.MethodElicitationCreate)

		want := "Elicitation result: action=accept, content=map[age:30 name:Grace Hopper score:95.5 status:active verified:true]"
		if got := resultText(callOK(t, h.c, "test_elicitation_sep1034_defaults", nil)); got != want {
			t.Errorf("test_elicitation_sep1034_defaults = %q, want %q", got, want)
		}
	})
}

// TestGoSDKHTTPLogging sets the log level and receives a tool's three log
// messages in order. A connection of its own: the level is the session's.
func TestGoSDKHTTPLogging(t *testing.T) {
	onOwn(t, gosdkSession, false, func(t *testing.T, h *httpConn) {
		c, rec := h.c, h.rec
		if err := c.SetLoggingLevel(waitCtx(t), messages.LevelInfo); err != nil {
			t.Fatalf("SetLoggingLevel: %v", err)
		}
		if set := postsOf(h.wire(), messages.MethodLoggingSetLevel); len(set) != 1 || !bytes.Contains(set[0].Body, []byte(`"level":"info"`)) {
			t.Errorf("logging/setLevel on the wire: %s", dumpExchanges(set))
		}
		mark := rec.notes.mark()
		if got := resultText(callOK(t, c, "test_tool_with_logging", nil)); got != "Tool with logging executed successfully" {
			t.Errorf("test_tool_with_logging = %q", got)
		}
		notes := rec.notes.collectAfter(t, mark, 3, "3 log messages", isMethod(messages.NotificationMessage))
		var data []string
		for _, n := range notes {
			var p messages.LoggingMessageParams
			if err := json.Unmarshal(n.Params, &p); err != nil || p.Level != messages.LevelInfo {
				t.Errorf("params %s (%v), want level info", n.Params, err)
			}
			var s string
			_ = json.Unmarshal(p.Data, &s)
			data = append(data, s)
		}
		if want := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}; !slices.Equal(data, want) {
			t.Errorf("log data = %q, want %q in order", data, want)
		}
	})
}

// TestGoSDKHTTPResources lists resources and templates, and reads a text,
// a blob and a templated resource.
func TestGoSDKHTTPResources(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		c := h.c
		ctx := waitCtx(t)
		resources, err := c.ListResources(ctx)
		if err != nil {
			t.Fatalf("ListResources: %v", err)
		}
		var uris []string
		for _, r := range resources {
			uris = append(uris, r.URI)
		}
		for _, want := range []string{"test://static-text", "test://static-binary", "test://watched-resource"} {
			if !slices.Contains(uris, want) {
				t.Errorf("resources/list lacks %s", want)
			}
		}
		templates, err := c.ListResourceTemplates(ctx)
		if err != nil || len(templates) != 1 || templates[0].URITemplate != "test://template/{id}/data" {
			t.Errorf("templates = %+v, %v", templates, err)
		}
		rr, err := c.ReadResource(ctx, "test://static-text")
		if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "This is the content of the static text resource." {
			t.Errorf("static-text = %+v, %v", rr, err)
		}
		rr, err = c.ReadResource(ctx, "test://static-binary")
		if err != nil || len(rr.Contents) != 1 || !rr.Contents[0].IsBlob() {
			t.Fatalf("static-binary = %+v, %v", rr, err)
		}
		if data, err := rr.Contents[0].Bytes(); err != nil || !bytes.HasPrefix(data, []byte(pngSignature)) {
			t.Errorf("static-binary bytes (%v), want PNG", err)
		}
		rr, err = c.ReadResource(ctx, "test://template/42/data")
		var doc struct {
			ID string `json:"id"`
		}
		if err != nil || len(rr.Contents) != 1 || json.Unmarshal([]byte(rr.Contents[0].Text), &doc) != nil || doc.ID != "42" {
			t.Errorf("template resource = %+v, %v", rr, err)
		}
	})
}

// TestGoSDKHTTPSubscribe subscribes to the resource the server updates every
// 3 s; the update comes on the GET listener (it belongs to no request). A
// connection of its own: subscriptions are the session's.
func TestGoSDKHTTPSubscribe(t *testing.T) {
	onOwn(t, gosdkSession, true, func(t *testing.T, h *httpConn) {
		c, rec := h.c, h.rec
		ctx := waitCtx(t)
		const uri = "test://watched-resource"
		mark := rec.notes.mark()
		if err := c.Subscribe(ctx, uri); err != nil {
			t.Fatalf("Subscribe: %v", err)
		}
		n := rec.notes.waitAfter(t, mark, messages.NotificationResourcesUpdated, isMethod(messages.NotificationResourcesUpdated))
		var p messages.ResourceUpdatedParams
		if err := json.Unmarshal(n.Params, &p); err != nil || p.URI != uri {
			t.Errorf("resources/updated params %s (%v)", n.Params, err)
		}
		var onListener bool
		for _, ex := range h.wire() {
			if _, ok := ex.carries(messages.NotificationResourcesUpdated); ok && ex.Method == http.MethodGet {
				onListener = true
			}
		}
		if !onListener {
			t.Errorf("resources/updated did not come on the GET listener:\n%s", dumpExchanges(h.wire()))
		}
		if err := c.Unsubscribe(ctx, uri); err != nil {
			t.Errorf("Unsubscribe: %v", err)
		}
	})
}

// TestGoSDKHTTPPrompts lists the prompts, gets each kind and an unknown one,
// and asks for completions (which this server acknowledges with none).
func TestGoSDKHTTPPrompts(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		c := h.c
		ctx := waitCtx(t)
		prompts, err := c.ListPrompts(ctx)
		if err != nil {
			t.Fatalf("ListPrompts: %v", err)
		}
		var names []string
		for _, p := range prompts {
			names = append(names, p.Name)
		}
		for _, want := range gosdkPrompts {
			if !slices.Contains(names, want) {
				t.Errorf("prompts/list lacks %q", want)
			}
		}
		gp, err := c.GetPrompt(ctx, "test_prompt_with_arguments", map[string]string{"arg1": "alpha", "arg2": "beta"})
		if err != nil || len(gp.Messages) != 1 || gp.Messages[0].Content.Text != "Prompt with arguments: arg1='alpha', arg2='beta'" {
			t.Errorf("test_prompt_with_arguments = %+v, %v", gp, err)
		}
		gp, err = c.GetPrompt(ctx, "test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://mcpactor/doc"})
		if err != nil || len(gp.Messages) != 2 || gp.Messages[0].Content.Resource == nil || gp.Messages[0].Content.Resource.URI != "test://mcpactor/doc" {
			t.Errorf("test_prompt_with_embedded_resource = %+v, %v", gp, err)
		}
		gp, err = c.GetPrompt(ctx, "test_prompt_with_image", nil)
		if err != nil || len(gp.Messages) != 2 || gp.Messages[0].Content.Type != messages.ContentTypeImage {
			t.Errorf("test_prompt_with_image = %+v, %v", gp, err)
		}
		var rpcErr *messages.RPCError
		if _, err := c.GetPrompt(ctx, "no_such_prompt", nil); !errors.As(err, &rpcErr) {
			t.Errorf("unknown prompt: %v, want an RPCError", err)
		}
		res, err := c.Complete(ctx, messages.CompleteParams{
			Ref:      messages.CompleteReference{Type: messages.RefTypePrompt, Name: "test_prompt_with_arguments"},
			Argument: messages.CompleteArgument{Name: "arg1", Value: "a"},
		})
		if err != nil || len(res.Completion.Values) != 0 {
			t.Errorf("Complete = %+v, %v; want no values", res, err)
		}
	})
}

// TestGoSDKHTTPPing pings the server.
func TestGoSDKHTTPPing(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		if err := h.c.Ping(waitCtx(t)); err != nil {
			t.Fatalf("Ping: %v", err)
		}
	})
}

// TestGoSDKHTTPClose closes a client: Close returns nil, the session is
// ended with a DELETE carrying its id, nothing of the connection is left
// running, and calls fail with ErrTransportClosed.
func TestGoSDKHTTPClose(t *testing.T) {
	onOwn(t, gosdkSession, false, func(t *testing.T, h *httpConn) {
		c := h.c
		ctx := waitCtx(t)
		callOK(t, c, "test_simple_text", nil)
		if err := c.Close(ctx); err != nil {
			t.Fatalf("Close: %v", err)
		}
		sid := sessionGiven(h.wire())
		del := h.waitWire(t, "DELETE of the session", func(ex exchange) bool { return ex.Method == http.MethodDelete && ex.Done })
		if got := del.Header.Get("Mcp-Session-Id"); got != sid || del.Status/100 != 2 {
			t.Errorf("%s with session %q, want a 2xx for session %q", del, got, sid)
		}
		h.waitAllDone(t)
		if err := c.Ping(ctx); !errors.Is(err, mcpactor.ErrTransportClosed) {
			t.Errorf("Ping after Close: %v, want ErrTransportClosed", err)
		}
	})
}
