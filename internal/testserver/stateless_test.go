package testserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// statelessMeta is the _meta a 2026-07-28 client puts in every request.
var statelessMeta = map[string]any{"io.modelcontextprotocol/protocolVersion": StatelessVersion}

func TestStatelessDiscover(t *testing.T) {
	c := startPipe(t, Options{})
	resp, _ := c.responseTo(c.request("server/discover", map[string]any{"_meta": statelessMeta}))
	if resp.Error == nil || resp.Error.Code != codeMethodNotFound {
		t.Fatalf("a session-era server answered server/discover: %s", resp.Result)
	}

	c = startPipe(t, Options{Stateless: true})
	var res struct {
		ResultType        string
		SupportedVersions []string
		Capabilities      map[string]json.RawMessage
		Meta              map[string]struct{ Name string } `json:"_meta"`
	}
	mustUnmarshal(t, c.call("server/discover", map[string]any{"_meta": statelessMeta}), &res)
	if res.ResultType != "complete" || len(res.SupportedVersions) != 1 || res.SupportedVersions[0] != StatelessVersion ||
		res.Capabilities["tools"] == nil || res.Meta["io.modelcontextprotocol/serverInfo"].Name != ServerName {
		t.Fatalf("discover = %+v", res)
	}
	// No handshake: a stateless request is served at once.
	if r := decodeTool(t, c.call("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}, "_meta": statelessMeta})); r.text() != "hi" {
		t.Errorf("echo = %q", r.text())
	}
}

// A tool asking the client in a 2026-07-28 request does so by a multi
// round-trip: input_required, then the retry with the answer.
func TestStatelessMultiRoundTrip(t *testing.T) {
	c := startPipe(t, Options{Stateless: true})
	args := map[string]any{"method": "roots/list"}
	id := c.request("tools/call", map[string]any{"name": "ask-client", "arguments": args, "_meta": statelessMeta})
	resp, _ := c.responseTo(id)
	var ir struct {
		ResultType    string
		InputRequests map[string]struct{ Method string }
		RequestState  string
	}
	mustUnmarshal(t, resp.Result, &ir)
	if ir.ResultType != "input_required" || len(ir.InputRequests) != 1 || ir.RequestState == "" {
		t.Fatalf("first round = %s", resp.Result)
	}
	responses := map[string]any{}
	for key, r := range ir.InputRequests {
		if r.Method != "roots/list" {
			t.Errorf("input request %s: %s", key, r.Method)
		}
		responses[key] = map[string]any{"roots": []any{}}
	}
	retry := c.request("tools/call", map[string]any{"name": "ask-client", "arguments": args, "_meta": statelessMeta,
		"inputResponses": responses, "requestState": ir.RequestState})
	resp, _ = c.responseTo(retry)
	if r := decodeTool(t, resp.Result); r.text() != `{"roots":[]}` {
		t.Fatalf("retry answered %s", resp.Result)
	}

	// The session era still asks with a request of its own.
	c.initialize()
	id = c.request("tools/call", map[string]any{"name": "ask-client", "arguments": args})
	ask := c.recv()
	if ask.Method != "roots/list" {
		t.Fatalf("session era: %+v", ask)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": ask.ID, "result": map[string]any{"roots": []any{}}})
	if resp, _ := c.responseTo(id); decodeTool(t, resp.Result).text() != `{"roots":[]}` {
		t.Fatalf("session era answered %s", resp.Result)
	}
}

// A retry naming no parked call is an ordinary call.
func TestStatelessUnknownState(t *testing.T) {
	c := startPipe(t, Options{Stateless: true})
	r := decodeTool(t, c.call("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"},
		"_meta": statelessMeta, "requestState": "nobody", "inputResponses": map[string]any{}}))
	if r.text() != "x" {
		t.Errorf("echo = %q", r.text())
	}
}

// Over HTTP, a stateless request needs no session, and a session-era
// client still gets one.
func TestStatelessHTTP(t *testing.T) {
	s := startHTTP(t, Options{Stateless: true})
	c := s.newClient()
	c.version = StatelessVersion
	resp, _ := c.post("server/discover", map[string]any{"_meta": statelessMeta})
	if m := c.answer(resp); m.Error != nil || !strings.Contains(string(m.Result), StatelessVersion) {
		t.Fatalf("discover: %s %v", m.Result, m.Error)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Error("a stateless request was given a session")
	}
	if got := c.callTool("echo", map[string]any{"message": "alone"}); got != "alone" {
		t.Errorf("echo = %q", got)
	}
	if ids := s.h.Sessions(); len(ids) != 0 {
		t.Errorf("sessions %v", ids)
	}

	old := s.newClient()
	old.initialize()
	if got := old.callTool("echo", map[string]any{"message": "in a session"}); got != "in a session" {
		t.Errorf("echo = %q", got)
	}
}

// A stateless request whose client closes its stream is cancelled.
func TestStatelessHTTPClosedStreamCancels(t *testing.T) {
	var mu sync.Mutex
	var closed []Received
	spec := DefaultSpec(Options{})
	spec.Observe = func(r Received) {
		if r.StreamClosed {
			mu.Lock()
			closed = append(closed, r)
			mu.Unlock()
		}
	}
	h := NewSpecHandler(Options{Stateless: true, HTTPStream: true}, spec, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	s := &httpServer{t: t, h: h, ts: ts, url: ts.URL + HTTPPath, client: ts.Client(), stderr: &harness.Log{}}
	c := s.newClient()
	c.version = StatelessVersion
	body, _ := c.requestBody("tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 60000}, "_meta": statelessMeta})
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := c.do(ctx, http.MethodPost, body)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	harness.WaitFor(t, "the closed stream", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(closed) == 1 && closed[0].Method == "tools/call"
	})
	harness.WaitFor(t, "the handler's end", func() bool { return h.Active() == 0 })
}

// Every final result of a 2026-07-28 request carries resultType
// "complete", as its servers must; session-era results carry none.
func TestStatelessResultType(t *testing.T) {
	c := startPipe(t, Options{Stateless: true})
	for _, req := range []struct {
		method string
		params map[string]any
	}{
		{"ping", map[string]any{}},
		{"tools/list", map[string]any{}},
		{"resources/list", map[string]any{}},
		{"tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "final"}}},
	} {
		req.params["_meta"] = statelessMeta
		var res struct {
			ResultType string `json:"resultType"`
		}
		raw := c.call(req.method, req.params)
		mustUnmarshal(t, raw, &res)
		if res.ResultType != "complete" || strings.Count(string(raw), `"resultType"`) != 1 {
			t.Errorf("%s answered %s", req.method, raw)
		}
	}
	if raw := c.call("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}}); strings.Contains(string(raw), "resultType") {
		t.Errorf("a session-era call answered %s", raw)
	}
	for in, want := range map[string]string{
		`{}`:                              `{"resultType":"complete"}`,
		` { } `:                           `{"resultType":"complete"}`,
		`{"a":1}`:                         `{"resultType":"complete","a":1}`,
		`{"resultType":"input_required"}`: `{"resultType":"input_required"}`,
		`{"text":"\"resultType\""}`:       `{"resultType":"complete","text":"\"resultType\""}`,
	} {
		if got := string(completeResult(json.RawMessage(in))); got != want {
			t.Errorf("completeResult(%s) = %s, want %s", in, got, want)
		}
	}
}
