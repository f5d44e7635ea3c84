package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// wireSession is the hand-written Streamable HTTP client, the reference
// over HTTP: one session on net/http with no MCP library. It initializes
// (initialize, then notifications/initialized), keeps the Mcp-Session-Id
// the server gives, and makes each call one POST carrying it and
// MCP-Protocol-Version, whose answer it reads as JSON or as an event
// stream, as the server chooses
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http).
type wireSession struct {
	url     string
	hc      *http.Client
	version string
	session string
	nextID  atomic.Int64
}

// wireVersion is the session-era version the reference asks for.
const wireVersion = "2025-11-25"

// wireMessage is what the reference decodes of an answer.
type wireMessage struct {
	ID json.RawMessage `json:"id"`
	measure.WireReply
}

// upWire brings every session up with the hand-written client, all on one
// shared http.Client.
func upWire(ctx context.Context, sp spec, env *environment) (fleet, []error, error) {
	hc := sharedHTTPClient(sp)
	f, failed := upSessions(ctx, sp, func(ctx context.Context, _ int) (measure.Client, error) {
		return dialWire(ctx, env.url, hc)
	})
	f.after = closeIdle(hc)
	return f, failed, nil
}

func dialWire(ctx context.Context, url string, hc *http.Client) (*wireSession, error) {
	w := &wireSession{url: url, hc: hc}
	w.nextID.Store(1)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + wireVersion + `",` +
		`"capabilities":{},"clientInfo":{"name":"scale-wire","version":"0.0.1"}}}`
	m, resp, err := w.post(ctx, []byte(body), "1")
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if m.Error != nil || m.Result == nil {
		return nil, fmt.Errorf("initialize: %+v", m.Error)
	}
	w.version = m.Result.ProtocolVersion
	w.session = resp.Header.Get("Mcp-Session-Id")
	if _, _, err := w.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), ""); err != nil {
		return nil, fmt.Errorf("initialized: %w", err)
	}
	return w, nil
}

func (w *wireSession) Call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	id := w.nextID.Add(1)
	b := measure.AppendToolCall(make([]byte, 0, 96+len(tool)+len(args)), id, tool, args)
	b = append(b, "}}"...)
	m, _, err := w.post(ctx, b, strconv.FormatInt(id, 10))
	if err != nil {
		return "", err
	}
	return m.FirstText()
}

// post sends one message and reads the answer whose id is id ("" for a
// notification, which has none: a 202 is expected).
func (w *wireSession) post(ctx context.Context, body []byte, id string) (*wireMessage, *http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	if w.version != "" {
		req.Header["Mcp-Protocol-Version"] = []string{w.version}
	}
	if w.session != "" {
		req.Header["Mcp-Session-Id"] = []string{w.session}
	}
	resp, err := w.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}()
	if resp.StatusCode/100 != 2 {
		return nil, resp, fmt.Errorf("status %d", resp.StatusCode)
	}
	if id == "" {
		return nil, resp, nil
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "text/event-stream" {
		var m wireMessage
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			return nil, resp, err
		}
		if string(m.ID) != id {
			return nil, resp, fmt.Errorf("answer to id %s, want %s", m.ID, id)
		}
		return &m, resp, nil
	}
	// An event stream: the answer is the data of the event that carries
	// a message with the request's id; others (notifications) are
	// skipped.
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 4096), 16<<20)
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			data.WriteString(strings.TrimPrefix(d, " "))
			continue
		}
		if line != "" || data.Len() == 0 {
			continue
		}
		var m wireMessage
		if json.Unmarshal([]byte(data.String()), &m) == nil && m.Method == "" && string(m.ID) == id {
			return &m, resp, nil
		}
		data.Reset()
	}
	if err := sc.Err(); err != nil {
		return nil, resp, err
	}
	return nil, resp, fmt.Errorf("the event stream ended without the answer to id %s", id)
}

func (w *wireSession) Protocol() string { return w.version }

// Close ends the session with DELETE, as a client that leaves should.
func (w *wireSession) Close(ctx context.Context) error {
	if w.session == "" {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, w.url, nil)
	if err != nil {
		return err
	}
	req.Header = http.Header{"Mcp-Session-Id": {w.session}, "Mcp-Protocol-Version": {w.version}}
	resp, err := w.hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}
