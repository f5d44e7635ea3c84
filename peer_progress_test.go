package mcpactor_test

// Progress, timeouts, cancellation and broken streams against the
// independent peers, one row per peer and transport (peer_rows_test.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
)

// TestProgress receives every progress notification of a call, in order,
// with the token the server was given, and none after the call returned
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress).
func TestProgress(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		if p.peer == everythingServer {
			checkEverythingProgress(t, p.c)
			return
		}
		checkGoSDKProgress(t, p.c)
	}, everythingStdio, everythingStreamable, everythingSSE, gosdkStdio, gosdkHTTP, gosdkStdioStateless, gosdkHTTPStateless)
}

// checkEverythingProgress calls trigger-long-running-operation with four
// steps and checks its progress and result.
func checkEverythingProgress(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	res, p, err := callWithProgress(waitCtx(t), c, "trigger-long-running-operation", map[string]any{"duration": 2, "steps": 4})
	if err != nil {
		t.Fatalf("CallToolWith: %v", err)
	}
	if got := resultText(res); got != "Long running operation completed. Duration: 2 seconds, Steps: 4." {
		t.Errorf("result = %q", got)
	}
	p.check(t, []float64{1, 2, 3, 4}, 4)
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

// TestProgressOfConcurrentCalls makes calls with progress at once: each
// call gets its own progress.
func TestProgressOfConcurrentCalls(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		if p.peer == everythingServer {
			checkEverythingProgressOfConcurrentCalls(t, p.c)
			return
		}
		checkGoSDKProgressOfConcurrentCalls(t, p.c)
	}, everythingStdio, everythingStreamable, everythingSSE, gosdkStdio, gosdkHTTP)
}

// checkEverythingProgressOfConcurrentCalls makes two calls with progress,
// in flight at once, and checks that each callback got its own call's
// progress.
func checkEverythingProgressOfConcurrentCalls(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	type run struct {
		steps int
		p     *progressRecorder
	}
	runs := []*run{{steps: 4}, {steps: 3}}
	if n := c.InFlight(); n != 0 {
		t.Fatalf("%d calls in flight before the test", n)
	}
	var wg sync.WaitGroup
	defer wg.Wait() // the calls end before the test does, even if it fails
	for _, r := range runs {
		wg.Go(func() {
			var err error
			_, r.p, err = callWithProgress(ctx, c, "trigger-long-running-operation", map[string]any{"duration": 1.5, "steps": r.steps})
			if err != nil {
				t.Errorf("%d steps: %v", r.steps, err)
			}
		})
	}
	// Each call lasts 1.5 s on the server: both are in flight at once.
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

// TestTimeout ends a call at its timeout; over HTTP the call is then
// cancelled on the wire (cancelledOnWire).
func TestTimeout(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		if h == nil {
			checkEverythingTimeout(t, p.c)
			return
		}
		mark := h.wireMark()
		checkEverythingTimeout(t, h.c)
		cancelledOnWire(t, h, mark)

	}, everythingStdio, everythingStreamable, everythingSSE)
}

// checkEverythingTimeout times a call to server-everything out and checks
// the error, the pending table and the connection after it.
func checkEverythingTimeout(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	_, err := c.CallToolWith(ctx, "trigger-long-running-operation",
		map[string]any{"duration": 6, "steps": 2}, mcpactor.CallOptions{Timeout: 300 * time.Millisecond})
	var te *callerr.Error
	if !(errors.As(err, &te) && callerr.Timeout(te) == te) {
		t.Fatalf("err = %v (%T), want *callerr.Error", err, err)
	}
	want := `MCP server "` + everythingServer + `": tools/call (id ` + te.ID.String() + `): Request timeout after 300ms`
	if !errors.Is(err, mcpactor.ErrTimeout) || err.Error() != want {
		t.Errorf("err = %q, want errors.Is ErrTimeout and %q", err, want)
	}
	if te.Method != messages.MethodToolsCall || te.Server != everythingServer {
		t.Errorf("TimeoutError = %+v", te)
	}
	// The call ended for us although the server is still running it.
	harness.WaitFor(t, "the timed-out call to leave the pending table", func() bool { return c.InFlight() == 0 })
	// The connection is still good.
	callOK(t, c, "echo", map[string]any{"message": "after timeout"})
}

// TestCancel ends a call by its context
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation).
//
// server-everything: the caller gets the context's error and
// notifications/cancelled goes to the server (over HTTP, on the wire with
// the call's id).
//
// The go-sdk server in the stateless era: over stdio the era still sends
// notifications/cancelled, and the connection stays good. Over HTTP the
// call's POST is closed before its answer (closing the stream is the
// cancellation in this era), no notifications/cancelled is sent, and the
// connection stays good (a connection of its own).
func TestCancel(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		switch {
		case p.peer == everythingServer && h == nil:
			checkEverythingCancel(t, p.c)
		case p.peer == everythingServer:
			mark := h.wireMark()
			checkEverythingCancel(t, h.c)
			cancelledOnWire(t, h, mark)

		case p.sent != nil:
			c, w := p.c, p.sent
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			if _, err := c.CallTool(ctx, "test_tool_with_logging", nil); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("got %v", err)
			}
			harness.WaitFor(t, "notifications/cancelled on the wire", func() bool {
				for _, m := range w.sent(t) {
					if m.Method == messages.NotificationCancelled {
						return true
					}
				}
				return false
			})
			if _, err := c.CallTool(waitCtx(t), "test_simple_text", nil); err != nil {
				t.Errorf("after the cancellation: %v", err)
			}

		default:
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

		}
	}, everythingStdio, everythingStreamable, everythingSSE, gosdkStdioStateless, gosdkHTTPStateless.own(false))
}

// checkEverythingCancel cancels a call to server-everything at its first
// progress and checks the error, the pending table and the connection
// after it.
func checkEverythingCancel(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx, cancel := context.WithCancel(waitCtx(t))
	defer cancel()
	_, err := c.CallToolWith(ctx, "trigger-long-running-operation",
		map[string]any{"duration": 4, "steps": 4},
		mcpactor.CallOptions{OnProgress: func(messages.ProgressParams) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var ce *callerr.Error
	if !(errors.As(err, &ce) && callerr.Canceled(ce) == ce) || ce.Method != messages.MethodToolsCall {
		t.Errorf("err = %#v, want a *callerr.Error for tools/call", err)
	}
	harness.WaitFor(t, "the cancelled call to leave the pending table", func() bool { return c.InFlight() == 0 })
	callOK(t, c, "echo", map[string]any{"message": "after cancel"})
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

// TestBrokenStream breaks a call's response stream, as a network failure
// would (the proxy closes the connection), each row on a connection of its
// own.
//
// server-everything over Streamable HTTP: breaks the stream of a call with progress
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
//
// The go-sdk server in the stateless era: it breaks a call's response stream after
// its first progress event, as a network failure would (the proxy closes
// the connection). The 2026-07-28 era has no resumption: the runtime issues
// the request again, once, with a new id and the same params, and the
// caller gets the result
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http).
// No GET with Last-Event-ID, no notifications/cancelled. The caller's
// OnProgress must still see one call's progress, increasing
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress:
// "The progress value MUST increase with each notification").
func TestBrokenStream(t *testing.T) {
	run(t, func(t *testing.T, pc *peerConn) {
		h := pc.http
		if pc.peer == everythingServer {
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

			return
		}
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

	}, everythingStreamable.own(true), gosdkHTTPStateless.own(false))
}
