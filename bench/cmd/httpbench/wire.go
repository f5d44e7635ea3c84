package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// wireClient is the reference: a minimal hand-written Streamable HTTP
// client on net/http, with no MCP library. It asks server/discover once;
// if the server offers 2026-07-28 it speaks that (no session: every
// request carries the version in _meta and in MCP-Protocol-Version, with
// Mcp-Method and Mcp-Name), and otherwise it initializes a session
// (initialize, then notifications/initialized) and sends Mcp-Session-Id
// and MCP-Protocol-Version with every request. Each call is one POST,
// whose answer is read as JSON or as an event stream, as the server
// chooses. Its http.Client is tunedHTTPClient.
type wireClient struct {
	url     string
	hc      *http.Client
	version string
	modern  bool
	// headers every request carries besides its own: the values are
	// shared, read-only slices.
	session []string
	pv      []string

	nextID atomic.Int64
}

const (
	versionModern  = "2026-07-28"
	versionSession = "2025-11-25"
	modernMeta     = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + versionModern + `",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"httpbench-wire","version":"0.0.1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{}}`
)

var (
	hvJSON      = []string{"application/json"}
	hvAccept    = []string{"application/json, text/event-stream"}
	hvToolsCall = []string{"tools/call"}
	hvEcho      = []string{"echo"}
	hvDiscover  = []string{"server/discover"}
	hvModernPV  = []string{versionModern}
	bufferPool  = sync.Pool{New: func() any { return new(bytes.Buffer) }}
)

// wireMessage is what the client decodes of an answer.
type wireMessage struct {
	ID json.RawMessage `json:"id"`
	measure.WireReply
}

func dialWire(ctx context.Context, url string, n int) (measure.Client, error) {
	w := &wireClient{url: url, hc: tunedHTTPClient(n)}
	fail := func(err error) (measure.Client, error) {
		measure.CloseIdle(w.hc)
		return nil, fmt.Errorf("wire: %w", err)
	}

	// server/discover, as a request of the 2026-07-28 revision.
	body := `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{` + modernMeta + `}}`
	h := http.Header{"Content-Type": hvJSON, "Accept": hvAccept, "Mcp-Protocol-Version": hvModernPV, "Mcp-Method": hvDiscover}
	if m, _, err := w.post(ctx, []byte(body), h, "0"); err == nil && m.Error == nil && m.Result != nil &&
		slices.Contains(m.Result.SupportedVersions, versionModern) {
		w.modern, w.version, w.pv = true, versionModern, hvModernPV
		return w, nil
	}

	// The session era: initialize, then notifications/initialized.
	body = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + versionSession + `",` +
		`"capabilities":{},"clientInfo":{"name":"httpbench-wire","version":"0.0.1"}}}`
	m, resp, err := w.post(ctx, []byte(body), http.Header{"Content-Type": hvJSON, "Accept": hvAccept}, "1")
	if err != nil {
		return fail(fmt.Errorf("initialize: %w", err))
	}
	if m.Error != nil || m.Result == nil {
		return fail(fmt.Errorf("initialize: %+v", m.Error))
	}
	w.version = m.Result.ProtocolVersion
	w.pv = []string{w.version}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		w.session = []string{sid}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url,
		strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		return fail(err)
	}
	req.Header = w.headers()
	resp, err = w.hc.Do(req)
	if err != nil {
		return fail(fmt.Errorf("initialized: %w", err))
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fail(fmt.Errorf("initialized: status %d", resp.StatusCode))
	}
	return w, nil
}

// headers are a request's headers: content type, accept, and the
// session's or the era's.
func (w *wireClient) headers() http.Header {
	h := http.Header{"Content-Type": hvJSON, "Accept": hvAccept, "Mcp-Protocol-Version": w.pv}
	if w.session != nil {
		h["Mcp-Session-Id"] = w.session
	}
	return h
}

func (w *wireClient) Call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	id := w.nextID.Add(1) + 1 // 0 and 1 went to discover and initialize
	idText := strconv.FormatInt(id, 10)
	// Not pooled: the transport may hold the body until the request is
	// done with.
	buf := measure.AppendToolCall(make([]byte, 0, 96+len(tool)+len(args)+len(modernMeta)), id, tool, args)
	if w.modern {
		buf = append(buf, ',')
		buf = append(buf, modernMeta...)
	}
	buf = append(buf, "}}"...)

	h := w.headers()
	if w.modern {
		h["Mcp-Method"] = hvToolsCall
		h["Mcp-Name"] = hvEcho
		if tool != "echo" {
			h["Mcp-Name"] = []string{tool}
		}
	}
	m, _, err := w.post(ctx, buf, h, idText)
	if err != nil {
		return "", err
	}
	return m.FirstText()
}

// post sends one JSON-RPC request and reads its answer: a JSON body, or
// the event of an event stream that carries the response with id (the
// stream's other messages are skipped).
func (w *wireClient) post(ctx context.Context, body []byte, h http.Header, id string) (*wireMessage, *http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = h
	resp, err := w.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		// Drained, so that the connection goes back to the pool.
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}()
	ct := mediaType(resp.Header.Get("Content-Type"))
	var m wireMessage
	switch {
	case resp.StatusCode != http.StatusOK && ct != "application/json":
		return nil, resp, fmt.Errorf("status %d", resp.StatusCode)
	case ct == "application/json":
		b := bufferPool.Get().(*bytes.Buffer)
		defer bufferPool.Put(b)
		b.Reset()
		if _, err := b.ReadFrom(resp.Body); err != nil {
			return nil, resp, err
		}
		if err := json.Unmarshal(b.Bytes(), &m); err != nil {
			return nil, resp, fmt.Errorf("status %d, body %q: %w", resp.StatusCode, b.Bytes(), err)
		}
		if m.Error == nil && resp.StatusCode != http.StatusOK {
			return nil, resp, fmt.Errorf("status %d", resp.StatusCode)
		}
		return &m, resp, nil
	case ct == "text/event-stream":
		err := readEvents(resp.Body, func(data []byte) bool {
			var e wireMessage
			if json.Unmarshal(data, &e) != nil || e.Method != "" || string(e.ID) != id {
				return false
			}
			m = e
			return true
		})
		if err != nil {
			return nil, resp, err
		}
		return &m, resp, nil
	}
	return nil, resp, fmt.Errorf("status %d, content type %q", resp.StatusCode, ct)
}

func (w *wireClient) Protocol() string { return w.version }

// Close ends the session (DELETE), if there is one, and closes the idle
// connections.
func (w *wireClient) Close(ctx context.Context) error {
	defer measure.CloseIdle(w.hc)
	if w.session == nil {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, w.url, nil)
	if err != nil {
		return err
	}
	req.Header = w.headers()
	resp, err := w.hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}
