package testserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// The session rules of Streamable HTTP, JSON answers (the default).
func TestHTTPSession(t *testing.T) {
	s := startHTTP(t, Options{})
	c := s.newClient()
	c.initialize()
	if got := c.callTool("echo", map[string]any{"message": "over HTTP"}); got != "over HTTP" {
		t.Errorf("echo = %q", got)
	}

	for _, tc := range []struct {
		name   string
		extra  []string
		status int
	}{
		{"no session", []string{"Mcp-Session-Id", ""}, http.StatusBadRequest},
		{"unknown session", []string{"Mcp-Session-Id", "nope"}, http.StatusNotFound},
		{"bad version", []string{"Mcp-Protocol-Version", "1999-01-01"}, http.StatusBadRequest},
		{"bad accept", []string{"Accept", "application/json"}, http.StatusNotAcceptable},
		{"bad content type", []string{"Content-Type", "text/plain"}, http.StatusUnsupportedMediaType},
		{"foreign origin", []string{"Origin", "http://evil.example"}, http.StatusForbidden},
	} {
		resp, _ := c.post("ping", nil, tc.extra...)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: HTTP %d, want %d", tc.name, resp.StatusCode, tc.status)
		}
	}
	if resp := c.must(http.MethodPost, []byte("{not json")); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a body that is not JSON: HTTP %d", resp.StatusCode)
	}

	if resp := c.must(http.MethodDelete, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: HTTP %d", resp.StatusCode)
	}
	if resp, _ := c.post("ping", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("after DELETE: HTTP %d, want 404", resp.StatusCode)
	}
	var deletes int
	for _, e := range s.h.Exchanges() {
		if e.Method == http.MethodDelete && e.SessionID == c.session && e.Status == http.StatusOK {
			deletes++
		}
	}
	if deletes != 1 || len(s.h.Sessions()) != 0 {
		t.Errorf("%d DELETEs recorded, sessions left %v", deletes, s.h.Sessions())
	}
}

// Each session has its own server: ids and tools/call counts do not mix.
func TestHTTPSessionsAreSeparate(t *testing.T) {
	s := startHTTP(t, Options{HTTPExpireAfter: 1})
	a, b := s.newClient(), s.newClient()
	a.initialize()
	b.initialize()
	if a.session == b.session {
		t.Fatal("two initializes, one session")
	}
	if a.callTool("echo", map[string]any{"message": "a"}) != "a" || b.callTool("echo", map[string]any{"message": "b"}) != "b" {
		t.Fatal("wrong answers")
	}
}

// With HTTPStream a request's answer is an event stream: the priming event
// (id, retry, empty data), what the handling sends, then the response;
// every event has an id, and the stream ends after the response.
func TestHTTPStreamAnswer(t *testing.T) {
	s := startHTTP(t, Options{HTTPStream: true, HTTPRetry: 250 * time.Millisecond})
	c := s.newClient()
	c.initialize()
	resp, id := c.post("tools/call", map[string]any{"name": "progress", "arguments": map[string]any{"steps": 3},
		"_meta": map[string]any{"progressToken": "tok"}})
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	r := newEventReader(resp.Body)
	prime, err := r.next()
	if err != nil || !prime.hasID || prime.id == "" || prime.retry != "250" || prime.data != "" || !prime.hasData {
		t.Fatalf("priming event %+v, %v", prime, err)
	}
	var ids []string
	progress := 0
	for {
		ev, err := r.next()
		if err != nil {
			t.Fatalf("stream ended early: %v", err)
		}
		ids = append(ids, ev.id)
		m := ev.message(t)
		if m.Method == "notifications/progress" {
			progress++
			continue
		}
		if string(m.ID) != rawID(id) || m.Result == nil {
			t.Fatalf("unexpected %+v", m)
		}
		break
	}
	if _, err := r.next(); !errors.Is(err, io.EOF) {
		t.Errorf("stream goes on after the response: %v", err)
	}
	if progress != 3 {
		t.Errorf("%d progress events", progress)
	}
	seen := map[string]bool{prime.id: true}
	for _, id := range ids {
		if id == "" || seen[id] {
			t.Errorf("event ids %q after %q: missing or repeated", ids, prime.id)
		}
		seen[id] = true
	}
}

// A server-to-client request travels on the POST's stream and its answer
// comes back as a POST of its own.
func TestHTTPAskClientOnTheStream(t *testing.T) {
	s := startHTTP(t, Options{HTTPStream: true})
	c := s.newClient()
	c.initialize()
	resp, id := c.post("tools/call", map[string]any{"name": "ask-client", "arguments": map[string]any{"method": "roots/list"}})
	r := newEventReader(resp.Body)
	var ask *message
	for ask == nil {
		ev, err := r.nextWithin(t, wait)
		if err != nil {
			t.Fatal(err)
		}
		if m := ev.message(t); m != nil && m.Method == "roots/list" {
			ask = m
		}
	}
	answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": ask.ID, "result": map[string]any{"roots": []any{}}})
	if resp := c.must(http.MethodPost, answer); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("the answer: HTTP %d", resp.StatusCode)
	}
	ev, err := r.nextWithin(t, wait)
	if err != nil {
		t.Fatal(err)
	}
	m := ev.message(t)
	if string(m.ID) != rawID(id) || !strings.Contains(string(m.Result), `roots`) {
		t.Fatalf("result %s", m.Result)
	}
}

// With JSON answers, what a request's handling sends goes on the GET
// stream; a second GET stream is refused.
func TestHTTPGetStream(t *testing.T) {
	s := startHTTP(t, Options{})
	c := s.newClient()
	c.initialize()
	// Sent before the GET opens: kept for it.
	c.callTool("notify", map[string]any{"method": "notifications/early"})
	get := c.must(http.MethodGet, nil)
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: HTTP %d", get.StatusCode)
	}
	if resp := c.must(http.MethodGet, nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("second GET: HTTP %d", resp.StatusCode)
	}
	r := newEventReader(get.Body)
	if ev, _ := r.nextWithin(t, wait); !ev.hasID || ev.data != "" {
		t.Fatalf("priming %+v", ev)
	}
	if ev, _ := r.nextWithin(t, wait); ev.message(t).Method != "notifications/early" || ev.id != "g-1" {
		t.Fatalf("first event %+v", ev)
	}
	c.callTool("notify", map[string]any{"method": "notifications/late"})
	if ev, _ := r.nextWithin(t, wait); ev.message(t).Method != "notifications/late" || ev.id != "g-2" {
		t.Fatalf("second event %+v", ev)
	}
	// logging/setLevel's message follows its answer, so on the GET stream.
	c.answer(func() *http.Response { r, _ := c.post("logging/setLevel", map[string]any{"level": "info"}); return r }())
	if ev, _ := r.nextWithin(t, wait); ev.message(t).Method != "notifications/message" {
		t.Fatalf("third event %+v", ev)
	}
}

func TestHTTPGetStatus(t *testing.T) {
	for _, status := range []int{http.StatusMethodNotAllowed, http.StatusNotFound, http.StatusOK} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			s := startHTTP(t, Options{HTTPGetStatus: status})
			c := s.newClient()
			c.initialize()
			resp := c.must(http.MethodGet, nil)
			if resp.StatusCode != status {
				t.Fatalf("HTTP %d", resp.StatusCode)
			}
			body, _ := io.ReadAll(resp.Body)
			if status == http.StatusOK && (resp.Header.Get("Content-Type") != "application/json" || !json.Valid(body)) {
				t.Errorf("200 answer %q %q", resp.Header.Get("Content-Type"), body)
			}
			if got := c.callTool("echo", map[string]any{"message": "still"}); got != "still" {
				t.Errorf("echo = %q", got)
			}
		})
	}
}

// A stream closed before its response is resumed by GET with Last-Event-ID;
// without event ids there is nothing to resume from.
func TestHTTPDropStreams(t *testing.T) {
	t.Run("with ids", func(t *testing.T) {
		s := startHTTP(t, Options{HTTPStream: true, HTTPDropStreams: 1, HTTPRetry: 100 * time.Millisecond})
		c := s.newClient()
		c.initialize()
		resp, id := c.post("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "kept"}})
		r := newEventReader(resp.Body)
		prime, err := r.next()
		if err != nil || !prime.hasID || prime.retry != "100" {
			t.Fatalf("priming %+v %v", prime, err)
		}
		if ev, err := r.next(); !errors.Is(err, io.EOF) {
			t.Fatalf("the stream went on: %+v %v", ev, err)
		}
		get := c.must(http.MethodGet, nil, "Last-Event-ID", prime.id)
		m := c.answer(get)
		if string(m.ID) != rawID(id) || !strings.Contains(string(m.Result), "kept") {
			t.Fatalf("resumed answer %+v", m)
		}
		if got := c.callTool("echo", map[string]any{"message": "next"}); got != "next" {
			t.Errorf("the next call: %q", got)
		}
		if resp := c.must(http.MethodGet, nil, "Last-Event-ID", "s999-1"); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("unknown Last-Event-ID: HTTP %d", resp.StatusCode)
		}
	})
	t.Run("without ids", func(t *testing.T) {
		s := startHTTP(t, Options{HTTPStream: true, HTTPDropStreams: 1, HTTPNoEventIDs: true})
		c := s.newClient()
		c.initialize()
		resp, _ := c.post("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "lost"}})
		body, err := io.ReadAll(resp.Body)
		if err != nil || strings.Contains(string(body), "id:") || strings.Contains(string(body), "lost") {
			t.Fatalf("body %q, %v", body, err)
		}
	})
}

func TestHTTPExpireAfter(t *testing.T) {
	s := startHTTP(t, Options{HTTPExpireAfter: 2})
	c := s.newClient()
	c.initialize()
	c.callTool("echo", map[string]any{"message": "1"})
	if resp, _ := c.post("ping", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("ping between calls: HTTP %d", resp.StatusCode)
	}
	c.callTool("echo", map[string]any{"message": "2"}) // answered, then the session ends
	for _, method := range []string{"tools/call", "ping"} {
		if resp, _ := c.post(method, map[string]any{"name": "echo"}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s after expiry: HTTP %d", method, resp.StatusCode)
		}
	}
	if resp := c.must(http.MethodGet, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET after expiry: HTTP %d", resp.StatusCode)
	}
	c.initialize() // a new session works
	c.callTool("echo", map[string]any{"message": "again"})
}

func TestHTTPFailCalls(t *testing.T) {
	for _, status := range []int{0, http.StatusServiceUnavailable} {
		s := startHTTP(t, Options{HTTPFailCalls: 2, HTTPFailStatus: status})
		c := s.newClient()
		c.initialize()
		want := max(status, http.StatusInternalServerError)
		for range 2 {
			resp, _ := c.post("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}})
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != want || !json.Valid(body) {
				t.Errorf("HTTP %d %q, want %d", resp.StatusCode, body, want)
			}
		}
		if got := c.callTool("echo", map[string]any{"message": "recovered"}); got != "recovered" {
			t.Errorf("after the faults: %q", got)
		}
	}
}

func TestHTTPNotJSON(t *testing.T) {
	s := startHTTP(t, Options{HTTPNotJSON: true})
	c := s.newClient()
	c.initialize()
	resp, _ := c.post("tools/call", map[string]any{"name": "echo"})
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || json.Valid(body) {
		t.Errorf("HTTP %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

// The answers that never end (slow body, never answering) end their
// handler when the client gives up; an unread body only at Close.
func TestHTTPClientGivesUp(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		body int
	}{
		{"slow body", Options{HTTPSlowBody: true}, 0},
		{"slow event", Options{HTTPSlowBody: true, HTTPStream: true}, 0},
		{"never answer", Options{NeverAnswer: true}, 0},
		{"never answer sse", Options{NeverAnswer: true, HTTPStream: true}, 0},
		{"unread body", Options{HTTPIgnoreBodyOver: 1 << 10}, 4 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startHTTP(t, tc.opts)
			c := s.newClient()
			c.initialize()
			b, _ := c.requestBody("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": strings.Repeat("x", tc.body)}})
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			resp, err := c.do(ctx, http.MethodPost, b)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("got %v, want the client's deadline", err)
			}
			if tc.body > 0 {
				return // the handler cannot see the client leave; Close ends it
			}
			harness.WaitFor(t, "the handler to end", func() bool { return s.h.Active() == 0 })
		})
	}
}

func TestHTTPCrashEndsTheSession(t *testing.T) {
	s := startHTTP(t, Options{})
	c := s.newClient()
	c.initialize()
	b, _ := c.requestBody("tools/call", map[string]any{"name": "crash", "arguments": map[string]any{"code": 3}})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if resp, err := c.do(ctx, http.MethodPost, b); err == nil {
		resp.Body.Close()
		t.Fatalf("crash answered HTTP %d; want the connection aborted", resp.StatusCode)
	}
	if resp, _ := c.post("ping", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("after the crash: HTTP %d", resp.StatusCode)
	}
}

// Close ends what is in flight, unread bodies included.
func TestHTTPClose(t *testing.T) {
	s := startHTTP(t, Options{NeverAnswer: true, HTTPIgnoreBodyOver: 1 << 10})
	c := s.newClient()
	c.initialize()
	errs := make(chan error, 2)
	for _, size := range []int{1, 4 << 10} {
		b, _ := c.requestBody("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": strings.Repeat("x", size)}})
		go func() {
			resp, err := c.do(context.Background(), http.MethodPost, b)
			if err == nil {
				resp.Body.Close()
			}
			errs <- err
		}()
	}
	harness.WaitFor(t, "both requests to arrive", func() bool { return s.h.Active() == 2 })
	done := make(chan struct{})
	go func() { s.h.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatal("Close hung")
	}
	for range 2 {
		<-errs
	}
	if resp, _ := c.post("ping", nil); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("after Close: HTTP %d", resp.StatusCode)
	}
}

// HTTPGetCloseAfter ends each GET connection after N events; the next GET,
// with Last-Event-ID, goes on where it stopped.
func TestHTTPGetCloseAfter(t *testing.T) {
	s := startHTTP(t, Options{HTTPGetCloseAfter: 2})
	c := s.newClient()
	c.initialize()
	for i := range 3 {
		c.callTool("notify", map[string]any{"method": "notifications/n" + rawID(i)})
	}
	var got []string
	last := ""
	for len(got) < 3 {
		resp := c.must(http.MethodGet, nil, "Last-Event-ID", last)
		r := newEventReader(resp.Body)
		for {
			ev, err := r.nextWithin(t, wait)
			if errors.Is(err, io.EOF) {
				break
			}
			if ev.hasID {
				last = ev.id
			}
			if m := ev.message(t); m != nil {
				got = append(got, m.Method)
			}
			if len(got) == 3 {
				break
			}
		}
		resp.Body.Close()
	}
	if strings.Join(got, " ") != "notifications/n0 notifications/n1 notifications/n2" {
		t.Errorf("got %q", got)
	}
}
