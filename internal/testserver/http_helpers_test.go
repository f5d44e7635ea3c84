package testserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// httpServer is an HTTPHandler behind an httptest server, with a client of
// its own; both are closed, connections included, when the test ends.
type httpServer struct {
	t      *testing.T
	h      *HTTPHandler
	ts     *httptest.Server
	url    string // the Streamable HTTP endpoint
	client *http.Client
	stderr *harness.Log
}

func startHTTP(t *testing.T, opts Options) *httpServer {
	t.Helper()
	s := &httpServer{t: t, stderr: &harness.Log{}}
	s.h = NewHTTPHandler(opts, s.stderr)
	s.ts = httptest.NewServer(s.h)
	s.url = s.ts.URL + HTTPPath
	tr := &http.Transport{}
	s.client = &http.Client{Transport: tr}
	t.Cleanup(func() {
		s.h.Close()
		tr.CloseIdleConnections()
		s.ts.Close()
	})
	return s
}

// mcpClient is a minimal Streamable HTTP client for the tests: raw
// requests, so that every header and status is visible.
type mcpClient struct {
	s       *httpServer
	session string
	version string
	nextID  int
}

func (s *httpServer) newClient() *mcpClient {
	return &mcpClient{s: s, version: LatestProtocolVersion}
}

// do sends an HTTP request to the endpoint with the client's headers;
// extra headers are name, value pairs.
func (c *mcpClient) do(ctx context.Context, method string, body []byte, extra ...string) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.s.url, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		req.Header.Set("Mcp-Protocol-Version", c.version)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			req.Header.Del(extra[i])
		} else {
			req.Header.Set(extra[i], extra[i+1])
		}
	}
	return c.s.client.Do(req)
}

// must is do that fails the test on a transport error.
func (c *mcpClient) must(method string, body []byte, extra ...string) *http.Response {
	c.s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	c.s.t.Cleanup(cancel)
	resp, err := c.do(ctx, method, body, extra...)
	if err != nil {
		c.s.t.Fatalf("%s: %v", method, err)
	}
	c.s.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// requestBody encodes a request with a fresh id.
func (c *mcpClient) requestBody(method string, params any) ([]byte, int) {
	c.nextID++
	m := map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return b, c.nextID
}

// post sends a request and returns the HTTP response and the request id.
func (c *mcpClient) post(method string, params any, extra ...string) (*http.Response, int) {
	c.s.t.Helper()
	b, id := c.requestBody(method, params)
	return c.must(http.MethodPost, b, extra...), id
}

// notify posts a notification, expecting 202.
func (c *mcpClient) notify(method string) {
	c.s.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	if resp := c.must(http.MethodPost, b); resp.StatusCode != http.StatusAccepted {
		c.s.t.Fatalf("notification %s: HTTP %d", method, resp.StatusCode)
	}
}

// initialize runs the handshake and keeps the session id.
func (c *mcpClient) initialize() {
	c.s.t.Helper()
	c.version = ""
	resp, _ := c.post("initialize", map[string]any{"protocolVersion": LatestProtocolVersion,
		"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	m := c.answer(resp)
	if m.Error != nil || !strings.Contains(string(m.Result), LatestProtocolVersion) {
		c.s.t.Fatalf("initialize: %s %v", m.Result, m.Error)
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	if c.session == "" {
		c.s.t.Fatal("initialize assigned no Mcp-Session-Id")
	}
	c.version = LatestProtocolVersion
	c.notify("notifications/initialized")
}

// answer reads the response to a request, from a JSON body or the end of
// an event stream.
func (c *mcpClient) answer(resp *http.Response) *message {
	c.s.t.Helper()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		c.s.t.Fatalf("HTTP %d: %s", resp.StatusCode, body)
	}
	if isMediaType(resp.Header.Get("Content-Type"), "text/event-stream") {
		r := newEventReader(resp.Body)
		for {
			ev, err := r.next()
			if err != nil {
				c.s.t.Fatalf("stream ended without a response: %v", err)
			}
			if m := ev.message(c.s.t); m != nil && m.Method == "" {
				return m
			}
		}
	}
	var m message
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		c.s.t.Fatalf("bad JSON answer: %v", err)
	}
	return &m
}

// callTool calls a tool and returns its first text.
func (c *mcpClient) callTool(name string, args any) string {
	c.s.t.Helper()
	resp, _ := c.post("tools/call", map[string]any{"name": name, "arguments": args})
	m := c.answer(resp)
	var r toolResult
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil {
		c.s.t.Fatalf("tools/call %s: %s %v", name, m.Result, m.Error)
	}
	return r.text()
}

// sseEvent is one event of an event stream, as the tests read it.
type sseEvent struct {
	id, typ, data, retry string
	hasID, hasData       bool
}

// message decodes the event's data, nil for an event without data.
func (e sseEvent) message(t *testing.T) *message {
	t.Helper()
	if e.data == "" {
		return nil
	}
	var m message
	if err := json.Unmarshal([]byte(e.data), &m); err != nil {
		t.Fatalf("event data is not JSON: %q", e.data)
	}
	return &m
}

// eventReader reads events line by line: enough of the SSE rules for our
// own server's output (blank line ends an event; id, event, data, retry).
type eventReader struct{ br *bufio.Reader }

func newEventReader(r io.Reader) *eventReader { return &eventReader{br: bufio.NewReader(r)} }

// next returns the next event, retry-only ones included.
func (r *eventReader) next() (sseEvent, error) {
	var ev sseEvent
	var data []string
	started := false
	for {
		line, err := r.br.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && line == "" {
				err = io.EOF
			}
			return ev, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if started {
				ev.data = strings.Join(data, "\n")
				return ev, nil
			}
			continue
		}
		started = true
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "id":
			ev.id, ev.hasID = value, true
		case "event":
			ev.typ = value
		case "data":
			data, ev.hasData = append(data, value), true
		case "retry":
			ev.retry = value
		}
	}
}

// nextWithin is next bounded by d; the reader must not be used after a
// timeout.
func (r *eventReader) nextWithin(t *testing.T, d time.Duration) (sseEvent, error) {
	t.Helper()
	type res struct {
		ev  sseEvent
		err error
	}
	ch := make(chan res, 1)
	go func() {
		ev, err := r.next()
		ch <- res{ev, err}
	}()
	select {
	case x := <-ch:
		return x.ev, x.err
	case <-time.After(d):
		t.Fatal("no event within " + d.String())
		return sseEvent{}, nil
	}
}

// rawID is the JSON form of a test request id.
func rawID(id int) string { return strconv.Itoa(id) }
