package fastserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
)

// post sends one message with the given headers (name, value, ...) and
// returns the response and its body.
func post(t *testing.T, url, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	return do(t, http.MethodPost, url, body, headers...)
}

func do(t *testing.T, method, url, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// decode checks a request's answer: 200, application/json with a
// Content-Length, one JSON-RPC response.
func decode(t *testing.T, resp *http.Response, body string) reply {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200: %.200s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if cl := resp.Header.Get("Content-Length"); cl != strconv.Itoa(len(body)) {
		t.Errorf("Content-Length %q, body %d bytes", cl, len(body))
	}
	var r reply
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("%v: %.200s", err, body)
	}
	return r
}

func newHTTPServer(t *testing.T, stateless bool) *httptest.Server {
	srv := httptest.NewServer(NewHTTPHandler(stateless))
	t.Cleanup(srv.Close)
	return srv
}

func echoCall(id int, msg string) string {
	m, _ := json.Marshal(msg)
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"echo","arguments":{"message":` + string(m) + `}}}`
}

func TestHTTPSession(t *testing.T) {
	srv := newHTTPServer(t, false)
	resp, body := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if r := decode(t, resp, body); r.Result == nil || r.Result.ProtocolVersion != "2025-06-18" {
		t.Fatalf("initialize: %s", body)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("initialize assigned no session")
	}
	resp, body = post(t, srv.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-06-18")
	if resp.StatusCode != http.StatusAccepted || body != "" {
		t.Errorf("notification: status %d, body %q; want 202 and no body", resp.StatusCode, body)
	}
	resp, body = post(t, srv.URL, `{"jsonrpc":"2.0","id":9,"result":{}}`, "Mcp-Session-Id", sid)
	if resp.StatusCode != http.StatusAccepted || body != "" {
		t.Errorf("response: status %d, body %q; want 202 and no body", resp.StatusCode, body)
	}
	msg := "héllo \"there\"\n"
	resp, body = post(t, srv.URL, echoCall(2, msg), "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-06-18")
	if r := decode(t, resp, body); string(r.ID) != "2" || r.Result == nil || len(r.Result.Content) != 1 || r.Result.Content[0].Text != msg {
		t.Errorf("echo: %s", body)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a session id on an answer other than initialize's")
	}
	// An answer longer than net/http's chunking buffer has its length too.
	resp, body = post(t, srv.URL, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"big","arguments":{"bytes":5000}}}`, "Mcp-Session-Id", sid)
	if r := decode(t, resp, body); r.Result == nil || len(r.Result.Content) != 1 || r.Result.Content[0].Text != strings.Repeat("x", 5000) {
		t.Errorf("big: %.200s", body)
	}

	if resp, _ := do(t, http.MethodGet, srv.URL, "", "Mcp-Session-Id", sid); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: status %d, want 405", resp.StatusCode)
	}
	if resp, _ := do(t, http.MethodDelete, srv.URL, "", "Mcp-Session-Id", sid); resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: status %d, want 204", resp.StatusCode)
	}
	if resp, _ := post(t, srv.URL, echoCall(4, "x"), "Mcp-Session-Id", sid); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a request in the deleted session: status %d, want 404", resp.StatusCode)
	}
	if resp, _ := do(t, http.MethodDelete, srv.URL, "", "Mcp-Session-Id", sid); resp.StatusCode != http.StatusNotFound {
		t.Errorf("DELETE of the deleted session: status %d, want 404", resp.StatusCode)
	}
}

func TestHTTPSessionRequired(t *testing.T) {
	srv := newHTTPServer(t, false)
	if resp, body := post(t, srv.URL, echoCall(1, "x")); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("no session: status %d, want 400: %s", resp.StatusCode, body)
	}
	if resp, _ := post(t, srv.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a notification without a session: status %d, want 400", resp.StatusCode)
	}
	if resp, _ := post(t, srv.URL, echoCall(1, "x"), "Mcp-Session-Id", "nope"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown session: status %d, want 404", resp.StatusCode)
	}
	// A dual-era client's probe: -32601, as over stdio.
	resp, body := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, "Mcp-Protocol-Version", "2026-07-28")
	if r := decode(t, resp, body); r.Error == nil || r.Error.Code != -32601 {
		t.Errorf("server/discover without a session: %s", body)
	}
	if resp, _ := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, "Mcp-Protocol-Version", "1999-01-01"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown MCP-Protocol-Version: status %d, want 400", resp.StatusCode)
	}
	if resp, _ := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, "Origin", "https://evil.example"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign Origin: status %d, want 403", resp.StatusCode)
	}
}

func TestHTTPSessionBound(t *testing.T) {
	h := NewHTTPHandler(false).(*httpHandler)
	h.maxSessions = 2
	srv := httptest.NewServer(h)
	defer srv.Close()
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	var sids []string
	for range 2 {
		resp, body := post(t, srv.URL, init)
		decode(t, resp, body)
		sids = append(sids, resp.Header.Get("Mcp-Session-Id"))
	}
	if sids[0] == sids[1] {
		t.Errorf("two sessions with one id")
	}
	if resp, _ := post(t, srv.URL, init); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("an initialize beyond the bound: status %d, want 503", resp.StatusCode)
	}
	do(t, http.MethodDelete, srv.URL, "", "Mcp-Session-Id", sids[0])
	if resp, body := post(t, srv.URL, init); resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("an initialize after a DELETE: status %d: %s", resp.StatusCode, body)
	}
}

func TestHTTPStateless(t *testing.T) {
	srv := newHTTPServer(t, true)
	resp, body := post(t, srv.URL, `{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{}}`, "Mcp-Protocol-Version", "2026-07-28")
	r := decode(t, resp, body)
	var disc struct {
		Result struct {
			SupportedVersions []string `json:"supportedVersions"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &disc); err != nil || string(r.ID) != `"d"` ||
		len(disc.Result.SupportedVersions) == 0 || disc.Result.SupportedVersions[0] != "2026-07-28" {
		t.Errorf("server/discover: %s", body)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a session in stateless mode")
	}
	// No session is needed, and none is given.
	resp, body = post(t, srv.URL, echoCall(5, "stateless"), "Mcp-Protocol-Version", "2026-07-28")
	var echo struct {
		Result struct {
			ResultType string `json:"resultType"`
			Meta       map[string]json.RawMessage
			Content    []struct{ Text string }
		} `json:"result"`
	}
	r = decode(t, resp, body)
	if err := json.Unmarshal([]byte(body), &echo); err != nil || string(r.ID) != "5" || echo.Result.ResultType != "complete" ||
		len(echo.Result.Content) != 1 || echo.Result.Content[0].Text != "stateless" {
		t.Errorf("echo: %s", body)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a session in stateless mode")
	}
	resp, body = post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	if r := decode(t, resp, body); resp.Header.Get("Mcp-Session-Id") != "" || r.Result == nil {
		t.Errorf("initialize in stateless mode: session %q", resp.Header.Get("Mcp-Session-Id"))
	}
	if resp, _ := do(t, http.MethodDelete, srv.URL, ""); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("DELETE in stateless mode: status %d, want 405", resp.StatusCode)
	}
}

func TestHTTPSleep(t *testing.T) {
	srv := newHTTPServer(t, true)
	const ms = 150
	start := time.Now()
	resp, body := post(t, srv.URL, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":150}}}`)
	took := time.Since(start)
	if r := decode(t, resp, body); string(r.ID) != "7" || r.Result == nil || len(r.Result.Content) != 1 || r.Result.Content[0].Text != "slept 150ms" {
		t.Errorf("sleep: %s", body)
	}
	if took < ms*time.Millisecond {
		t.Errorf("answered after %v, before the sleep's %dms", took, ms)
	}

	// A client that gives up gets no answer, and the late answer does not
	// reach the next request, which reuses the scratch.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL,
		strings.NewReader(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":200}}}`))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_ = resp.Body.Close()
		t.Errorf("a sleep of 200ms answered within 50ms: status %d", resp.StatusCode)
	}
	deadline := time.Now().Add(400 * time.Millisecond)
	for i := 10; time.Now().Before(deadline); i++ {
		resp, body := post(t, srv.URL, echoCall(i, "after"))
		if r := decode(t, resp, body); string(r.ID) != strconv.Itoa(i) {
			t.Fatalf("request %d answered %s", i, body)
		}
	}
}

func TestHTTPBodyBounds(t *testing.T) {
	srv := newHTTPServer(t, true)
	resp, _ := post(t, srv.URL, echoCall(1, strings.Repeat("x", MaxHTTPBody)))
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: status %d, want 413", resp.StatusCode)
	}
	// Just under the bound is answered.
	msg := strings.Repeat("y", MaxHTTPBody-200)
	resp, body := post(t, srv.URL, echoCall(2, msg))
	if r := decode(t, resp, body); r.Result == nil || len(r.Result.Content) != 1 || r.Result.Content[0].Text != msg {
		t.Errorf("a body under the bound: %.200s", body)
	}
	resp, body = post(t, srv.URL, `not json`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("not json: status %d, want 400", resp.StatusCode)
	}
	var r reply
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error == nil || r.Error.Code != -32700 {
		t.Errorf("not json: %s", body)
	}
}

// TestHTTPMcpactorClient: the runtime's own client, as a user configures
// it, calls echo in both modes.
func TestHTTPMcpactorClient(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stateless bool
		protocol  string
	}{{"sessions", false, "2025-11-25"}, {"stateless", true, "2026-07-28"}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newHTTPServer(t, tc.stateless)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			rt, err := mcpactor.Start(mcpactor.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = rt.Stop(ctx) }()
			c, err := rt.Connect(ctx, "fast", mcpactor.ServerConfig{URL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			if v := c.ProtocolVersion(); v != tc.protocol {
				t.Errorf("protocol %q, want %q", v, tc.protocol)
			}
			for i := range 3 {
				msg := "call " + strconv.Itoa(i)
				res, err := c.CallTool(ctx, "echo", map[string]string{"message": msg})
				if err != nil {
					t.Fatal(err)
				}
				if res.IsError || len(res.Content) != 1 || res.Content[0].Text != msg {
					t.Fatalf("echo: %+v", res)
				}
			}
			if err := c.Close(ctx); err != nil {
				t.Errorf("close: %v", err)
			}
		})
	}
}
