package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// The HTTP faults a real server commits (expired sessions, 5xx, streams
// cut short, bodies that are not JSON, slow or silent servers), against
// our test server's HTTP mode (the list: docs/features.md, section 1b). As for stdio: the caller gets the right result or a
// clear error, every request ends exactly once (concurrently), nothing
// hangs, nothing leaks (goleak; connections checked), and the connection
// survives where the fault is one request's.

// sessionAboutToExpire is a connection whose session the server answers
// once, the call it answered made: every later request meets a 404.
func sessionAboutToExpire(t *testing.T) (*httpPeer, *httpClient, string) {
	p := startHTTPPeer(t, testserver.Options{HTTPExpireAfter: 1})
	c := dialHTTP(t, p.url, clientOpts{})
	c.initialize(messages.Version20251125)
	session := c.conn.SessionID()
	c.mustEcho("the one call the session answers")
	return p, c, session
}

// A 404 to a request carrying the session id: the session is gone. Each
// request that meets it fails with messages.SessionExpiredError, and the owner is
// told once, however many met it.
func TestHTTPSessionExpired(t *testing.T) {
	p, c, session := sessionAboutToExpire(t)

	_, errs := concurrently(t, 8, func(i int) (string, error) { return c.echo(fmt.Sprint(i)) })
	for i, err := range errs {
		var se *callerr.Error
		if !(errors.As(err, &se) && callerr.SessionExpired(se) == se) || !errors.Is(err, errkind.ErrHTTP) || se.SessionID != session || se.Method != "tools/call" {
			t.Errorf("call %d: %v, want messages.SessionExpiredError", i, err)
		}
	}
	if n := ownerCount[SessionExpired](c.owner, 200*time.Millisecond); n != 1 {
		t.Errorf("the owner was told %d times, want once", n)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	// The session is gone: Close sends no DELETE for it.
	if d := p.exchanges(func(e testserver.HTTPExchange) bool { return e.Method == http.MethodDelete }); len(d) != 0 {
		t.Errorf("DELETE sent for an expired session: %+v", d)
	}
}

// A request that reaches an expired session's connection after that
// connection has closed (its caller took it just before the owner replaced
// it) was never sent: it fails as the session's refusals do, so that its
// caller sends it once on the new session, and not as "Transport closed",
// which no caller sends again.
func TestHTTPExpiredConnectionRefusesLateRequests(t *testing.T) {
	p, c, session := sessionAboutToExpire(t)
	if _, err := c.echo("refused"); callerr.SessionExpired(err) == nil {
		t.Fatalf("a call after the expiry: %v, want the session expired", err)
	}
	c.conn.BeginClose(errors.New("replaced by the next connection"))
	<-c.conn.Done()
	_, err := c.echo("late")
	var se *callerr.Error
	if !(errors.As(err, &se) && callerr.SessionExpired(se) == se) || se.SessionID != session || se.Status != http.StatusNotFound {
		t.Errorf("a call after the close: %v, want the session expired (HTTP 404)", err)
	}
	if d := p.exchanges(func(e testserver.HTTPExchange) bool { return e.RPCMethod == "tools/call" }); len(d) != 2 {
		t.Errorf("%d tools/call POSTs, want 2: the late call is not sent", len(d))
	}
}

// 500 and 503: the request fails with an ErrHTTP error status and is not sent
// again; the session survives and later calls work.
func TestHTTPServerErrorThenRecovery(t *testing.T) {
	for _, status := range []int{http.StatusInternalServerError, http.StatusServiceUnavailable} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			p := startHTTPPeer(t, testserver.Options{HTTPFailCalls: 3, HTTPFailStatus: status})
			c := dialHTTP(t, p.url, clientOpts{})
			c.initialize(messages.Version20251125)
			session := c.conn.SessionID()

			_, errs := concurrently(t, 3, func(i int) (string, error) { return c.echo(fmt.Sprint(i)) })
			for i, err := range errs {
				var he *callerr.Error
				if !(errors.As(err, &he) && callerr.HTTPStatus(he) == he) || !errors.Is(err, errkind.ErrHTTP) || he.Status != status ||
					he.RPC == nil || !strings.Contains(he.Error(), fmt.Sprint("HTTP ", status)) {
					t.Errorf("call %d: %v, want HTTP %d", i, err, status)
				}
			}
			c.mustEcho("recovered")
			if c.conn.SessionID() != session || c.conn.Err() != nil {
				t.Errorf("session %q (was %q), transport %v", c.conn.SessionID(), session, c.conn.Err())
			}
			if n := ownerCount[SessionExpired](c.owner, 0); n != 0 {
				t.Errorf("SessionExpired on a %d", status)
			}
			// Four calls, four POSTs: none was sent again.
			posts := p.exchanges(isCall)
			ids := map[string]bool{}
			for _, e := range posts {
				if ids[e.RPCID] {
					t.Errorf("request %s sent twice", e.RPCID)
				}
				ids[e.RPCID] = true
			}
			if len(posts) != 4 {
				t.Errorf("%d tools/call POSTs, want 4", len(posts))
			}
		})
	}
}

// A stream closed before its response, events with ids: the transport
// resumes it with a GET carrying Last-Event-ID (and the session), the call
// gets its answer, and the request is never POSTed again.
func TestHTTPStreamResumed(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{HTTPStream: true, HTTPDropStreams: 4})
	c := dialHTTP(t, p.url, clientOpts{tune: func(cfg *HTTPConfig) { cfg.RetryDelay = 10 * time.Millisecond }})
	c.initialize(messages.Version20251125)
	texts, errs := concurrently(t, 4, func(i int) (string, error) {
		return c.call(harness.Context(t), "progress", map[string]any{"steps": 2, "intervalMs": 5}, RequestOptions{})
	})
	for i := range texts {
		if errs[i] != nil || texts[i] != "done" {
			t.Errorf("call %d: %q, %v", i, texts[i], errs[i])
		}
	}
	resumes := p.exchanges(func(e testserver.HTTPExchange) bool { return e.Method == http.MethodGet && e.LastEventID != "" })
	if len(resumes) != 4 {
		t.Errorf("%d resumptions, want 4", len(resumes))
	}
	for _, e := range resumes {
		if e.SessionID != c.conn.SessionID() || e.Status != http.StatusOK {
			t.Errorf("resumption %+v", e)
		}
	}
	if n := len(p.exchanges(isCall)); n != 4 {
		t.Errorf("%d tools/call POSTs, want 4 (a resumption is a GET, never a new POST)", n)
	}
	c.mustEcho("the stream after")
}

// A stream closed before its response with no event ids cannot be
// resumed: the call fails at once with messages.NoResponseError, never hangs, and
// the connection lives on.
func TestHTTPStreamClosedWithoutIDs(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{HTTPStream: true, HTTPDropStreams: 1, HTTPNoEventIDs: true})
	c := dialHTTP(t, p.url, clientOpts{})
	c.initialize(messages.Version20251125)
	start := time.Now()
	_, err := c.echo("lost")
	var nr *callerr.Error
	if !(errors.As(err, &nr) && callerr.NoResponse(nr) == nr) || !errors.Is(err, errkind.ErrHTTP) || !nr.ID.IsValid() || !strings.Contains(err.Error(), "no ids") {
		t.Fatalf("got %v, want messages.NoResponseError", err)
	}
	if d := time.Since(start); d > harness.Bound/2 {
		t.Errorf("it took %v", d)
	}
	if n := len(p.exchanges(func(e testserver.HTTPExchange) bool { return e.LastEventID != "" })); n != 0 {
		t.Errorf("%d resumptions of a stream without ids", n)
	}
	c.mustEcho("next")
}

// retry: is honoured: the resumption waits at least the server's value
// (and not wildly more), whatever the client's own delay.
func TestHTTPRetryHonoured(t *testing.T) {
	const retry = 400 * time.Millisecond
	p := startHTTPPeer(t, testserver.Options{HTTPStream: true, HTTPDropStreams: 1, HTTPRetry: retry})
	c := dialHTTP(t, p.url, clientOpts{tune: func(cfg *HTTPConfig) { cfg.RetryDelay = 5 * time.Millisecond }})
	c.initialize(messages.Version20251125)
	c.mustEcho("after the wait")
	posts := p.exchanges(isCall)
	gets := p.exchanges(func(e testserver.HTTPExchange) bool { return e.LastEventID != "" })
	if len(posts) != 1 || len(gets) != 1 {
		t.Fatalf("%d POSTs and %d resumptions", len(posts), len(gets))
	}
	// The client saw the stream end only after the handler returned.
	waited := gets[0].Start.Sub(posts[0].End)
	if waited < retry-20*time.Millisecond || waited > retry+5*time.Second {
		t.Errorf("resumed %v after the stream closed, want about %v", waited, retry)
	}
}

// The GET listener answered 405, 404, or 200 with JSON: tolerated, tried
// once, and the transport works on.
func TestHTTPGetListenerRefused(t *testing.T) {
	for _, status := range []int{http.StatusMethodNotAllowed, http.StatusNotFound, http.StatusOK} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			p := startHTTPPeer(t, testserver.Options{HTTPGetStatus: status})
			c := dialHTTP(t, p.url, clientOpts{})
			c.initialize(messages.Version20251125)
			c.conn.Listen(harness.Context(t))
			c.mustEcho("still working")
			time.Sleep(50 * time.Millisecond) // room for a wrong retry
			gets := p.exchanges(func(e testserver.HTTPExchange) bool { return e.Method == http.MethodGet })
			if len(gets) != 1 || gets[0].Status != status {
				t.Errorf("GETs %+v, want one answered %d", gets, status)
			}
			if c.conn.Err() != nil || ownerCount[SessionExpired](c.owner, 0) != 0 {
				t.Errorf("transport %v", c.conn.Err())
			}
		})
	}
}

// A body that is not JSON: messages.BadBodyError naming the server and showing the
// start of the body (the text of an HTML page, in one line); the
// connection lives on.
func TestHTTPBodyNotJSON(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{HTTPNotJSON: true})
	c := dialHTTP(t, p.url, clientOpts{})
	c.initialize(messages.Version20251125)
	_, errs := concurrently(t, 4, func(i int) (string, error) { return c.echo("x") })
	for _, err := range errs {
		var bb *callerr.Error
		if !(errors.As(err, &bb) && callerr.BadBody(bb) == bb) || !errors.Is(err, errkind.ErrHTTP) || bb.Server != "ts-http" ||
			!strings.HasPrefix(bb.Body, "502 Bad Gateway") || !strings.Contains(err.Error(), `"ts-http"`) ||
			!strings.Contains(err.Error(), "502 Bad Gateway") || strings.ContainsAny(err.Error(), "<\n") {
			t.Fatalf("got %v, want messages.BadBodyError", err)
		}
	}
	if _, err := c.conn.Call(harness.Context(t), messages.MethodPing, nil, RequestOptions{}); err != nil {
		t.Errorf("ping after: %v", err)
	}
}

// A body that trickles forever: the call's timeout holds, the POST is
// aborted and its connection closed.
func TestHTTPSlowLorisBody(t *testing.T) {
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprint("sse=", sse), func(t *testing.T) {
			p := startHTTPPeer(t, testserver.Options{HTTPSlowBody: true, HTTPStream: sse})
			c := dialHTTP(t, p.url, clientOpts{})
			c.initialize(messages.Version20251125)
			const timeout = 300 * time.Millisecond
			start := time.Now()
			_, err := c.call(harness.Context(t), "echo", map[string]any{"message": "x"}, RequestOptions{Timeout: timeout})
			took := time.Since(start)
			var te *callerr.Error
			if !(errors.As(err, &te) && callerr.Timeout(te) == te) || te.After != timeout {
				t.Fatalf("got %v, want a timeout", err)
			}
			if took < timeout || took > timeout+5*time.Second {
				t.Errorf("the call ended after %v, its timeout being %v", took, timeout)
			}
			harness.WaitFor(t, "the server's handler to see the client leave", func() bool { return p.h.Active() == 0 })
			c.noConnectionLeft()
		})
	}
}

// A server that never answers: the timeout fails the call, the server is
// sent notifications/cancelled, and the POST is aborted.
func TestHTTPNeverAnswers(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{NeverAnswer: true})
	c := dialHTTP(t, p.url, clientOpts{})
	c.initialize(messages.Version20251125)
	_, errs := concurrently(t, 5, func(i int) (string, error) {
		return c.call(harness.Context(t), "echo", map[string]any{"message": "x"}, RequestOptions{Timeout: 200 * time.Millisecond})
	})
	for _, err := range errs {
		if !errors.Is(err, errkind.ErrTimeout) {
			t.Fatalf("got %v, want a timeout", err)
		}
	}
	harness.WaitFor(t, "five cancellations", func() bool {
		return len(p.exchanges(func(e testserver.HTTPExchange) bool {
			return e.RPCMethod == messages.NotificationCancelled && e.Status == http.StatusAccepted
		})) == 5
	})
	harness.WaitFor(t, "the server's handlers to see the client leave", func() bool { return p.h.Active() == 0 })
	c.noConnectionLeft()
	if _, err := c.conn.Call(harness.Context(t), messages.MethodPing, nil, RequestOptions{}); err != nil {
		t.Errorf("ping after: %v", err)
	}
}

// A server that does not read the request body (nor answer): the write of
// a large body stalls, and still the call's timeout holds, the POST is
// aborted, and the other requests are unharmed.
func TestHTTPServerIgnoresBody(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{HTTPIgnoreBodyOver: 64 << 10})
	c := dialHTTP(t, p.url, clientOpts{})
	c.initialize(messages.Version20251125)
	const timeout = 400 * time.Millisecond
	big := strings.Repeat("x", 8<<20) // more than the socket buffers take
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := c.call(harness.Context(t), "echo", map[string]any{"message": big}, RequestOptions{Timeout: timeout})
		done <- err
	}()
	c.mustEcho("beside the stuck one")
	select {
	case err := <-done:
		if !errors.Is(err, errkind.ErrTimeout) {
			t.Fatalf("got %v, want a timeout", err)
		}
		if took := time.Since(start); took > timeout+5*time.Second {
			t.Errorf("the call ended after %v", took)
		}
	case <-time.After(harness.Bound):
		t.Fatal("the call did not end")
	}
	// The server cannot see the client leave (it never read the body);
	// the client must not keep the connection.
	c.noConnectionLeft()
}

// Close with requests in flight: each ends once with Transport closed,
// the listener and the POSTs are aborted, and the session is ended with a
// DELETE carrying its id.
func TestHTTPCloseWithRequestsInFlight(t *testing.T) {
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprint("sse=", sse), func(t *testing.T) {
			p := startHTTPPeer(t, testserver.Options{NeverAnswer: true, HTTPStream: sse})
			c := dialHTTP(t, p.url, clientOpts{})
			c.initialize(messages.Version20251125)
			c.conn.Listen(harness.Context(t))
			session := c.conn.SessionID()
			const n = 20
			go func() {
				harness.WaitFor(t, "the calls to reach the server", func() bool { return len(p.exchanges(isCall)) == n })
				c.conn.BeginClose(nil)
			}()
			_, errs := concurrently(t, n, func(i int) (string, error) { return c.echo(fmt.Sprint(i)) })
			for i, err := range errs {
				var tc *callerr.Error
				if !(errors.As(err, &tc) && callerr.TransportClosed(tc) == tc) || !errors.Is(err, errkind.ErrTransportClosed) || !tc.Closed {
					t.Errorf("call %d: %v, want Transport closed", i, err)
				}
			}
			select {
			case <-c.conn.Done():
			case <-time.After(harness.Bound):
				t.Fatal("the transport did not end")
			}
			deletes := p.exchanges(func(e testserver.HTTPExchange) bool { return e.Method == http.MethodDelete })
			if len(deletes) != 1 || deletes[0].SessionID != session {
				t.Errorf("DELETEs %+v, want one for %s", deletes, session)
			}
			if _, err := c.echo("after"); !errors.Is(err, errkind.ErrTransportClosed) {
				t.Errorf("a call after Close: %v", err)
			}
			harness.WaitFor(t, "the server's handlers to end", func() bool { return p.h.Active() == 0 })
			c.noConnectionLeft()
		})
	}
}

// An answer over the frame cap, as a JSON body or an SSE event, fails its
// request with FrameTooLargeError; a notification over it is skipped and
// counted; the connection lives on.
func TestHTTPFrameOverCap(t *testing.T) {
	const limit = 64 << 10
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprint("sse=", sse), func(t *testing.T) {
			p := startHTTPPeer(t, testserver.Options{HTTPStream: sse, HugeFrameBytes: 2 * limit})
			c := dialHTTP(t, p.url, clientOpts{tune: func(cfg *HTTPConfig) { cfg.MaxFrameSize = limit }})
			c.initialize(messages.Version20251125)
			c.conn.Listen(harness.Context(t)) // where the JSON answer's huge notification goes
			c.mustEcho("after a huge notification")
			harness.WaitFor(t, "the huge notification to be counted", func() bool { return c.conn.Stats()[Oversized] == 1 })

			_, errs := concurrently(t, 3, func(i int) (string, error) {
				return c.call(harness.Context(t), "big", map[string]any{"bytes": limit + i}, RequestOptions{})
			})
			for i, err := range errs {
				var fe *callerr.Error
				if !(errors.As(err, &fe) && callerr.FrameTooLarge(fe) == fe) || !errors.Is(err, errkind.ErrBadResponse) || fe.Limit != limit || fe.ID.String() == "" {
					t.Errorf("call %d: %v, want FrameTooLargeError", i, err)
				}
			}
			if got, err := c.call(harness.Context(t), "big", map[string]any{"bytes": limit - 100}, RequestOptions{}); err != nil || len(got) != limit-100 {
				t.Errorf("an answer under the cap: %d bytes, %v", len(got), err)
			}
			c.mustEcho("still alive")
			if st := c.conn.Stats(); st[Oversized] != 4 {
				t.Errorf("oversized %d, want 4", st[Oversized])
			}
		})
	}
}

// A call whose context ends while its POST is in flight is cancelled on
// the wire and its POST aborted, exactly as a timeout is.
func TestHTTPCallCanceled(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{HTTPStream: true})
	c := dialHTTP(t, p.url, clientOpts{})
	c.initialize(messages.Version20251125)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := c.call(ctx, "sleep", map[string]any{"ms": 60000}, RequestOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want canceled", err)
	}
	harness.WaitFor(t, "the cancellation and the abort", func() bool {
		return p.h.Active() == 0 && len(p.exchanges(func(e testserver.HTTPExchange) bool {
			return e.RPCMethod == messages.NotificationCancelled
		})) == 1
	})
	c.noConnectionLeft()
}

// A notification (or an answer to the server) whose POST the server never
// reads nor answers: it ends with the request timeout, and Close does not
// wait for it.
func TestHTTPNotificationNeverAnswered(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{HTTPIgnoreBodyOver: 64 << 10})
	// Over the server's threshold, well under the write budget.
	big, _ := json.Marshal(map[string]any{"data": strings.Repeat("x", 256<<10)})
	t.Run("timeout", func(t *testing.T) {
		c := dialHTTP(t, p.url, clientOpts{tune: func(cfg *HTTPConfig) { cfg.RequestTimeout = 300 * time.Millisecond }})
		c.initialize(messages.Version20251125)
		if err := c.conn.Notify(harness.Context(t), "notifications/big", big); err != nil {
			t.Fatal(err)
		}
		c.mustEcho("beside it")
		c.noConnectionLeft() // the stuck POST was aborted at its timeout
	})
	t.Run("close", func(t *testing.T) {
		c := dialHTTP(t, p.url, clientOpts{})
		c.initialize(messages.Version20251125)
		if err := c.conn.Notify(harness.Context(t), "notifications/big", big); err != nil {
			t.Fatal(err)
		}
		c.conn.RespondNow(messages.Int64ID(7), big, nil)
		c.mustEcho("beside them")
		start := time.Now()
		if err := c.close(); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("Close took %v", took)
		}
		c.noConnectionLeft()
	})
}

// The GET listener meeting a 404 after its stream had worked: the session
// is gone, and the owner is told (an idle client would otherwise stop
// hearing the server without knowing). A 404 to the first GET only means
// there is no GET route (TestHTTPGetListenerRefused).
func TestHTTPListenerSessionExpired(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{})
	c := dialHTTP(t, p.url, clientOpts{tune: func(cfg *HTTPConfig) { cfg.RetryDelay = 10 * time.Millisecond }})
	c.initialize(messages.Version20251125)
	c.conn.Listen(harness.Context(t))
	harness.WaitFor(t, "notifications/initialized to be taken", func() bool {
		return len(p.exchanges(func(e testserver.HTTPExchange) bool {
			return e.RPCMethod == messages.NotificationInitialized && e.Status == http.StatusAccepted
		})) == 1
	})
	p.h.EndSessions()
	ownerNext[SessionExpired](t, c.owner)
	if n := ownerCount[SessionExpired](c.owner, 100*time.Millisecond); n != 0 {
		t.Errorf("told %d more times", n)
	}
	if _, err := c.echo("x"); !errors.Is(err, errkind.ErrHTTP) {
		t.Errorf("a call after: %v", err)
	}
	if n := ownerCount[SessionExpired](c.owner, 100*time.Millisecond); n != 0 {
		t.Errorf("told again by the call: %d", n)
	}
	gets := p.exchanges(func(e testserver.HTTPExchange) bool { return e.Method == http.MethodGet })
	if len(gets) != 2 || gets[1].Status != http.StatusNotFound {
		t.Errorf("GETs %+v", gets)
	}
}

// A GET stream whose connection the server closes after a few events (the
// polling of 2025-11-25): the listener reconnects after retry:, resumes
// with Last-Event-ID, and every notification reaches the owner once, in
// order.
func TestHTTPListenerResumes(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{HTTPGetCloseAfter: 2, HTTPRetry: 20 * time.Millisecond})
	c := dialHTTP(t, p.url, clientOpts{})
	c.initialize(messages.Version20251125)
	c.conn.Listen(harness.Context(t))
	const n = 7
	for i := range n {
		if _, err := c.call(harness.Context(t), "notify", map[string]any{"method": fmt.Sprint("notifications/n", i)}, RequestOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if got := ownerNext[InboundNotification](t, c.owner); got.Method != fmt.Sprint("notifications/n", i) {
			t.Fatalf("notification %d: %s", i, got.Method)
		}
	}
	if extra := ownerCount[InboundNotification](c.owner, 100*time.Millisecond); extra != 0 {
		t.Errorf("%d notifications delivered twice", extra)
	}
	gets := p.exchanges(func(e testserver.HTTPExchange) bool { return e.Method == http.MethodGet })
	if len(gets) < 4 {
		t.Fatalf("%d GETs, want the listener to have reconnected", len(gets))
	}
	for _, e := range gets[1:] {
		if e.LastEventID == "" || e.SessionID != c.conn.SessionID() {
			t.Errorf("reconnection without Last-Event-ID or session: %+v", e)
		}
	}
}

// The session ends while a broken stream waits to be resumed: the
// resumption meets 404. The request fails clearly (the server may have
// acted on it, so it is no messages.SessionExpiredError), and the owner is told
// that the session is gone.
func TestHTTPResumptionSessionExpired(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{HTTPStream: true, HTTPDropStreams: 1, HTTPRetry: 400 * time.Millisecond})
	c := dialHTTP(t, p.url, clientOpts{})
	c.initialize(messages.Version20251125)
	go func() {
		harness.WaitFor(t, "the stream to be dropped", func() bool {
			posts := p.exchanges(isCall)
			return len(posts) == 1 && !posts[0].End.IsZero()
		})
		p.h.EndSessions()
	}()
	_, err := c.echo("x")
	var nr *callerr.Error
	if !(errors.As(err, &nr) && callerr.NoResponse(nr) == nr) || !strings.Contains(err.Error(), "404") {
		t.Fatalf("got %v, want messages.NoResponseError after a 404", err)
	}
	ownerNext[SessionExpired](t, c.owner)
	if _, err := c.echo("y"); !errors.Is(err, errkind.ErrHTTP) {
		t.Errorf("the next call: %v", err)
	}
	if n := ownerCount[SessionExpired](c.owner, 100*time.Millisecond); n != 0 {
		t.Errorf("told %d more times", n)
	}
}
