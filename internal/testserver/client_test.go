package testserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// wait bounds every blocking step of the tests.
const wait = 10 * time.Second

// client is a minimal JSON-lines MCP client for the tests. It talks either
// to Serve over io.Pipe (startPipe) or to a child process (child_test.go).
type client struct {
	t      *testing.T
	w      io.WriteCloser
	lines  chan []byte // raw stdout lines, closed at EOF
	stderr *harness.Log
	nextID int
}

// readLines copies r's lines into a channel until EOF.
func readLines(r io.Reader) chan []byte {
	lines := make(chan []byte, 1024)
	go func() {
		defer close(lines)
		br := bufio.NewReaderSize(r, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				lines <- bytes.TrimRight(line, "\r\n")
			}
			if err != nil {
				return
			}
		}
	}()
	return lines
}

// pipeServer is an in-process server driven through pipes.
type pipeServer struct {
	*client
	cancel context.CancelFunc
	done   chan error // Serve's result
}

// startPipe runs Serve with opts over pipes, stopping it at cleanup.
func startPipe(t *testing.T, opts Options) *pipeServer {
	t.Helper()
	return startServe(t, func(ctx context.Context, in io.Reader, out, errOut io.Writer) error {
		return Serve(ctx, in, out, errOut, opts)
	})
}

// startServe runs serve (Serve or ServeSpec) over pipes, stopping it at
// cleanup.
func startServe(t *testing.T, serve func(ctx context.Context, in io.Reader, out, errOut io.Writer) error) *pipeServer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	p := &pipeServer{
		client: &client{t: t, w: inW, stderr: &harness.Log{}},
		cancel: cancel,
		done:   make(chan error, 1),
	}
	go func() {
		err := serve(ctx, inR, outW, p.stderr)
		outW.Close()
		p.done <- err
	}()
	p.lines = readLines(outR)
	t.Cleanup(func() {
		inW.Close()
		cancel()
		for range p.lines { // unblock the server's writes until it is gone
		}
		select {
		case <-p.done:
		case <-time.After(wait):
			t.Error("Serve did not return")
		}
	})
	return p
}

// wait returns Serve's result.
func (p *pipeServer) wait() error {
	p.t.Helper()
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		return err
	case <-time.After(wait):
		p.t.Fatal("Serve did not return")
		return nil
	}
}

// sendRaw writes one line.
func (c *client) sendRaw(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("writing %q: %v", line, err)
	}
}

// send writes one message.
func (c *client) send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(string(b))
}

// request sends a request with a fresh numeric id and returns the id.
func (c *client) request(method string, params any) int {
	c.t.Helper()
	c.nextID++
	m := map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method}
	if params != nil {
		m["params"] = params
	}
	c.send(m)
	return c.nextID
}

// notify sends a notification.
func (c *client) notify(method string, params any) {
	c.t.Helper()
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// recvLine returns the next raw stdout line.
func (c *client) recvLine() []byte {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatal("server stdout closed; stderr: " + c.stderr.String())
		}
		return l
	case <-time.After(wait):
		c.t.Fatal("timed out waiting for a line; stderr: " + c.stderr.String())
		return nil
	}
}

// recv returns the next stdout message.
func (c *client) recv() *message {
	c.t.Helper()
	l := c.recvLine()
	var m message
	if err := json.Unmarshal(l, &m); err != nil {
		c.t.Fatalf("not JSON: %q: %v", truncate(l), err)
	}
	return &m
}

// expectSilence checks that nothing arrives on stdout for d.
func (c *client) expectSilence(d time.Duration) {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if ok {
			c.t.Fatalf("unexpected line %q", truncate(l))
		}
	case <-time.After(d):
	}
}

// responseTo reads messages until the response to id, returning it and the
// messages read before it.
func (c *client) responseTo(id int) (*message, []*message) {
	c.t.Helper()
	var before []*message
	want := fmt.Sprint(id)
	for {
		m := c.recv()
		if m.Method == "" && idKey(m.ID) == want {
			return m, before
		}
		before = append(before, m)
	}
}

// call sends a request and returns its result, failing on an error answer.
func (c *client) call(method string, params any) json.RawMessage {
	c.t.Helper()
	resp, _ := c.responseTo(c.request(method, params))
	if resp.Error != nil {
		c.t.Fatalf("%s: error %d %s", method, resp.Error.Code, resp.Error.Message)
	}
	return resp.Result
}

// initialize performs the handshake.
func (c *client) initialize() json.RawMessage {
	c.t.Helper()
	res := c.call("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "test", "version": "0"},
	})
	c.notify("notifications/initialized", map[string]any{})
	return res
}

// toolResult is a decoded tools/call result.
type toolResult struct {
	Content []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Data     string          `json:"data"`
		MimeType string          `json:"mimeType"`
		URI      string          `json:"uri"`
		Name     string          `json:"name"`
		Resource resourceContent `json:"resource"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// text returns the first content's text.
func (r *toolResult) text() string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// decodeTool decodes a tools/call result.
func decodeTool(t *testing.T, raw json.RawMessage) *toolResult {
	t.Helper()
	var r toolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("tool result %s: %v", truncate(raw), err)
	}
	return &r
}

// callTool calls a tool and decodes its result.
func (c *client) callTool(name string, args any) *toolResult {
	c.t.Helper()
	return decodeTool(c.t, c.call("tools/call", map[string]any{"name": name, "arguments": args}))
}

// truncate shortens long lines in failure messages.
func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..." + fmt.Sprintf("(%d bytes)", len(b))
	}
	return string(b)
}

// mustUnmarshal decodes raw into v.
func mustUnmarshal(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decoding %s: %v", truncate(raw), err)
	}
}

// hasLine reports whether text contains line as a whole line.
func hasLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l == line {
			return true
		}
	}
	return false
}
