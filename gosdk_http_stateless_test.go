package mcpactor_test

// The 2026-07-28 era over Streamable HTTP, against the go-sdk server in
// its default HTTP mode (stateless): no initialize and no session, every
// request carries the era's _meta and headers, server requests become
// multi round-trip results, log levels travel in _meta, change
// notifications come on a subscriptions/listen stream, and closing a
// request's stream is its cancellation
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http).
// The tests run the checks of the stdio tests (gosdk_stateless_test.go,
// gosdk_test.go) and statelessRecorder's answers over HTTP; the recording
// proxy shows what went on the wire.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
)

var (
	gosdkStatelessHTTP = &sharedHTTP{spec: gosdkHTTPSpec(true, statelessRecorder)}
	gosdkStateless     = []httpMode{{"stateless", gosdkStatelessHTTP}}
)

// TestGoSDKHTTPStatelessNegotiation: the probe finds the stateless era
// (server/discover lists 2026-07-28), which is negotiated; no initialize,
// no session id and no GET listener on the wire; every request carries the
// era's _meta and headers: MCP-Protocol-Version equal to the _meta
// version, Mcp-Method, and Mcp-Name on tools/call.
func TestGoSDKHTTPStatelessNegotiation(t *testing.T) {
	onShared(t, gosdkStateless, func(t *testing.T, h *httpConn) {
		c := h.c
		checkStatelessHandshake(t, c)
		mark := h.wireMark()
		if _, err := c.ListTools(waitCtx(t)); err != nil {
			t.Fatalf("ListTools: %v", err)
		}
		callOK(t, c, "test_simple_text", nil)
		if _, err := c.ReadResource(waitCtx(t), "test://static-text"); err != nil {
			t.Errorf("ReadResource: %v", err)
		}
		if _, err := c.GetPrompt(waitCtx(t), "test_simple_prompt", nil); err != nil {
			t.Errorf("GetPrompt: %v", err)
		}

		exs := h.wire()
		if len(exs) == 0 || !exs[0].isPost(messages.MethodServerDiscover) {
			t.Fatalf("the first exchange was not the server/discover probe:\n%s", dumpExchanges(exs))
		}
		var sawCall bool
		for _, ex := range exs {
			switch {
			case ex.isPost(messages.MethodInitialize), ex.isPost(messages.NotificationInitialized):
				t.Errorf("%s went on the wire in the stateless era", ex)
			case ex.Method == http.MethodGet:
				t.Errorf("%s: no GET listener in the stateless era", ex)
			case ex.Method == http.MethodDelete:
				t.Errorf("%s: no session to end in the stateless era", ex)
			case ex.IsMsg && ex.Msg.Kind() == jsonrpc.KindRequest:
				checkModernHeaders(t, ex)
				sawCall = sawCall || ex.StartSeq > mark && ex.isPost(messages.MethodToolsCall)
			}
		}
		if !sawCall {
			t.Errorf("no tools/call on the wire")
		}
	})
}

// TestGoSDKHTTPStatelessParamHeader calls test_x_mcp_header, whose input
// schema marks region with x-mcp-header "Region": the request carries
// Mcp-Param-Region: eu-west, which the server checks against the body.
func TestGoSDKHTTPStatelessParamHeader(t *testing.T) {
	onShared(t, gosdkStateless, func(t *testing.T, h *httpConn) {
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
	})
}

// TestGoSDKHTTPStatelessMultiRoundTrip: sampling, elicitation and roots
// reach the usual handlers through multi round-trip results, with the same
// answers as over stdio; each round is a POST of its own carrying the
// inputResponses.
func TestGoSDKHTTPStatelessMultiRoundTrip(t *testing.T) {
	onShared(t, gosdkStateless, func(t *testing.T, h *httpConn) {
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
	})
}

// TestGoSDKHTTPStatelessProgress receives the progress of a call.
func TestGoSDKHTTPStatelessProgress(t *testing.T) {
	onShared(t, gosdkStateless, func(t *testing.T, h *httpConn) { checkGoSDKProgress(t, h.c) })
}

// TestGoSDKHTTPStatelessBrokenStream breaks a call's response stream after
// its first progress event, as a network failure would (the proxy closes
// the connection). The 2026-07-28 era has no resumption: the runtime issues
// the request again, once, with a new id and the same params, and the
// caller gets the result
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http).
// No GET with Last-Event-ID, no notifications/cancelled. The caller's
// OnProgress must still see one call's progress, increasing
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress:
// "The progress value MUST increase with each notification").
func TestGoSDKHTTPStatelessBrokenStream(t *testing.T) {
	onOwn(t, gosdkStateless, false, func(t *testing.T, h *httpConn) {
		if _, err := h.c.ListTools(waitCtx(t)); err != nil {
			t.Fatal(err)
		}
		mark := h.wireMark()
		h.peer.proxy.cutOnce(h.id, afterEventWith(messages.MethodToolsCall, messages.NotificationProgress))
		res, p, err := callWithProgress(waitCtx(t), h.c, "test_tool_with_progress", nil)
		if err != nil {
			t.Fatalf("CallToolWith: %v\nwire:\n%s", err, dumpExchanges(h.wire()))
		}
		var after []exchange
		for _, ex := range h.wire() {
			if ex.StartSeq > mark {
				after = append(after, ex)
			}
		}
		calls := postsOf(after, messages.MethodToolsCall)
		if len(calls) != 2 || !calls[0].Cut || calls[1].Cut {
			t.Fatalf("want the call cut, then issued once more:\n%s", dumpExchanges(after))
		}
		if calls[0].Msg.ID.String() == calls[1].Msg.ID.String() {
			t.Errorf("the call was issued again under the same id %s", calls[0].Msg.ID)
		}
		if !bytes.Equal(stripID(calls[0].Body), stripID(calls[1].Body)) {
			t.Errorf("the call issued again differs:\n%s\n%s", calls[0].Body, calls[1].Body)
		}
		if calls[1].StartSeq < calls[0].EndSeq {
			t.Errorf("issued again (#%d) before the first stream ended (#%d)", calls[1].StartSeq, calls[0].EndSeq)
		}
		checkModernHeaders(t, calls[1])
		for _, ex := range after {
			if ex.Header.Get("Last-Event-ID") != "" || ex.isPost(messages.NotificationCancelled) {
				t.Errorf("%s: the era neither resumes nor sends notifications/cancelled", ex)
			}
		}
		if _, ok := findResponse(calls[1].streamed(), calls[1].Msg.ID); !ok {
			t.Errorf("the result did not come on the second stream")
		}
		if len(p.got) > 0 {
			if got, want := resultText(res), fmt.Sprint(p.got[len(p.got)-1].ProgressToken); got != want {
				t.Errorf("the server saw token %q, progress carried %q", got, want)
			}
		}
		// The first attempt delivered progress 0 before it broke; the
		// second starts over at 0 under the same token.
		p.check(t, []float64{0, 50, 100}, 100)
	})
}

// TestGoSDKHTTPStatelessLogging sets the log level, which travels in each
// request's _meta (io.modelcontextprotocol/logLevel) rather than as
// logging/setLevel, and receives the tool's log messages in order. A
// connection of its own: the level is the client's state.
func TestGoSDKHTTPStatelessLogging(t *testing.T) {
	onOwn(t, gosdkStateless, false, func(t *testing.T, h *httpConn) {
		checkGoSDKLogging(t, h.c, h.rec, messages.LevelDebug)
		exs := h.wire()
		if set := postsOf(exs, messages.MethodLoggingSetLevel); len(set) != 0 {
			t.Errorf("logging/setLevel went on the wire in the stateless era")
		}
		calls := postsOf(exs, messages.MethodToolsCall)
		if len(calls) == 0 || !bytes.Contains(calls[len(calls)-1].Body, []byte(`"`+messages.MetaKeyLogLevel+`":"debug"`)) {
			t.Errorf("the call's _meta lacks the log level:\n%s", dumpExchanges(calls))
		}
	})
}

// TestGoSDKHTTPStatelessListen: after a tool changes the tool list, the
// notifications/tools/list_changed reaches Handlers.Notification through
// the subscriptions/listen stream.
func TestGoSDKHTTPStatelessListen(t *testing.T) {
	onOwn(t, gosdkStateless, false, func(t *testing.T, h *httpConn) {
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
	})
}

// TestGoSDKHTTPStatelessListenBroken breaks the subscriptions/listen stream
// right after the server acknowledged it: the runtime listens again, and a
// later tools/list_changed still reaches Handlers.Notification.
func TestGoSDKHTTPStatelessListenBroken(t *testing.T) {
	onOwn(t, gosdkStateless, false, func(t *testing.T, h *httpConn) {
		h.peer.proxy.cutOnce(h.id, afterEventWith(messages.MethodSubscriptionsListen, messages.NotificationSubscriptionsAcknowledged))
		callOK(t, h.c, "test_simple_text", nil)
		h.waitWire(t, "a second subscriptions/listen stream", func(ex exchange) bool {
			return ex.isPost(messages.MethodSubscriptionsListen) && !ex.Cut && ex.Status == http.StatusOK &&
				len(postsOf(h.wire(), messages.MethodSubscriptionsListen)) >= 2
		})
		checkGoSDKToolListChanged(t, h.c, h.rec)
		listens := postsOf(h.wire(), messages.MethodSubscriptionsListen)
		if !listens[0].Cut {
			t.Errorf("the first listen stream was not the one cut:\n%s", dumpExchanges(listens))
		}
	})
}

// TestGoSDKHTTPStatelessCancellation ends a call by its context: the caller
// gets the context's error, the call's POST is closed before its answer
// (closing the stream is the cancellation in this era), no
// notifications/cancelled is sent, and the connection stays good.
func TestGoSDKHTTPStatelessCancellation(t *testing.T) {
	onOwn(t, gosdkStateless, false, func(t *testing.T, h *httpConn) {
		c := h.c
		// Known tools first, so that the call's POST is the first thing
		// the cancelled call sends; and the subscriptions/listen request
		// running, which stays in flight for the connection's life.
		if _, err := c.ListTools(waitCtx(t)); err != nil {
			t.Fatal(err)
		}
		h.waitWire(t, "the subscriptions/listen stream", func(ex exchange) bool {
			return ex.isPost(messages.MethodSubscriptionsListen) && ex.Status == http.StatusOK
		})
		base := c.InFlight()
		mark := h.wireMark()
		// The call's context ends once its POST has reached the proxy;
		// test_tool_with_logging then takes 100 ms on the server.
		ctx, cancel := context.WithCancel(waitCtx(t))
		defer cancel()
		go func() {
			defer cancel()
			for ctx.Err() == nil {
				for _, ex := range h.wire() {
					if ex.StartSeq > mark && ex.isPost(messages.MethodToolsCall) {
						return
					}
				}
				time.Sleep(time.Millisecond)
			}
		}()
		if _, err := c.CallTool(ctx, "test_tool_with_logging", nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want the context's cancellation", err)
		}
		harness.WaitFor(t, "the cancelled call to leave the pending table", func() bool { return c.InFlight() == base })
		call := h.waitWire(t, "the end of the cancelled call's POST", func(ex exchange) bool {
			return ex.StartSeq > mark && ex.isPost(messages.MethodToolsCall) && ex.Done
		})
		if !call.ClientGone {
			t.Errorf("%s: the client did not close the call's stream", call)
		}
		if _, answered := findResponse(call.streamed(), call.Msg.ID); answered {
			t.Errorf("%s: the answer got through before the close: %.300s", call, call.Resp)
		}
		// A later call is answered, so the cancellation, had one been
		// POSTed when the call ended, would have reached the proxy.
		if got := resultText(callOK(t, c, "test_simple_text", nil)); got != "This is a simple text response for testing." {
			t.Errorf("after the cancellation: %q", got)
		}
		for _, ex := range h.wire() {
			if ex.isPost(messages.NotificationCancelled) {
				t.Errorf("%s: notifications/cancelled is not sent in this era over HTTP", ex)
			}
		}
	})
}

// TestGoSDKHTTPStatelessClose closes a client of the stateless era: Close
// returns nil, Done is closed, calls fail with ErrTransportClosed, a
// second Close is fine, the subscriptions/listen stream ends, and no
// DELETE is sent (there is no session to end).
func TestGoSDKHTTPStatelessClose(t *testing.T) {
	onOwn(t, gosdkStateless, false, func(t *testing.T, h *httpConn) {
		c := h.c
		callOK(t, c, "test_simple_text", nil)
		h.waitWire(t, "the subscriptions/listen stream", func(ex exchange) bool {
			return ex.isPost(messages.MethodSubscriptionsListen) && ex.Status == http.StatusOK
		})
		closeClient(t, c)
		h.waitAllDone(t)
		for _, ex := range h.wire() {
			if ex.Method == http.MethodDelete {
				t.Errorf("%s: no session to end in the stateless era", ex)
			}
		}
	})
}

// TestGoSDKHTTPStatelessMethodsOfTheEra: Ping is answered without a ping on
// the wire (the era has none), and NotifyRootsChanged says the era does
// not have it.
func TestGoSDKHTTPStatelessMethodsOfTheEra(t *testing.T) {
	onShared(t, gosdkStateless, func(t *testing.T, h *httpConn) {
		checkStatelessMethodsOfTheEra(t, h.c)
		for _, ex := range h.wire() {
			if ex.isPost(messages.MethodPing) || ex.isPost(messages.NotificationRootsListChanged) {
				t.Errorf("%s went on the wire in the stateless era", ex)
			}
		}
	})
}
