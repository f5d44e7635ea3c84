package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// The HTTP matrix: the test server's HTTP faults (internal/testserver,
// Options' HTTP fields) against each client's own HTTP transport. Every
// cell connects to a fresh in-process server (http_peer.go), runs its
// fault, closes the client, and then looks at what the client left behind:
// its goroutines and the server's open connections (leftAfterClose).

var httpScenarios = []scenario{
	{1, "session expired (the server forgets it; 404) after a call: a 2nd call, then a 3rd", scSessionExpired},
	{2, "session expired (404) under 8 concurrent calls, then one more call", scSessionExpiredConcurrent},
	{3, "500 on a call, then a 2nd call", scHTTPFail(http.StatusInternalServerError)},
	{4, "503 (Retry-After: 1) on a call, then a 2nd call", scHTTPFail(http.StatusServiceUnavailable)},
	{5, "SSE stream closed before the response, events with ids (progress call)", scStreamDropped},
	{6, "SSE stream closed before the response, no event ids (" + secs(noAnswerTimeout) + " call timeout), then a 2nd call", scStreamNoIDs},
	{7, "`retry: " + strconv.Itoa(int(retryField/time.Millisecond)) + "` before a stream closes early: when is it resumed?", scRetryHonoured},
	{8, "GET listener answered 405", scGetRefused(http.StatusMethodNotAllowed)},
	{9, "GET listener answered 404", scGetRefused(http.StatusNotFound)},
	{10, "GET listener answered 200 with a JSON body", scGetRefused(http.StatusOK)},
	{11, "body not JSON (200, application/json, an HTML page), then tools/list", scNotJSON},
	{12, "slow-loris JSON body (1 byte per 20 ms, 1 s call timeout), then tools/list", scSlowBody(false)},
	{13, "slow-loris SSE event (1 byte per 20 ms, 1 s call timeout), then tools/list", scSlowBody(true)},
	{14, "server never answers (1 s call timeout): cancelled sent? then tools/list", scHTTPNeverAnswers},
	{15, "Close with 20 calls in flight (server never answers; " + secs(inFlightDeadline) + " call deadline)", scHTTPCloseInFlight},
	{16, "server restarts mid-call (crash tool: connections aborted, session forgotten; " + secs(crashCallTimeout) + " call deadline), sleep call in flight, then a 3rd call", scHTTPCrash(false)},
	{17, "legacy HTTP+SSE transport: echo and tools/list", scLegacySSE},
	{18, "legacy HTTP+SSE: the event stream ends (crash tool; " + secs(crashCallTimeout) + " call deadline), sleep call in flight, then a 3rd call", scHTTPCrash(true)},
}

const (
	// noAnswerTimeout bounds a call whose answer may never come: failing
	// well before it means the client gave up by itself.
	noAnswerTimeout = 5 * time.Second
	// retryField is the retry: the server sends in row H7, apart from
	// every client's own default delay (mcpactor 500 ms, go-sdk and mcp-go
	// 1 s).
	retryField = 1500 * time.Millisecond
	// httpCallTimeout is the timeout of the rows about a call that never
	// ends (slow body, no answer).
	httpCallTimeout = time.Second
	// getWindow is how long the GET rows watch the listener after the
	// connect: time for a client to retry it, wrongly or not.
	getWindow = 1500 * time.Millisecond
)

// httpCell is one HTTP cell's server and client.
type httpCell struct {
	r *run
	p *httpPeer
	c mcpClient

	closeOnce sync.Once
	closeTook time.Duration
	closedAt  time.Time
	// closeTold: the body reported Close's duration itself.
	closeTold bool
}

// httpScenario wraps a cell's body: start the server with opts, connect
// (to the legacy endpoint with legacy; mcp-go with its GET listener with
// listen), run body, close the client if body did not, then report what
// the client left behind.
func httpScenario(opts testserver.Options, legacy, listen bool, body func(ctx context.Context, h *httpCell) string) func(context.Context, *run) string {
	return func(ctx context.Context, r *run) string {
		p := startHTTPPeer(opts)
		defer p.close()
		base := goroutines()
		target := &httpTarget{url: p.url, legacy: legacy, listen: listen}
		if legacy {
			target.url = p.sseURL
		}
		c, d, err := dial(ctx, r, dialOpts{http: target}, connectTimeout)
		if err != nil {
			return connectFailed(r, d, err, connectTimeout)
		}
		h := &httpCell{r: r, p: p, c: c}
		s := body(ctx, h)
		h.close(ctx)
		if h.closeTook > time.Second && !h.closeTold {
			s += fmt.Sprintf("; Close takes %s", ms(h.closeTook))
		}
		if n := c.Counters(); n != "" && n != "counted nothing" {
			r.note("%s", n)
		}
		r.step("waiting for the client's goroutines and connections to go")
		short, detail := leftAfterClose(p, base, h.closedAt).describe()
		r.note("%s", detail)
		return s + short
	}
}

// close closes the client once (later calls do nothing), timing it.
func (h *httpCell) close(ctx context.Context) {
	h.closeOnce.Do(func() {
		h.closeTook = closeClient(ctx, h.r, h.c)
		h.closedAt = time.Now()
	})
}

// tally is what the server has received so far, for the difference one
// call makes: initialize POSTs, tools/call POSTs, POSTs answered 404 for
// their session.
type tally struct {
	inits, calls, expired int
}

func (h *httpCell) tally() tally {
	var t tally
	for _, e := range h.p.h.Exchanges() {
		switch {
		case e.Method == http.MethodPost && e.RPCMethod == "initialize":
			t.inits++
		case e.Method == http.MethodPost && e.RPCMethod == "tools/call":
			t.calls++
		}
		if e.Method == http.MethodPost && e.Status == http.StatusNotFound && e.SessionID != "" {
			t.expired++
		}
	}
	return t
}

// echoCall makes one echo call with timeout and describes it, with what it
// cost on the wire: sessions started, POSTs, 404s.
func (h *httpCell) echoCall(ctx context.Context, label, msg string, timeout time.Duration) (string, error) {
	h.r.step(label)
	before := h.tally()
	t0 := time.Now()
	err := echo(ctx, h.c, msg, timeout)
	d := time.Since(t0)
	after := h.tally()
	inits, posts, expired := after.inits-before.inits, after.calls-before.calls, after.expired-before.expired
	h.r.note("%s: %s after %s; %d tools/call POST(s), %d 404(s), %d new session(s)", label, errOr(err, "ok"), ms(d), posts, expired, inits)
	var s string
	switch {
	case err == nil:
		s = "ok"
	case errors.Is(err, context.DeadlineExceeded) && d >= timeout-100*time.Millisecond:
		s = fmt.Sprintf("hangs until its %s deadline", secs(timeout))
	default:
		s = fmt.Sprintf("fails in %s: %s", ms(d), short(err))
	}
	var how []string
	if expired > 0 && inits > 0 {
		how = append(how, "re-initialized after the 404")
	} else if inits > 0 {
		how = append(how, fmt.Sprintf("%d new session(s)", inits))
	}
	if posts > 1 {
		how = append(how, fmt.Sprintf("POSTed %d times", posts))
	}
	if len(how) > 0 {
		s += " (" + strings.Join(how, ", ") + ")"
	}
	return s, err
}

// --- H1 ---

// The session ends the way a server that forgets its sessions (or restarts)
// ends it: HTTPHandler.EndSessions, after which a request carrying its id is
// answered 404 and a new session can be started. (HTTPExpireAfter would end
// every new session too, after its first call.)

func scSessionExpired(ctx context.Context, r *run) string {
	return httpScenario(testserver.Options{}, false, false, func(ctx context.Context, h *httpCell) string {
		first, err := h.echoCall(ctx, "1st call", "first", noAnswerTimeout)
		if err != nil {
			return "1st call " + first
		}
		h.p.h.EndSessions()
		second, _ := h.echoCall(ctx, "2nd call (the session has expired)", "second", noAnswerTimeout)
		third, _ := h.echoCall(ctx, "3rd call", "third", noAnswerTimeout)
		return "2nd: " + second + "; 3rd: " + third
	})(ctx, r)
}

// --- H2 ---

// expiredCalls is how many calls meet the expired session at once.
const expiredCalls = 8

func scSessionExpiredConcurrent(ctx context.Context, r *run) string {
	return httpScenario(testserver.Options{}, false, false, func(ctx context.Context, h *httpCell) string {
		if first, err := h.echoCall(ctx, "1st call", "first", noAnswerTimeout); err != nil {
			return "1st call " + first
		}
		h.p.h.EndSessions()
		before := h.tally()
		h.r.step(fmt.Sprintf("%d concurrent calls on the expired session", expiredCalls))
		errs := make([]error, expiredCalls)
		var wg sync.WaitGroup
		t0 := time.Now()
		for i := range expiredCalls {
			wg.Go(func() { errs[i] = echo(ctx, h.c, "c"+strconv.Itoa(i), noAnswerTimeout) })
		}
		wg.Wait()
		d := time.Since(t0)
		after := h.tally()
		kinds := make(map[string]int)
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
				continue
			}
			kinds[digits.ReplaceAllString(oneLine(err.Error()), "N")]++
		}
		h.r.note("%d concurrent calls: %d ok within %s; %d tools/call POST(s), %d 404(s), %d new session(s)",
			expiredCalls, ok, ms(d), after.calls-before.calls, after.expired-before.expired, after.inits-before.inits)
		for _, k := range sortedKeys(kinds) {
			h.r.note("%d× %s", kinds[k], k)
		}
		s := fmt.Sprintf("%d/%d ok", ok, expiredCalls)
		for _, k := range sortedKeys(kinds) {
			s += fmt.Sprintf(", %d fail %s", kinds[k], short(errors.New(k)))
		}
		if n := after.inits - before.inits; n > 0 {
			s += fmt.Sprintf(" (%d new session(s))", n)
		}
		next, _ := h.echoCall(ctx, "one more call", "next", noAnswerTimeout)
		return s + "; next call " + next
	})(ctx, r)
}

// --- H3, H4 ---

func scHTTPFail(status int) func(context.Context, *run) string {
	return httpScenario(testserver.Options{HTTPFailCalls: 1, HTTPFailStatus: status}, false, false, func(ctx context.Context, h *httpCell) string {
		first, err := h.echoCall(ctx, "1st call (answered "+strconv.Itoa(status)+")", "first", noAnswerTimeout)
		s := "1st " + first
		if err != nil {
			s += "; " + statusShown(err, status, h.p.host)
		}
		second, _ := h.echoCall(ctx, "2nd call", "second", noAnswerTimeout)
		s += "; 2nd " + second
		if sess := sessionsOf(h.p.exchanges(isCallPost)); len(sess) > 1 {
			s += fmt.Sprintf(" on another session (%d sessions)", len(sess))
		}
		return s
	})
}

// statusShown says what of the answer the error shows: the status code,
// the status text, the JSON-RPC error of the body (whose message is the
// status text followed by "(testserver fault)"); and whether it names the
// server (mcpactor's name for it, or its host:port).
func statusShown(err error, status int, host string) string {
	e := err.Error()
	var has []string
	if strings.Contains(e, strconv.Itoa(status)) {
		has = append(has, "the status code")
	}
	body := strings.Contains(e, "(testserver fault)")
	if strings.Contains(e, http.StatusText(status)) && !body {
		has = append(has, "the status text")
	}
	if body {
		has = append(has, "the body's error")
	}
	s := "the error shows neither the status nor the body"
	if len(has) > 0 {
		s = "the error shows " + strings.Join(has, " and ")
	}
	if strings.Contains(e, `"fm"`) || strings.Contains(e, host) {
		return s + ", names the server"
	}
	return s + ", not the server"
}

// sessionsOf lists the distinct session ids of exs, in order.
func sessionsOf(exs []testserver.HTTPExchange) []string {
	var out []string
	for _, e := range exs {
		if len(out) == 0 || out[len(out)-1] != e.SessionID {
			out = append(out, e.SessionID)
		}
	}
	return out
}

// --- H5, H7 ---

// progressCall calls progress (2 steps), whose notifications are events
// with ids before the response (whatever the protocol version: the
// priming event only comes with 2025-11-25).
func (h *httpCell) progressCall(ctx context.Context, timeout time.Duration) (time.Duration, error) {
	h.r.step("progress call (its stream is closed before the response)")
	t0 := time.Now()
	res, err := h.c.Call(ctx, "progress", map[string]any{"steps": 2, "intervalMs": 5}, callOpts{timeout: timeout, progress: func() {}})
	d := time.Since(t0)
	if err == nil && (res.isError || res.text != "done") {
		err = fmt.Errorf("wrong answer %q (isError %v), want \"done\"", res.text, res.isError)
	}
	h.r.note("progress call: %s after %s", errOr(err, "ok"), ms(d))
	return d, err
}

func scStreamDropped(ctx context.Context, r *run) string {
	return httpScenario(testserver.Options{HTTPStream: true, HTTPDropStreams: 1}, false, false, func(ctx context.Context, h *httpCell) string {
		d, err := h.progressCall(ctx, noAnswerTimeout)
		resumes := h.p.exchanges(isResume)
		posts := h.p.count(isCallPost)
		h.r.note("%d resumption(s) with Last-Event-ID (statuses %s), %d tools/call POST(s)", len(resumes), statuses(resumes), posts)
		var s string
		switch {
		case err == nil:
			s = fmt.Sprintf("ok in %s", ms(d))
		case errors.Is(err, context.DeadlineExceeded) && d >= noAnswerTimeout-100*time.Millisecond:
			s = fmt.Sprintf("hangs until its %s deadline", secs(noAnswerTimeout))
		default:
			s = fmt.Sprintf("fails in %s: %s", ms(d), short(err))
		}
		if len(resumes) > 0 {
			s += fmt.Sprintf(", resumed with Last-Event-ID (%d GET, %s)", len(resumes), statuses(resumes))
		} else {
			s += ", no resumption"
		}
		if posts > 1 {
			s += fmt.Sprintf(", POSTed %d times", posts)
		}
		return s
	})(ctx, r)
}

func scRetryHonoured(ctx context.Context, r *run) string {
	return httpScenario(testserver.Options{HTTPStream: true, HTTPDropStreams: 1, HTTPRetry: retryField}, false, false, func(ctx context.Context, h *httpCell) string {
		_, err := h.progressCall(ctx, noAnswerTimeout)
		posts := h.p.exchanges(isCallPost)
		resumes := h.p.exchanges(isResume)
		if len(posts) == 0 {
			return "no tools/call POST?!"
		}
		if len(resumes) == 0 {
			s := "no resumption"
			if err != nil {
				s += "; call fails: " + short(err)
			}
			return s
		}
		// The server's handler returns when the stream is closed.
		waited := resumes[0].Start.Sub(posts[0].End)
		h.r.note("the stream closed at +0, the resuming GET came at +%s (retry: %s)", ms(waited), ms(retryField))
		var s string
		switch {
		case waited >= retryField-20*time.Millisecond && waited <= retryField+time.Second:
			s = fmt.Sprintf("resumed %s after the close: honoured", ms(waited))
		case waited < retryField:
			s = fmt.Sprintf("resumed %s after the close: not honoured (too early)", ms(waited))
		default:
			s = fmt.Sprintf("resumed %s after the close: later than asked", ms(waited))
		}
		if err != nil {
			s += "; call fails: " + short(err)
		} else {
			s += "; call ok"
		}
		return s
	})(ctx, r)
}

// --- H6 ---

func scStreamNoIDs(ctx context.Context, r *run) string {
	return httpScenario(testserver.Options{HTTPStream: true, HTTPDropStreams: 1, HTTPNoEventIDs: true}, false, false, func(ctx context.Context, h *httpCell) string {
		first, _ := h.echoCall(ctx, "call whose stream is closed", "lost", noAnswerTimeout)
		s := first
		if n := h.p.count(isResume); n > 0 {
			s += fmt.Sprintf(", %d resumption(s) without an id?!", n)
		}
		second, _ := h.echoCall(ctx, "2nd call", "next", noAnswerTimeout)
		return s + "; 2nd " + second
	})(ctx, r)
}

// --- H8, H9, H10 ---

func scGetRefused(status int) func(context.Context, *run) string {
	return httpScenario(testserver.Options{HTTPGetStatus: status}, false, true, func(ctx context.Context, h *httpCell) string {
		t0 := time.Now()
		first, _ := h.echoCall(ctx, "1st call", "first", noAnswerTimeout)
		h.r.step("watching the GET listener")
		time.Sleep(time.Until(t0.Add(getWindow)))
		second, _ := h.echoCall(ctx, "2nd call", "second", noAnswerTimeout)
		gets := h.p.exchanges(isListenGet)
		inits := h.p.count(isRPC("initialize"))
		h.r.note("%d listener GET(s) (statuses %s), %d initialize POST(s)", len(gets), statuses(gets), inits)
		var s string
		switch len(gets) {
		case 0:
			s = "no GET sent"
		case 1:
			s = "GET tried once"
		default:
			s = fmt.Sprintf("GET sent %d times in %s", len(gets), secs(getWindow))
		}
		s += "; calls: " + first
		if second != first {
			s += ", then " + second
		}
		if inits > 1 {
			s += fmt.Sprintf("; %d sessions started", inits)
		}
		return s
	})
}

// --- H11 ---

func scNotJSON(ctx context.Context, r *run) string {
	return httpScenario(testserver.Options{HTTPNotJSON: true}, false, false, func(ctx context.Context, h *httpCell) string {
		first, err := h.echoCall(ctx, "call answered with HTML", "x", noAnswerTimeout)
		if err == nil {
			return "call " + first + "?!"
		}
		e := err.Error()
		body := strings.Contains(e, "<html") || strings.Contains(e, "502 Bad Gateway")
		names := strings.Contains(e, `"fm"`) || strings.Contains(e, h.p.host)
		s := first
		switch {
		case body && names:
			s += "; names the server, shows the body"
		case body:
			s += "; shows the body, does not name the server"
		case names:
			s += "; names the server, does not show the body"
		default:
			s += "; neither names the server nor shows the body"
		}
		return s + "; " + h.list(ctx)
	})(ctx, r)
}

// list lists the tools (5 s deadline) and says how it went: the session
// still serves what the fault leaves alone.
func (h *httpCell) list(ctx context.Context) string {
	h.r.step("tools/list afterwards")
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	names, err := h.c.List(cctx)
	h.r.note("tools/list afterwards: %s, %d tools", errOr(err, "ok"), len(names))
	if err != nil {
		return "tools/list afterwards fails: " + short(err)
	}
	return "tools/list afterwards ok"
}

// --- H12, H13 ---

func scSlowBody(sse bool) func(context.Context, *run) string {
	return httpScenario(testserver.Options{HTTPSlowBody: true, HTTPStream: sse}, false, false, func(ctx context.Context, h *httpCell) string {
		s, _ := h.timedOutCall(ctx)
		return s + "; " + h.list(ctx)
	})
}

// timedOutCall makes an echo call with httpCallTimeout that the server
// never completes, and says when it returned and whether the client
// aborted its POST (the server's handler saw it leave).
func (h *httpCell) timedOutCall(ctx context.Context) (string, error) {
	h.r.step(fmt.Sprintf("echo with a %s timeout", secs(httpCallTimeout)))
	t0 := time.Now()
	_, err := h.c.Call(ctx, "echo", map[string]any{"message": "x"}, callOpts{timeout: httpCallTimeout})
	d := time.Since(t0)
	h.r.note("call returned after %s: %s", ms(d), errOr(err, "a result?!"))
	var s string
	switch {
	case err == nil:
		s = fmt.Sprintf("returns a result in %s?!", ms(d))
	case d < httpCallTimeout:
		s = fmt.Sprintf("fails in %s, before its timeout: %s", ms(d), short(err))
	case d < httpCallTimeout+500*time.Millisecond:
		s = fmt.Sprintf("timeout fires at %s (%s)", ms(d), short(err))
	default:
		s = fmt.Sprintf("timeout fires late, at %s (%s)", ms(d), short(err))
	}
	h.r.step("waiting for the server to see the POST end")
	open := func() int {
		return h.p.count(func(e testserver.HTTPExchange) bool { return isCallPost(e) && e.End.IsZero() })
	}
	deadline := time.Now().Add(2 * time.Second)
	for open() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := open(); n > 0 {
		h.r.note("the server was still handling %d tools/call POST(s) 2 s after the call returned", n)
		s += "; POST left open"
	} else {
		s += "; POST aborted"
	}
	return s, err
}

// --- H14 ---

func scHTTPNeverAnswers(ctx context.Context, r *run) string {
	return httpScenario(testserver.Options{NeverAnswer: true, ReportCancels: true}, false, false, func(ctx context.Context, h *httpCell) string {
		s, _ := h.timedOutCall(ctx)
		var cancels []testserver.HTTPExchange
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if cancels = h.p.exchanges(isRPC("notifications/cancelled")); len(cancels) > 0 {
				break
			}
		}
		if len(cancels) > 0 {
			h.r.note("notifications/cancelled POSTed (status %s); server stderr: %q", statuses(cancels), h.p.stderr.lines("cancelled "))
			s += "; cancelled sent (" + statuses(cancels) + ")"
		} else {
			s += "; no notifications/cancelled"
		}
		return s + "; " + h.list(ctx)
	})(ctx, r)
}

// --- H15 ---

const (
	inFlightCalls = 20
	// inFlightDeadline is each call's context deadline: a Close that
	// waits for the calls returns when it fires.
	inFlightDeadline = 8 * time.Second
	// inFlightWait bounds the wait for the calls to end once Close has
	// returned.
	inFlightWait = 5 * time.Second
)

func scHTTPCloseInFlight(ctx context.Context, r *run) string {
	return httpScenario(testserver.Options{NeverAnswer: true}, false, false, func(ctx context.Context, h *httpCell) string {
		type end struct {
			err error
			at  time.Time
		}
		ends := make(chan end, inFlightCalls)
		h.r.step(fmt.Sprintf("%d calls in flight", inFlightCalls))
		cctx, cancel := context.WithTimeout(ctx, inFlightDeadline)
		defer cancel()
		for i := range inFlightCalls {
			go func() {
				_, err := h.c.Call(cctx, "echo", map[string]any{"message": strconv.Itoa(i)}, callOpts{})
				ends <- end{err, time.Now()}
			}()
		}
		for deadline := time.Now().Add(5 * time.Second); h.p.count(isCallPost) < inFlightCalls && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if n := h.p.count(isCallPost); n < inFlightCalls {
			h.r.note("only %d of %d calls reached the server", n, inFlightCalls)
		}
		t0 := time.Now()
		h.close(ctx)
		closeTook := time.Since(t0)
		h.r.step("waiting for the calls to end")
		kinds := make(map[string]int)
		var ended, ok int
		var last time.Duration
		limit := time.After(inFlightWait)
	collect:
		for ended < inFlightCalls {
			select {
			case e := <-ends:
				ended++
				last = max(last, e.at.Sub(t0))
				if e.err == nil {
					ok++
					continue
				}
				kinds[errorKind(e.err)]++
			case <-limit:
				break collect
			}
		}
		deletes := h.p.exchanges(isDelete)
		h.r.note("%d of %d calls ended, the last %s after Close began; DELETE: %d (statuses %s)",
			ended, inFlightCalls, ms(last), len(deletes), statuses(deletes))
		for _, k := range sortedKeys(kinds) {
			h.r.note("%d× %s", kinds[k], k)
		}
		h.closeTold = true
		s := fmt.Sprintf("Close returns in %s; ", ms(closeTook))
		if ended == inFlightCalls {
			s += fmt.Sprintf("%d/%d calls end, the last %s after Close began", ended, inFlightCalls, ms(last))
		} else {
			s += fmt.Sprintf("%d/%d calls still pending %s after Close returned", inFlightCalls-ended, inFlightCalls, secs(inFlightWait))
		}
		if ok > 0 {
			s += fmt.Sprintf(", %d with a result?!", ok)
		}
		if ks := sortedKeys(kinds); len(ks) > 0 {
			s += " (" + short(errors.New(ks[0])) + ")"
		}
		if len(deletes) > 0 {
			s += "; DELETE sent"
		} else {
			s += "; no DELETE"
		}
		return s
	})(ctx, r)
}

// --- H16, H18 ---

// scHTTPCrash: the crash tool ends the session it runs in and aborts its
// connections, as the exit of a server process does; the in-process server
// lives on, as a restarted one would, and answers 404 to the old session.
// A sleep call is in flight when it happens; then a third call.
func scHTTPCrash(legacy bool) func(context.Context, *run) string {
	return httpScenario(testserver.Options{}, legacy, false, func(ctx context.Context, h *httpCell) string {
		type res struct {
			err error
			at  time.Time
		}
		sleepDone := make(chan res, 1)
		h.r.step("sleep call in flight")
		go func() {
			cctx, cancel := context.WithTimeout(ctx, crashCallTimeout)
			defer cancel()
			_, err := h.c.Call(cctx, "sleep", map[string]any{"ms": 8000}, callOpts{})
			sleepDone <- res{err, time.Now()}
		}()
		for deadline := time.Now().Add(5 * time.Second); h.p.count(isCallPost) < 1 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		h.r.step("crash call")
		t0 := time.Now()
		cctx, cancel := context.WithTimeout(ctx, crashCallTimeout)
		_, crashErr := h.c.Call(cctx, "crash", map[string]any{"code": 3, "stderr": "fatal: out of cheese"}, callOpts{})
		cancel()
		dCrash := time.Since(t0)
		h.r.step("waiting for the in-flight sleep call")
		var sr res
		select {
		case sr = <-sleepDone:
		case <-time.After(crashCallTimeout + 2*time.Second):
			sr = res{errors.New("still pending"), time.Now()}
		}
		dSleep := sr.at.Sub(t0)
		h.r.note("crash call: %s after %s; in-flight sleep call: %s, %s after the crash call started",
			errOr(crashErr, "a result?!"), ms(dCrash), errOr(sr.err, "a result?!"), ms(dSleep))
		var s string
		switch {
		case crashErr == nil:
			s = "crash call returns a result?!"
		case dCrash >= crashCallTimeout-100*time.Millisecond:
			s = fmt.Sprintf("crash call waits for its %s deadline (%s)", secs(crashCallTimeout), short(crashErr))
		default:
			s = fmt.Sprintf("crash call fails in %s: %s", ms(dCrash), short(crashErr))
		}
		switch {
		case sr.err != nil && sr.err.Error() == "still pending":
			s += fmt.Sprintf("; sleep call still pending %s later", secs(crashCallTimeout+2*time.Second))
		case dSleep >= crashCallTimeout-100*time.Millisecond:
			s += fmt.Sprintf("; sleep call waits for its %s deadline", secs(crashCallTimeout))
		default:
			s += fmt.Sprintf("; sleep call ends too (%s)", ms(dSleep))
		}
		third, _ := h.echoCall(ctx, "3rd call", "after", noAnswerTimeout)
		return s + "; 3rd call " + third
	})
}

// crashCallTimeout bounds the calls of H16 and H18: the crash call, and the
// sleep call, whose 8 s sleep outlasts it.
const crashCallTimeout = 5 * time.Second

// --- H17 ---

func scLegacySSE(ctx context.Context, r *run) string {
	return httpScenario(testserver.Options{}, true, false, func(ctx context.Context, h *httpCell) string {
		first, err := h.echoCall(ctx, "echo", "hello", noAnswerTimeout)
		if err != nil {
			return "echo " + first
		}
		h.r.step("tools/list")
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		names, err := h.c.List(cctx)
		if err != nil {
			h.r.note("tools/list: %s", oneLine(err.Error()))
			return "echo ok; tools/list fails: " + short(err)
		}
		streams := h.p.count(func(e testserver.HTTPExchange) bool { return e.Path == testserver.SSEPath })
		posts := h.p.count(func(e testserver.HTTPExchange) bool { return e.Path == testserver.MessagesPath })
		h.r.note("%d GET(s) of %s, %d POST(s) to %s", streams, testserver.SSEPath, posts, testserver.MessagesPath)
		return fmt.Sprintf("ok: echo, tools/list (%d tools)", len(names))
	})(ctx, r)
}
