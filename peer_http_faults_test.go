package mcpactor_test

// The session era over HTTP against the go-sdk server when the connection
// breaks: a stream the server closes mid-call, a session the server
// forgets, a GET listener that breaks. (What Runtime.Stop leaves:
// TestStopLeavesNothing.)

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
)

// TestHTTPStreamClosedMidCall calls test_reconnection, whose handler closes
// its SSE stream mid-call (SEP-1699) and answers 100 ms later. Run as
// shipped, this server has no event store (StreamableHTTPOptions without
// EventStore in conformance/everything-server/main.go), so its streams
// carry no event ids: no priming event, and the "close" event it ends the
// stream with holds only "retry: 10". A stream without an id cannot be
// resumed (a resuming GET needs Last-Event-ID), and the server drops the
// answer once the stream is gone
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery).
// So the call fails at once with a NoResponseError that says why, the
// request is not POSTed again (a tool call may not be idempotent), and the
// connection stays good. Resumption itself is tested against
// server-everything, which has an event store (TestBrokenStream).
func TestHTTPStreamClosedMidCall(t *testing.T) {
	run(t, func(t *testing.T, pc *peerConn) {
		h := pc.http
		_, err := h.c.CallTool(waitCtx(t), "test_reconnection", nil)
		var nr *mcpactor.Error
		if !(errors.As(err, &nr) && callerr.NoResponse(nr) == nr) || !strings.Contains(err.Error(), "no ids to resume from") {
			t.Fatalf("err = %v (%T), want a NoResponseError saying the stream had no ids", err, err)
		}
		exs := h.wire()
		calls := postsOf(exs, messages.MethodToolsCall)
		if len(calls) != 1 {
			t.Fatalf("the call was POSTed %d times:\n%s", len(calls), dumpExchanges(exs))
		}
		closing := sseEvents(calls[0].Resp)
		if len(closing) == 0 || closing[len(closing)-1].event != "close" || closing[len(closing)-1].hasID {
			t.Errorf("the stream's events %+v: want it to end with a close event without an id", closing)
		}
		for _, ex := range exs {
			if ex.Header.Get("Last-Event-ID") != "" {
				t.Errorf("%s: a resumption without an event id to resume from", ex)
			}
		}
		if got := resultText(callOK(t, h.c, "test_simple_text", nil)); got != "This is a simple text response for testing." {
			t.Errorf("after the failed call: %q", got)
		}

	}, gosdkHTTP.own(true))
}

// TestHTTPSessionExpired ends the client's session behind its back
// (a DELETE with its session id, as an idle timeout or a server restart
// would), then calls a tool. The server answers the call 404 (the session
// is gone, so the request was not processed); the runtime starts a new
// session (initialize without a session id, no second probe: the era is
// remembered) and sends the call once more on it
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
// The caller sees only the answer; the connection is generation 2.
func TestHTTPSessionExpired(t *testing.T) {
	run(t, func(t *testing.T, pc *peerConn) {
		h := pc.http
		c := h.c
		callOK(t, c, "test_simple_text", nil)
		old := sessionGiven(h.wire())
		req, err := http.NewRequest(http.MethodDelete, h.cfg.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Mcp-Session-Id", old)
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("ending the session behind the client's back: %d", resp.StatusCode)
		}
		mark := h.wireMark()

		if got := resultText(callOK(t, c, "test_simple_text", nil)); got != "This is a simple text response for testing." {
			t.Errorf("after the session expired: %q", got)
		}
		if n := c.Generation().Number; n != 2 {
			t.Errorf("generation %d, want 2 (one new session)", n)
		}
		var after []exchange
		for _, ex := range h.wire() {
			if ex.StartSeq > mark {
				after = append(after, ex)
			}
		}
		calls := postsOf(after, messages.MethodToolsCall)
		inits := postsOf(after, messages.MethodInitialize)
		if len(calls) != 2 || len(inits) != 1 || len(postsOf(after, messages.MethodServerDiscover)) != 0 {
			t.Fatalf("want the call, one initialize (no probe), the call again:\n%s", dumpExchanges(after))
		}
		if calls[0].Status != http.StatusNotFound || calls[0].Header.Get("Mcp-Session-Id") != old {
			t.Errorf("%s: want 404 to the old session", calls[0])
		}
		fresh := sessionGiven(after)
		if fresh == "" || fresh == old || inits[0].Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("new session %q (old %q); initialize carried %q", fresh, old, inits[0].Header.Get("Mcp-Session-Id"))
		}
		// The call carrying the new session's id is what shows it came
		// after initialize's answer, which alone gave that id: the
		// proxy's end of the initialize exchange is noted when its
		// handler returns, which a client that has read the answer
		// from the event stream need not wait for.
		if calls[1].StartSeq < inits[0].StartSeq || calls[1].Header.Get("Mcp-Session-Id") != fresh {
			t.Errorf("%s: want the call again, after initialize, on the new session %q", calls[1], fresh)
		}
		if !bytes.Equal(stripID(calls[0].Body), stripID(calls[1].Body)) {
			t.Errorf("the call sent again differs:\n%s\n%s", calls[0].Body, calls[1].Body)
		}
		// The old session's GET listener ends with its generation.
		harness.WaitFor(t, "the end of the old session's listener", func() bool {
			for _, ex := range h.wire() {
				if ex.Header.Get("Mcp-Session-Id") == old && !ex.Done {
					return false
				}
			}
			return true
		})

	}, gosdkHTTP.own(false))
}

// stripID removes a request's id from its body, to compare a request with
// the same request sent again under a new id.
func stripID(body []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	delete(m, "id")
	out, _ := json.Marshal(m)
	return out
}

// TestHTTPListenerBroken breaks the GET listener, as a network
// failure would, right after it delivered a resources/updated of a
// subscription: the runtime opens the listener again (without
// Last-Event-ID: this server's events have no ids), and the next update
// comes on the new one. A connection of its own: subscriptions are the
// session's.
func TestHTTPListenerBroken(t *testing.T) {
	run(t, func(t *testing.T, pc *peerConn) {
		h := pc.http
		c, rec := h.c, h.rec
		ctx := waitCtx(t)
		// The listener opened during Connect; the next piece it passes
		// is the first update, and the connection is closed after it.
		h.peer.proxy.cutOnce(h.id, func(ex *exchange) int {
			if ex.Method == http.MethodGet && bytes.Contains(ex.Resp, []byte(messages.NotificationResourcesUpdated)) {
				return len(ex.Resp)
			}
			return -1
		})
		const uri = "test://watched-resource"
		if err := c.Subscribe(ctx, uri); err != nil {
			t.Fatalf("Subscribe: %v", err)
		}
		// The server updates the resource every 3 s.
		h.waitWire(t, "the listener cut", func(ex exchange) bool { return ex.Method == http.MethodGet && ex.Cut && ex.Done })
		h.waitWire(t, "a new listener", func(ex exchange) bool { return ex.Method == http.MethodGet && !ex.Cut && ex.Status == http.StatusOK })
		mark := rec.notes.mark()
		n := rec.notes.waitAfter(t, mark, messages.NotificationResourcesUpdated, isMethod(messages.NotificationResourcesUpdated))
		var p messages.ResourceUpdatedParams
		if err := json.Unmarshal(n.Params, &p); err != nil || p.URI != uri {
			t.Errorf("resources/updated params %s (%v)", n.Params, err)
		}
		var gets []exchange
		for _, ex := range h.wire() {
			if ex.Method == http.MethodGet {
				gets = append(gets, ex)
			}
		}
		last := gets[len(gets)-1]
		if _, ok := last.carries(messages.NotificationResourcesUpdated); !ok || last.Cut {
			t.Errorf("the update after the break did not come on a new listener:\n%s", dumpExchanges(gets))
		}
		for _, ex := range gets {
			if ex.Header.Get("Last-Event-ID") != "" {
				t.Errorf("%s: resumed without an event id to resume from", ex)
			}
		}
		if err := c.Unsubscribe(ctx, uri); err != nil {
			t.Errorf("Unsubscribe: %v", err)
		}

	}, gosdkHTTP.own(true))
}
