package testserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// hubSpec is DefaultSpec linked to a new Hub.
func hubSpec() (*Spec, *Hub) {
	spec := DefaultSpec(Options{})
	spec.Hub = &Hub{}
	return spec, spec.Hub
}

// startSpecPipe is startPipe serving spec.
func startSpecPipe(t *testing.T, opts Options, spec *Spec) *pipeServer {
	t.Helper()
	return startServe(t, func(ctx context.Context, in io.Reader, out, errOut io.Writer) error {
		return ServeSpec(ctx, in, out, errOut, opts, spec)
	})
}

// A Hub reaches a stdio server's client outside any request, and its
// catalogue replaces the spec's, for tools/list and tools/call alike;
// a server that stopped has left it.
func TestHubStdio(t *testing.T) {
	spec, hub := hubSpec()
	p := startSpecPipe(t, Options{}, spec)
	p.initialize()
	harness.WaitFor(t, "the server in the hub", func() bool { return hub.Notify("notifications/tools/list_changed", nil) == 1 })
	m := p.recv()
	if m.Method != "notifications/tools/list_changed" || len(m.ID) != 0 {
		t.Fatalf("got %+v", m)
	}
	if n := hub.Notify("notifications/message", json.RawMessage(`{"level":"info","data":"hi"}`)); n != 1 {
		t.Fatalf("Notify reached %d servers", n)
	}
	if m := p.recv(); m.Method != "notifications/message" || !strings.Contains(string(m.Params), `"hi"`) {
		t.Fatalf("got %+v %s", m, m.Params)
	}

	only := &Tool{Name: "only", InputSchema: json.RawMessage(`{"type":"object"}`), Run: func(context.Context, *Call) (json.RawMessage, error) {
		return json.RawMessage(`{"content":[{"type":"text","text":"the new one"}]}`), nil
	}}
	hub.SetCatalog(&Catalog{Tools: []*Tool{only}, Resources: []json.RawMessage{json.RawMessage(`{"uri":"a://b","name":"b"}`)}})
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	mustUnmarshal(t, p.call("tools/list", nil), &list)
	if len(list.Tools) != 1 || list.Tools[0].Name != "only" {
		t.Fatalf("tools/list after SetCatalog: %+v", list)
	}
	if got := p.callTool("only", nil).text(); got != "the new one" {
		t.Fatalf("only = %q", got)
	}
	id := p.request("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}})
	if resp, _ := p.responseTo(id); resp.Error == nil || !strings.Contains(resp.Error.Message, "Unknown tool") {
		t.Fatalf("echo after SetCatalog: %+v", resp)
	}
	if res := p.call("resources/list", nil); !strings.Contains(string(res), "a://b") {
		t.Fatalf("resources/list after SetCatalog: %s", res)
	}

	p.cancel()
	_ = p.wait()
	if n := hub.Notify("notifications/tools/list_changed", nil); n != 0 {
		t.Fatalf("Notify reached %d servers after Serve returned", n)
	}
}

// Over Streamable HTTP a Hub's notification goes on the session's GET
// stream, kept for the client until it opens it; to a stateless
// (2026-07-28) client it goes on each open subscriptions/listen stream,
// and nowhere once the client has closed it.
func TestHubHTTP(t *testing.T) {
	spec, hub := hubSpec()
	h := NewSpecHandler(Options{Stateless: true, HTTPStream: true}, spec, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	s := &httpServer{t: t, h: h, ts: ts, url: ts.URL + HTTPPath, client: ts.Client(), stderr: &harness.Log{}}

	c := s.newClient()
	c.initialize()
	if n := hub.Notify("notifications/tools/list_changed", nil); n != 1 {
		t.Fatalf("Notify reached %d servers, want the session's", n)
	}
	get := c.must(http.MethodGet, nil)
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: HTTP %d", get.StatusCode)
	}
	events := newEventReader(get.Body)
	for {
		ev, err := events.nextWithin(t, wait)
		if err != nil {
			t.Fatalf("GET stream: %v", err)
		}
		if m := ev.message(t); m != nil {
			if m.Method != "notifications/tools/list_changed" {
				t.Fatalf("GET stream: %+v", m)
			}
			break
		}
	}
	get.Body.Close()

	// The 2026-07-28 revision: a listen stream.
	m := s.newClient()
	m.version = StatelessVersion
	body, _ := m.requestBody("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}, "_meta": statelessMeta})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listen, err := m.do(ctx, http.MethodPost, body)
	if err != nil || listen.StatusCode != http.StatusOK {
		t.Fatalf("listen: %v %v", listen, err)
	}
	events = newEventReader(listen.Body)
	next := func() *message {
		for {
			ev, err := events.nextWithin(t, wait)
			if err != nil {
				t.Fatalf("listen stream: %v", err)
			}
			if m := ev.message(t); m != nil {
				return m
			}
		}
	}
	if got := next(); got.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("listen stream began with %+v", got)
	}
	if n := hub.Notify("notifications/tools/list_changed", nil); n != 2 {
		t.Fatalf("Notify reached %d servers, want the session's and the listener's", n)
	}
	if got := next(); got.Method != "notifications/tools/list_changed" {
		t.Fatalf("listen stream: %+v", got)
	}
	cancel()
	listen.Body.Close()
	harness.WaitFor(t, "the listener's end", func() bool { return hub.Notify("notifications/tools/list_changed", nil) == 1 })
}
