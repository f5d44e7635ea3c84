package mcpactor_test

// server-everything over HTTP (see everything_http_test.go): the client
// features it asks for (sampling, elicitation, roots), progress,
// timeouts, cancellation and stream resumption, resources, prompts,
// completion and logging. Each test runs over Streamable HTTP and legacy
// HTTP+SSE, and checks on the wire the stream each server request came on
// and where our answer went.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
)

// serverRequestOn finds our answer, POSTed after the mark since, to the
// server's request of method, and the exchange whose answer carried that
// request. It checks that the answer was accepted (202) and that the
// request came where the transport puts such requests: over Streamable HTTP
// the stream of the POST that caused it, or the GET listener; over legacy
// HTTP+SSE the one stream.
func serverRequestOn(t *testing.T, h *httpConn, since int, method string) (messages.Message, exchange) {
	t.Helper()
	var req messages.Message
	var carrier exchange
	answer := h.waitWire(t, "our answer to "+method, func(ex exchange) bool {
		if ex.StartSeq <= since || !ex.Done || ex.Method != http.MethodPost || !ex.IsMsg || ex.Msg.Kind() != messages.KindResponse {
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

// TestEverythingHTTPSampling answers the server's sampling request with the
// Sampling handler's canned message.
func TestEverythingHTTPSampling(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		mark := h.wireMark()
		res := callOK(t, h.c, "trigger-sampling-request", map[string]any{"prompt": "What is 2+2?", "maxTokens": 64})
		p := h.rec.lastSampling()
		if p == nil {
			t.Fatal("the Sampling handler was not called")
		}
		if len(p.Messages) != 1 || p.Messages[0].Content.Text != "Resource trigger-sampling-request context: What is 2+2?" || p.MaxTokens != 64 {
			t.Errorf("sampling params = %+v", p)
		}
		text := resultText(res)
		for _, want := range []string{cannedSample, cannedModel, `"stopReason": "endTurn"`} {
			if !strings.Contains(text, want) {
				t.Errorf("tool result lacks %q:\n%s", want, text)
			}
		}
		serverRequestOn(t, h, mark, messages.MethodSamplingCreateMessage)
	})
}

// TestEverythingHTTPElicitation answers a form elicitation with part of the
// form; the runtime fills in the schema's defaults for the rest. The
// elicitation arrives on the tools/call POST's stream (Streamable HTTP:
// the TypeScript SDK relates it to the request) or the legacy stream.
func TestEverythingHTTPElicitation(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		mark := h.wireMark()
		res := callOK(t, h.c, "trigger-elicitation-request", nil)
		p := h.rec.lastElicit()
		if p == nil || p.Message != "Please provide inputs for the following fields:" {
			t.Fatalf("Elicitation handler got %+v", p)
		}
		text := resultText(res)
		for _, want := range []string{
			"- Name: Ada Lovelace",
			"- Favorite Integer: 7",   // our answer over the default
			"- Favorite Number: 3.14", // a default we did not answer
			`"untitledSingleSelectEnum": "Monica"`,
		} {
			if !strings.Contains(text, want) {
				t.Errorf("tool result lacks %q:\n%s", want, text)
			}
		}
		req, _ := serverRequestOn(t, h, mark, messages.MethodElicitationCreate)
		answer, _ := responseTo(h.wire(), req.ID)
		if !bytes.Contains(answer.Body, []byte(`"number":3.14`)) || !bytes.Contains(answer.Body, []byte(`"integer":7`)) {
			t.Errorf("our answer on the wire lacks the defaults: %s", answer.Body)
		}
	})
}

// TestEverythingHTTPURLElicitation accepts a URL elicitation, and gets the
// tool's -32042 error as an RPCError.
func TestEverythingHTTPURLElicitation(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		const url = "https://example.com/mcpactor/authorize"
		res := callOK(t, h.c, "trigger-url-elicitation", map[string]any{"url": url, "elicitationId": "mcpactor-http-1"})
		p := h.rec.lastElicit()
		if p == nil || p.Mode != messages.ElicitModeURL || p.URL != url || p.ElicitationID != "mcpactor-http-1" {
			t.Fatalf("Elicitation handler got %+v", p)
		}
		if !strings.Contains(resultText(res), "User completed the URL elicitation flow") {
			t.Errorf("tool result = %q", resultText(res))
		}
		_, err := h.c.CallTool(waitCtx(t), "trigger-url-elicitation", map[string]any{"url": url, "errorPath": true})
		var rpcErr *messages.RPCError
		if !errors.As(err, &rpcErr) || rpcErr.Code != -32042 || !bytes.Contains(rpcErr.Data, []byte(`"elicitations"`)) {
			t.Errorf("error path: %v, want an RPCError -32042 with the elicitations", err)
		}
	})
}

// TestEverythingHTTPRoots serves the Roots handler's roots, then changes
// them and notifies the server, which asks again (over Streamable HTTP, on
// the GET listener: the TypeScript SDK relates roots/list to no request).
// It has a connection of its own: it changes the roots.
func TestEverythingHTTPRoots(t *testing.T) {
	onOwn(t, everythingModes, false, func(t *testing.T, h *httpConn) {
		c, rec := h.c, h.rec
		text := resultText(callOK(t, c, "get-roots-list", nil))
		for _, want := range []string{"Current MCP Roots (2 total)", "1. project-a\n   URI: file:///tmp/mcpactor/project-a"} {
			if !strings.Contains(text, want) {
				t.Errorf("get-roots-list lacks %q:\n%s", want, text)
			}
		}
		_, carrier := serverRequestOn(t, h, 0, messages.MethodRootsList)
		if !h.isLegacy() && carrier.Method != http.MethodGet {
			t.Errorf("roots/list came on %s, want the GET listener", carrier)
		}

		calls := rec.rootsCallCount()
		rec.setRoots(
			messages.Root{URI: "file:///tmp/mcpactor/project-a", Name: "project-a"},
			messages.Root{URI: "file:///tmp/mcpactor/project-b", Name: "project-b"},
			messages.Root{URI: "file:///tmp/mcpactor/project-c", Name: "project-c"},
		)
		mark, wmark := rec.notes.mark(), h.wireMark()
		if err := c.NotifyRootsChanged(waitCtx(t)); err != nil {
			t.Fatalf("NotifyRootsChanged: %v", err)
		}
		h.waitWire(t, "notifications/roots/list_changed", func(ex exchange) bool {
			return ex.isPost(messages.NotificationRootsListChanged) && ex.StartSeq > wmark
		})
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
}

// TestEverythingHTTPProgress receives every progress notification of a
// call, in order, and none after the call returned.
func TestEverythingHTTPProgress(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		var p progressRecorder
		res, err := h.c.CallToolWith(waitCtx(t), "trigger-long-running-operation",
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
}

// TestEverythingHTTPProgressOfConcurrentCalls routes the progress of two
// calls in flight at once to their own callbacks.
func TestEverythingHTTPProgressOfConcurrentCalls(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		c := h.c
		ctx := waitCtx(t)
		type run struct {
			steps int
			p     progressRecorder
		}
		runs := []*run{{steps: 4}, {steps: 3}}
		var wg sync.WaitGroup
		defer wg.Wait()
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
		harness.WaitFor(t, "both calls in flight", func() bool { return c.InFlight() == 2 })
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
}

// cancelledOnWire waits for the notifications/cancelled POST for the
// tools/call that began after mark, and checks it names that request
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation:
// in the session era a client cancels over HTTP with a new POST).
func cancelledOnWire(t *testing.T, h *httpConn, mark int) {
	t.Helper()
	calls := postsOf(h.wire(), messages.MethodToolsCall)
	var call exchange
	for _, ex := range calls {
		if ex.StartSeq > mark {
			call = ex
		}
	}
	if !call.IsMsg {
		t.Fatalf("no tools/call after the mark:\n%s", dumpExchanges(h.wire()))
	}
	note := h.waitWire(t, "notifications/cancelled", func(ex exchange) bool {
		return ex.isPost(messages.NotificationCancelled) && ex.StartSeq > mark && ex.Done
	})
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if err := json.Unmarshal(note.Msg.Params, &p); err != nil || string(p.RequestID) != call.Msg.ID.String() {
		t.Errorf("cancelled %s (%v), want requestId %s", note.Msg.Params, err, call.Msg.ID)
	}
	if note.Status != http.StatusAccepted {
		t.Errorf("%s: want 202", note)
	}
}

// TestEverythingHTTPTimeout times a call out: a TimeoutError, the call no
// longer in flight, notifications/cancelled POSTed for it, and the
// connection still good.
func TestEverythingHTTPTimeout(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		c := h.c
		mark := h.wireMark()
		_, err := c.CallToolWith(waitCtx(t), "trigger-long-running-operation",
			map[string]any{"duration": 6, "steps": 2}, mcpactor.CallOptions{Timeout: 300 * time.Millisecond})
		var te *messages.TimeoutError
		if !errors.As(err, &te) || !errors.Is(err, mcpactor.ErrTimeout) || te.Method != messages.MethodToolsCall {
			t.Fatalf("err = %v (%T), want a *messages.TimeoutError for tools/call", err, err)
		}
		harness.WaitFor(t, "the timed-out call to leave the pending table", func() bool { return c.InFlight() == 0 })
		cancelledOnWire(t, h, mark)
		callOK(t, c, "echo", map[string]any{"message": "after timeout"})
	})
}

// TestEverythingHTTPCancel cancels a call's context at its first progress:
// a CanceledError, notifications/cancelled POSTed for it, and the
// connection still good.
func TestEverythingHTTPCancel(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		c := h.c
		mark := h.wireMark()
		ctx, cancel := context.WithCancel(waitCtx(t))
		defer cancel()
		_, err := c.CallToolWith(ctx, "trigger-long-running-operation",
			map[string]any{"duration": 4, "steps": 4},
			mcpactor.CallOptions{OnProgress: func(messages.ProgressParams) { cancel() }})
		var ce *messages.CanceledError
		if !errors.Is(err, context.Canceled) || !errors.As(err, &ce) || ce.Method != messages.MethodToolsCall {
			t.Fatalf("err = %#v, want a *messages.CanceledError for tools/call", err)
		}
		harness.WaitFor(t, "the cancelled call to leave the pending table", func() bool { return c.InFlight() == 0 })
		cancelledOnWire(t, h, mark)
		callOK(t, c, "echo", map[string]any{"message": "after cancel"})
	})
}

// TestEverythingHTTPResumption breaks the stream of a call with progress
// right after its priming event (an event id and no data), as a network
// failure would: the proxy closes the connection. server-everything keeps
// its events in an event store, so the runtime resumes the stream with a
// GET carrying Last-Event-ID (the priming event's id), never POSTs the
// request again, and gets the progress and the result from the replay
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
//
// The call is short (50 ms) on purpose: server-everything's example event
// store returns the last event's id where the SDK expects the stream's id
// (InMemoryEventStore.replayEventsAfter in dist/transports/streamableHttp.js),
// so the resumed stream is registered under the wrong key and gets only
// the events stored before the GET, nothing sent after it. The runtime
// waits its retry delay (about 500 ms; the server sends no retry:) before
// resuming, by which time the call has finished on the server.
//
// Streamable HTTP only; a connection of its own, declaring no capabilities
// so that no roots/list shares the replay.
func TestEverythingHTTPResumption(t *testing.T) {
	onOwn(t, everythingStreamableOnly, true, func(t *testing.T, h *httpConn) {
		h.peer.proxy.cutOnce(h.id, afterFirstEvent(messages.MethodToolsCall))
		var p progressRecorder
		res, err := h.c.CallToolWith(waitCtx(t), "trigger-long-running-operation",
			map[string]any{"duration": 0.05, "steps": 2}, mcpactor.CallOptions{OnProgress: p.onProgress})
		p.returned.Store(true)
		if err != nil {
			t.Fatalf("CallToolWith: %v\nwire:\n%s", err, dumpExchanges(h.wire()))
		}
		if got := resultText(res); got != "Long running operation completed. Duration: 0.05 seconds, Steps: 2." {
			t.Errorf("result = %q", got)
		}
		p.check(t, []float64{1, 2}, 2)

		exs := h.wire()
		calls := postsOf(exs, messages.MethodToolsCall)
		if len(calls) != 1 || !calls[0].Cut {
			t.Fatalf("want one tools/call POST, cut by the proxy:\n%s", dumpExchanges(exs))
		}
		cut := calls[0]
		lastID := cut.lastEventID()
		if lastID == "" || len(cut.streamed()) != 0 {
			t.Fatalf("the cut stream delivered %q: want the priming event alone", cut.Resp)
		}
		var resumed []exchange
		for _, ex := range exs {
			if ex.Method == http.MethodGet && ex.Header.Get("Last-Event-ID") != "" {
				resumed = append(resumed, ex)
			}
		}
		if len(resumed) != 1 {
			t.Fatalf("want one resuming GET:\n%s", dumpExchanges(exs))
		}
		r := resumed[0]
		if got := r.Header.Get("Last-Event-ID"); got != lastID {
			t.Errorf("resumed with Last-Event-ID %q, want the priming event's id %q", got, lastID)
		}
		if r.StartSeq < cut.EndSeq {
			t.Errorf("the resuming GET (#%d) started before the cut stream ended (#%d)", r.StartSeq, cut.EndSeq)
		}
		if r.Header.Get("Mcp-Session-Id") != sessionGiven(exs) || r.Header.Get("Mcp-Protocol-Version") != h.c.ProtocolVersion() {
			t.Errorf("the resuming GET lacks the session's headers: %v", r.Header)
		}
		if _, ok := findResponse(r.streamed(), cut.Msg.ID); !ok {
			t.Errorf("the result did not come on the resumed stream: %.500s", r.Resp)
		}
		h.peer.proc.out.waitLine(t, "Client reconnecting with Last-Event-ID: "+lastID)
	})
}

// TestEverythingHTTPResources lists the static documents (ListResources and
// the Resources iterator), the templates, and reads a text, a blob, a
// missing resource, and the instructions document.
func TestEverythingHTTPResources(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
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
		for _, doc := range everythingDocs {
			if !slices.Contains(uris, "demo://resource/static/document/"+doc) {
				t.Errorf("resources/list lacks %s", doc)
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

		templates, err := c.ListResourceTemplates(ctx)
		if err != nil {
			t.Fatalf("ListResourceTemplates: %v", err)
		}
		var tpls []string
		for _, tpl := range templates {
			tpls = append(tpls, tpl.URITemplate)
		}
		for _, want := range []string{"demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/blob/{resourceId}"} {
			if !slices.Contains(tpls, want) {
				t.Errorf("templates %v lack %s", tpls, want)
			}
		}

		rr, err := c.ReadResource(ctx, "demo://resource/dynamic/text/3")
		if err != nil || len(rr.Contents) != 1 || !strings.HasPrefix(rr.Contents[0].Text, "Resource 3: This is a plaintext resource") {
			t.Errorf("read text: %+v, %v", rr, err)
		}
		rr, err = c.ReadResource(ctx, "demo://resource/dynamic/blob/8")
		if err != nil || len(rr.Contents) != 1 || !rr.Contents[0].IsBlob() {
			t.Fatalf("read blob: %+v, %v", rr, err)
		}
		if data, err := rr.Contents[0].Bytes(); err != nil || !strings.HasPrefix(string(data), "Resource 8: This is a base64 blob") {
			t.Errorf("blob decodes to %q (%v)", data, err)
		}
		var rpcErr *messages.RPCError
		if _, err := c.ReadResource(ctx, "demo://resource/dynamic/text/0"); !errors.As(err, &rpcErr) {
			t.Errorf("read of a missing resource: %v, want an RPCError", err)
		}
		rr, err = c.ReadResource(ctx, "demo://resource/static/document/instructions.md")
		if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != c.Instructions() {
			t.Errorf("instructions.md differs from Instructions() (%v)", err)
		}
	})
}

// TestEverythingHTTPSubscribe subscribes to a resource and receives its
// updates, then unsubscribes. A connection of its own: subscriptions and
// the update toggle are the session's state.
func TestEverythingHTTPSubscribe(t *testing.T) {
	onOwn(t, everythingModes, true, func(t *testing.T, h *httpConn) {
		c, rec := h.c, h.rec
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
		exs := h.wire()
		if len(postsOf(exs, messages.MethodResourcesSubscribe)) != 1 || len(postsOf(exs, messages.MethodResourcesUnsubscribe)) != 1 {
			t.Errorf("want one subscribe and one unsubscribe on the wire:\n%s", dumpExchanges(exs))
		}
	})
}

// TestEverythingHTTPSessionResource has a tool register a resource for the
// session: resources/list_changed arrives, and the resource is listed and
// reads back.
func TestEverythingHTTPSessionResource(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		c, rec := h.c, h.rec
		ctx := waitCtx(t)
		dataURI := "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte("over http\n"))
		mark := rec.notes.mark()
		res := callOK(t, c, "gzip-file-as-resource", map[string]any{"name": "http.txt.gz", "data": dataURI, "outputType": "resourceLink"})
		if len(res.Content) != 1 || res.Content[0].Type != messages.ContentTypeResourceLink {
			t.Fatalf("content = %+v, want one resource_link", res.Content)
		}
		link := res.Content[0].ResourceLink()
		rec.notes.waitAfter(t, mark, messages.NotificationResourcesListChanged, isMethod(messages.NotificationResourcesListChanged))
		resources, err := c.ListResources(ctx)
		if err != nil || !slices.ContainsFunc(resources, func(r messages.Resource) bool { return r.URI == link.URI }) {
			t.Errorf("resources/list lacks %s (%v)", link.URI, err)
		}
		rr, err := c.ReadResource(ctx, link.URI)
		if err != nil || len(rr.Contents) != 1 || !rr.Contents[0].IsBlob() {
			t.Errorf("read %s: %+v, %v", link.URI, rr, err)
		}
	})
}

// TestEverythingHTTPPrompts lists the prompts (ListPrompts and the Prompts
// iterator), gets each kind, and an unknown one (-32602).
func TestEverythingHTTPPrompts(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
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
		for _, want := range []string{"simple-prompt", "args-prompt", "completable-prompt", "resource-prompt"} {
			if !slices.Contains(names, want) {
				t.Errorf("prompts/list lacks %q", want)
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
		if err != nil || len(gp.Messages) != 1 || gp.Messages[0].Content.Text != "This is a simple prompt without arguments." {
			t.Errorf("simple-prompt = %+v, %v", gp, err)
		}
		gp, err = c.GetPrompt(ctx, "args-prompt", map[string]string{"city": "Paris", "state": "Texas"})
		if err != nil || len(gp.Messages) != 1 || gp.Messages[0].Content.Text != "What's weather in Paris, Texas?" {
			t.Errorf("args-prompt = %+v, %v", gp, err)
		}
		gp, err = c.GetPrompt(ctx, "resource-prompt", map[string]string{"resourceType": "Text", "resourceId": "2"})
		if err != nil || len(gp.Messages) != 2 || gp.Messages[1].Content.Type != messages.ContentTypeResource {
			t.Errorf("resource-prompt = %+v, %v", gp, err)
		}
		var rpcErr *messages.RPCError
		if _, err := c.GetPrompt(ctx, "no-such-prompt", nil); !errors.As(err, &rpcErr) || rpcErr.Code != messages.CodeInvalidParams {
			t.Errorf("unknown prompt: %v, want an RPCError -32602", err)
		}
	})
}

// TestEverythingHTTPCompletion completes a prompt's arguments, one narrowed
// by the context, and a resource template's.
func TestEverythingHTTPCompletion(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		c := h.c
		ctx := waitCtx(t)
		prompt := messages.CompleteReference{Type: messages.RefTypePrompt, Name: "completable-prompt"}
		res, err := c.Complete(ctx, messages.CompleteParams{Ref: prompt, Argument: messages.CompleteArgument{Name: "department", Value: "S"}})
		if err != nil || !slices.Equal(res.Completion.Values, []string{"Sales", "Support"}) {
			t.Errorf("department completions = %+v, %v", res, err)
		}
		res, err = c.Complete(ctx, messages.CompleteParams{
			Ref:      prompt,
			Argument: messages.CompleteArgument{Name: "name", Value: ""},
			Context:  &messages.CompleteContext{Arguments: map[string]string{"department": "Engineering"}},
		})
		if err != nil || !slices.Equal(res.Completion.Values, []string{"Alice", "Bob", "Charlie"}) {
			t.Errorf("name completions = %+v, %v", res, err)
		}
		res, err = c.Complete(ctx, messages.CompleteParams{
			Ref:      messages.CompleteReference{Type: messages.RefTypeResource, URI: "demo://resource/dynamic/text/{resourceId}"},
			Argument: messages.CompleteArgument{Name: "resourceId", Value: "12"},
		})
		if err != nil || !slices.Equal(res.Completion.Values, []string{"12"}) {
			t.Errorf("resourceId completions = %+v, %v", res, err)
		}
	})
}

// TestEverythingHTTPLogging sets the log level and receives the server's
// simulated log messages (over Streamable HTTP they come on the GET
// listener). A connection of its own: the level is the session's state.
func TestEverythingHTTPLogging(t *testing.T) {
	onOwn(t, everythingModes, true, func(t *testing.T, h *httpConn) {
		c, rec := h.c, h.rec
		ctx := waitCtx(t)
		if err := c.SetLoggingLevel(ctx, messages.LevelDebug); err != nil {
			t.Fatalf("SetLoggingLevel: %v", err)
		}
		set := postsOf(h.wire(), messages.MethodLoggingSetLevel)
		if len(set) != 1 || !bytes.Contains(set[0].Body, []byte(`"level":"debug"`)) {
			t.Errorf("logging/setLevel on the wire: %s", dumpExchanges(set))
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
		if err := json.Unmarshal(n.Params, &p); err != nil || p.Level.Severity() < 0 {
			t.Errorf("notifications/message params %s (%v)", n.Params, err)
		}
		if text := resultText(callOK(t, c, "toggle-simulated-logging", nil)); !strings.HasPrefix(text, "Stopped") {
			t.Errorf("second toggle-simulated-logging = %q", text)
		}
	})
}
