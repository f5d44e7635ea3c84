package mcpactor_test

// The server's requests to the client (sampling, elicitation, roots)
// against the independent peers, one row per peer and transport
// (peer_rows_test.go): the handlers answer them, and over HTTP the wire
// shows the stream each request came on and where our answer went.

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
)

// TestSampling answers the server's sampling request with the Sampling
// handler's canned message; over HTTP the request came where the transport
// puts it (serverRequestOn)
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling).
func TestSampling(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		var mark int
		if h != nil {
			mark = h.wireMark()
		}
		if p.peer == everythingServer {
			checkEverythingSampling(t, p.c, p.rec)
		} else {
			checkGoSDKSampling(t, p.c, p.rec)
		}
		if h != nil {
			serverRequestOn(t, h, mark, messages.MethodSamplingCreateMessage)
		}
	}, everythingStdio, everythingStreamable, everythingSSE, gosdkStdio, gosdkHTTP)
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
	checkResultHas(t, res, cannedSample, cannedModel, `"role": "assistant"`, `"stopReason": "endTurn"`)
}

// checkResultHas fails t for each of wants that res's text lacks.
func checkResultHas(t *testing.T, res *messages.CallToolResult, wants ...string) {
	t.Helper()
	text := resultText(res)
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("tool result lacks %q:\n%s", want, text)
		}
	}
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

// TestElicitation answers a form elicitation with part of the form; the
// runtime fills in the schema's defaults for the rest
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation).
// Over HTTP the elicitation arrives on the tools/call POST's stream
// (Streamable HTTP: the SDKs relate it to the request) or the legacy
// stream, and server-everything's defaults are in our answer on the wire.
func TestElicitation(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		var mark int
		if h != nil {
			mark = h.wireMark()
		}
		if p.peer == gosdkServer {
			checkGoSDKElicitation(t, p.c, p.rec)
			if h != nil {
				serverRequestOn(t, h, mark, messages.MethodElicitationCreate)
			}
			checkGoSDKElicitationDefaults(t, p.c)
			return
		}
		checkEverythingElicitation(t, p.c, p.rec)
		if h == nil {
			return
		}
		req, _ := serverRequestOn(t, h, mark, messages.MethodElicitationCreate)
		answer, _ := responseTo(h.wire(), req.ID)
		if !bytes.Contains(answer.Body, []byte(`"number":3.14`)) || !bytes.Contains(answer.Body, []byte(`"integer":7`)) {
			t.Errorf("our answer on the wire lacks the defaults: %s", answer.Body)
		}
	}, everythingStdio, everythingStreamable, everythingSSE, gosdkStdio, gosdkHTTP)
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

	checkResultHas(t, res,
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
	)
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

// TestURLElicitation accepts a URL elicitation, and gets the tool's
// -32042 error as an RPCError.
func TestURLElicitation(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) { checkEverythingURLElicitation(t, p.c, p.rec) }, everythingStdio, everythingStreamable, everythingSSE)
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
	var rpcErr *mcpactor.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32042 {
		t.Fatalf("error path: err = %v, want an RPCError with code -32042", err)
	}
	if !bytes.Contains(rpcErr.Data, []byte(`"elicitations"`)) {
		t.Errorf("error data %s lacks the elicitations", rpcErr.Data)
	}
}

// TestRoots serves the Roots handler's roots, then changes them and
// notifies the server, which asks again
// (https://modelcontextprotocol.io/specification/2025-11-25/client/roots).
// Over HTTP a connection of its own (it changes the roots); over
// Streamable HTTP roots/list comes on the GET listener: the TypeScript SDK
// relates it to no request.
func TestRoots(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		if h == nil {
			t.Run("get-roots-list", func(t *testing.T) { checkEverythingRootsList(t, p.c, p.rec) })
			t.Run("list_changed", func(t *testing.T) { checkEverythingRootsChanged(t, p.c, p.rec) })
			return
		}
		checkEverythingRootsList(t, h.c, h.rec)
		_, carrier := serverRequestOn(t, h, 0, messages.MethodRootsList)
		if !h.isLegacy() && carrier.Method != http.MethodGet {
			t.Errorf("roots/list came on %s, want the GET listener", carrier)
		}

		wmark := h.wireMark()
		checkEverythingRootsChanged(t, h.c, h.rec)
		h.waitWire(t, "notifications/roots/list_changed", func(ex exchange) bool {
			return ex.isPost(messages.NotificationRootsListChanged) && ex.StartSeq > wmark
		})

	}, everythingStdio, everythingStreamable.own(false), everythingSSE.own(false))
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

// TestMultiRoundTrip: in the 2026-07-28 era sampling, elicitation and
// roots reach the usual handlers through multi round-trip results, with
// the same answers over stdio and HTTP; the caller sees one call. Each
// round is a request of its own carrying the inputResponses (over HTTP a
// POST of its own, with the era's headers and no server request on its
// stream).
func TestMultiRoundTrip(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		if p.sent != nil {
			c, w := p.c, p.sent
			checkStatelessMultiRoundTrip(t, c)
			// Each round was a request of its own, with the responses.
			rounds := 0
			for _, m := range w.sent(t) {
				if m.Method == messages.MethodToolsCall && bytes.Contains(m.Params, []byte(`"inputResponses"`)) {
					rounds++
				}
			}
			if rounds < statelessMinRounds {
				t.Errorf("%d retries with inputResponses went on the wire, want at least %d", rounds, statelessMinRounds)
			}

			return
		}
		mark := h.wireMark()
		checkStatelessMultiRoundTrip(t, h.c)
		rounds := 0
		for _, ex := range postsOf(h.wire(), messages.MethodToolsCall) {
			if ex.StartSeq <= mark {
				continue
			}
			checkModernHeaders(t, ex)
			if bytes.Contains(ex.Body, []byte(`"inputResponses"`)) {
				rounds++
			}
			if _, ok := ex.carries(messages.MethodElicitationCreate); ok {
				t.Errorf("%s: a server request on the stream in the stateless era", ex)
			}
		}
		if rounds < statelessMinRounds {
			t.Errorf("%d retries with inputResponses went on the wire, want at least %d", rounds, statelessMinRounds)
		}

	}, gosdkStdioStateless, gosdkHTTPStateless)
}

// statelessMinRounds is how many retries carrying inputResponses
// checkStatelessMultiRoundTrip makes at least: one per tool, two for
// multi_round.
const statelessMinRounds = 7

// checkStatelessMultiRoundTrip calls each multi round-trip tool of the
// go-sdk server: statelessRecorder's handlers answer its rounds, and the
// caller sees one call and the answer.
func checkStatelessMultiRoundTrip(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	for _, tc := range []struct{ tool, want string }{
		{"test_input_required_result_elicitation", "Hello, Ada!"},
		{"test_input_required_result_sampling", "sampled"},
		{"test_input_required_result_list_roots", "file:///tmp/mcpactor/stateless"},
		{"test_input_required_result_multi_round", "Multi-round complete"},
		{"test_input_required_result_multiple_inputs", "1 root(s)"},
		{"test_input_required_result_request_state", "state-ok"},
	} {
		res, err := c.CallTool(ctx, tc.tool, map[string]any{})
		if err != nil || res.IsError || !strings.Contains(resultText(res), tc.want) {
			t.Errorf("%s: %v, %+v; want a text with %q", tc.tool, err, res, tc.want)
		}
	}
}

// serverRequestOn finds our answer, POSTed after the mark since, to the
// server's request of method, and the exchange whose answer carried that
// request. It checks that the answer was accepted (202) and that the
// request came where the transport puts such requests: over Streamable HTTP
// the stream of the POST that caused it, or the GET listener; over legacy
// HTTP+SSE the one stream.
func serverRequestOn(t *testing.T, h *httpConn, since int, method string) (jsonrpc.Message, exchange) {
	t.Helper()
	var req jsonrpc.Message
	var carrier exchange
	answer := h.waitWire(t, "our answer to "+method, func(ex exchange) bool {
		if ex.StartSeq <= since || !ex.Done || ex.Method != http.MethodPost || !ex.IsMsg || ex.Msg.Kind() != jsonrpc.KindResponse {
			return false
		}
		for _, c := range h.wire() {
			for _, m := range c.streamed() {
				if m.Method == method && m.ID.String() == ex.Msg.ID.String() {
					req, carrier = m, c
					return true
				}
			}
		}
		return false
	})
	if answer.Status != http.StatusAccepted || answer.Msg.Result == nil {
		t.Errorf("our answer %s: want a result, accepted with 202", answer)
	}
	switch {
	case h.isLegacy():
		if carrier.Method != http.MethodGet || carrier.URL.Path != "/sse" {
			t.Errorf("%s came on %s, want the GET /sse stream", method, carrier)
		}
	case carrier.Method == http.MethodGet:
		t.Logf("%s came on the GET listener", method)
	case carrier.isPost(messages.MethodToolsCall):
		t.Logf("%s came on the stream of %s", method, carrier)
	default:
		t.Errorf("%s came on %s, want a tools/call POST's stream or the GET listener", method, carrier)
	}
	return req, carrier
}

// wireMark is the position after which a test's own exchanges start.
func (h *httpConn) wireMark() int {
	exs := h.wire()
	if len(exs) == 0 {
		return 0
	}
	m := 0
	for _, ex := range exs {
		m = max(m, ex.StartSeq, ex.EndSeq)
	}
	return m
}
