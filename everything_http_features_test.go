package mcpactor_test

// server-everything over HTTP (see everything_http_test.go): the client
// features it asks for (sampling, elicitation, roots), progress,
// timeouts, cancellation and stream resumption, resources, prompts,
// completion and logging. Each test runs over Streamable HTTP and legacy
// HTTP+SSE, and checks on the wire the stream each server request came on
// and where our answer went.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
)

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

// TestEverythingHTTPSampling answers the server's sampling request with the
// Sampling handler's canned message.
func TestEverythingHTTPSampling(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		mark := h.wireMark()
		checkEverythingSampling(t, h.c, h.rec)
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
		checkEverythingElicitation(t, h.c, h.rec)
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
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) { checkEverythingURLElicitation(t, h.c, h.rec) })
}

// TestEverythingHTTPRoots serves the Roots handler's roots, then changes
// them and notifies the server, which asks again (over Streamable HTTP, on
// the GET listener: the TypeScript SDK relates roots/list to no request).
// It has a connection of its own: it changes the roots.
func TestEverythingHTTPRoots(t *testing.T) {
	onOwn(t, everythingModes, false, func(t *testing.T, h *httpConn) {
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
	})
}

// TestEverythingHTTPProgress receives every progress notification of a
// call, in order, and none after the call returned.
func TestEverythingHTTPProgress(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) { checkEverythingProgress(t, h.c) })
}

// TestEverythingHTTPProgressOfConcurrentCalls routes the progress of two
// calls in flight at once to their own callbacks.
func TestEverythingHTTPProgressOfConcurrentCalls(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) { checkEverythingProgressOfConcurrentCalls(t, h.c) })
}

// cancelledOnWire waits for the notifications/cancelled POST for the first
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
			break
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
		mark := h.wireMark()
		checkEverythingTimeout(t, h.c)
		cancelledOnWire(t, h, mark)
	})
}

// TestEverythingHTTPCancel cancels a call's context at its first progress:
// a CanceledError, notifications/cancelled POSTed for it, and the
// connection still good.
func TestEverythingHTTPCancel(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		mark := h.wireMark()
		checkEverythingCancel(t, h.c)
		cancelledOnWire(t, h, mark)
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
		res, p, err := callWithProgress(waitCtx(t), h.c, "trigger-long-running-operation", map[string]any{"duration": 0.05, "steps": 2})
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
		checkEverythingResources(t, h.c)
		checkEverythingResourceTemplates(t, h.c)
		checkEverythingReadResource(t, h.c)
	})
}

// TestEverythingHTTPSubscribe subscribes to a resource and receives its
// updates, then unsubscribes. A connection of its own: subscriptions and
// the update toggle are the session's state.
func TestEverythingHTTPSubscribe(t *testing.T) {
	onOwn(t, everythingModes, true, func(t *testing.T, h *httpConn) {
		checkEverythingSubscribe(t, h.c, h.rec)
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
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) { checkEverythingSessionResource(t, h.c, h.rec) })
}

// TestEverythingHTTPPrompts lists the prompts (ListPrompts and the Prompts
// iterator), gets each kind, and an unknown one (-32602).
func TestEverythingHTTPPrompts(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) { checkEverythingPrompts(t, h.c) })
}

// TestEverythingHTTPCompletion completes a prompt's arguments, one narrowed
// by the context, and a resource template's.
func TestEverythingHTTPCompletion(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) { checkEverythingCompletion(t, h.c) })
}

// TestEverythingHTTPLogging sets the log level and receives the server's
// simulated log messages (over Streamable HTTP they come on the GET
// listener). A connection of its own: the level is the session's state.
func TestEverythingHTTPLogging(t *testing.T) {
	onOwn(t, everythingModes, true, func(t *testing.T, h *httpConn) {
		checkEverythingLogging(t, h.c, h.rec)
		set := postsOf(h.wire(), messages.MethodLoggingSetLevel)
		if len(set) != 1 || !bytes.Contains(set[0].Body, []byte(`"level":"debug"`)) {
			t.Errorf("logging/setLevel on the wire: %s", dumpExchanges(set))
		}
	})
}
