package testserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
)

func TestSimpleTools(t *testing.T) {
	c := startPipe(t, Options{})
	c.initialize()

	msg := "héllo \"world\"\n\t\u2028 <&> \x01"
	if r := c.callTool("echo", map[string]any{"message": msg}); r.text() != msg || r.IsError || len(r.Content) != 1 {
		t.Errorf("echo = %+v", r)
	}
	if r := c.callTool("sleep", map[string]any{"ms": 5}); r.text() != "slept 5ms" {
		t.Errorf("sleep = %q", r.text())
	}
	if r := c.callTool("fail", map[string]any{"message": "nope"}); !r.IsError || r.text() != "nope" {
		t.Errorf("fail = %+v", r)
	}
	resp, _ := c.responseTo(c.request("tools/call", map[string]any{"name": "rpc-error",
		"arguments": map[string]any{"code": -32042, "message": "custom"}}))
	if resp.Error == nil || resp.Error.Code != -32042 || resp.Error.Message != "custom" {
		t.Errorf("rpc-error = %+v", resp.Error)
	}
	if r := c.callTool("big", map[string]any{"bytes": 100000}); r.text() != strings.Repeat("x", 100000) {
		t.Errorf("big: %d bytes", len(r.text()))
	}

	r := c.callTool("structured", nil)
	if string(r.StructuredContent) != `{"a":1,"b":"two"}` || r.text() != `{"a":1,"b":"two"}` {
		t.Errorf("structured = %+v", r)
	}

	meta := map[string]any{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "k": []int{1}}
	r = decodeTool(t, c.call("tools/call", map[string]any{"name": "trace-meta", "_meta": meta}))
	want, _ := json.Marshal(meta)
	if r.text() != string(want) || string(r.StructuredContent) != string(want) {
		t.Errorf("trace-meta = %q / %s, want %s", r.text(), r.StructuredContent, want)
	}
	if r := c.callTool("trace-meta", nil); r.text() != "{}" {
		t.Errorf("trace-meta without _meta = %q", r.text())
	}
}

func TestContentKinds(t *testing.T) {
	c := startPipe(t, Options{})
	r := c.callTool("content-kinds", nil)
	var kinds []string
	for _, b := range r.Content {
		kinds = append(kinds, b.Type)
		switch b.Type {
		case "image":
			data, err := base64.StdEncoding.DecodeString(b.Data)
			if err != nil || b.MimeType != "image/png" {
				t.Fatalf("image: %v %s", err, b.MimeType)
			}
			if _, err := png.Decode(bytes.NewReader(data)); err != nil {
				t.Errorf("image does not decode: %v", err)
			}
		case "audio":
			data, err := base64.StdEncoding.DecodeString(b.Data)
			if err != nil || b.MimeType != "audio/wav" || !bytes.HasPrefix(data, []byte("RIFF")) {
				t.Errorf("audio: %v %s", err, b.MimeType)
			}
		case "resource_link":
			if b.URI == "" || b.Name == "" {
				t.Errorf("resource_link: %+v", b)
			}
		case "resource":
			if b.Resource.URI == "" || b.Resource.Text == "" || b.Resource.MimeType == "" {
				t.Errorf("resource: %+v", b.Resource)
			}
		}
	}
	if !slices.Equal(kinds, []string{"text", "image", "audio", "resource_link", "resource"}) {
		t.Errorf("kinds = %v", kinds)
	}
}

func TestProgress(t *testing.T) {
	c := startPipe(t, Options{})
	c.initialize()
	id := c.request("tools/call", map[string]any{"name": "progress",
		"arguments": map[string]any{"steps": 3, "intervalMs": 1}, "_meta": map[string]any{"progressToken": "tok"}})
	resp, before := c.responseTo(id)
	if r := decodeTool(t, resp.Result); r.text() != "done" {
		t.Errorf("result = %q", r.text())
	}
	if len(before) != 3 {
		t.Fatalf("got %d messages before the result, want 3", len(before))
	}
	for i, m := range before {
		var p struct {
			ProgressToken   string
			Progress, Total int
			Message         string
		}
		mustUnmarshal(t, m.Params, &p)
		if m.Method != "notifications/progress" || p.ProgressToken != "tok" || p.Progress != i+1 ||
			p.Total != 3 || p.Message != fmt.Sprintf("step %d", i+1) {
			t.Errorf("notification %d: %s %s", i, m.Method, m.Params)
		}
	}

	// Without a token: no notifications.
	id = c.request("tools/call", map[string]any{"name": "progress", "arguments": map[string]any{"steps": 2}})
	if _, before := c.responseTo(id); len(before) != 0 {
		t.Errorf("%d notifications without a progress token", len(before))
	}
}

func TestAskClient(t *testing.T) {
	c := startPipe(t, Options{})
	c.initialize()
	id := c.request("tools/call", map[string]any{"name": "ask-client",
		"arguments": map[string]any{"method": "roots/list", "params": map[string]any{"x": 1}}})
	req := c.recv()
	if req.Method != "roots/list" || string(req.ID) != `"srv-1"` || string(req.Params) != `{"x":1}` {
		t.Fatalf("server request: %s %s %s", req.Method, req.ID, req.Params)
	}
	c.sendRaw(`{"jsonrpc":"2.0","id":"srv-1","result":{"roots":[{"uri":"file:///tmp","name":"tmp"}]}}`)
	resp, _ := c.responseTo(id)
	if r := decodeTool(t, resp.Result); r.IsError || r.text() != `{"roots":[{"uri":"file:///tmp","name":"tmp"}]}` {
		t.Errorf("result = %+v", r)
	}

	// An error answer comes back as a tool error.
	id = c.request("tools/call", map[string]any{"name": "ask-client",
		"arguments": map[string]any{"method": "sampling/createMessage"}})
	req = c.recv()
	if string(req.ID) != `"srv-2"` || req.Params != nil {
		t.Fatalf("server request: %s %s", req.ID, req.Params)
	}
	c.sendRaw(`{"jsonrpc":"2.0","id":"srv-2","error":{"code":-1,"message":"denied"}}`)
	resp, _ = c.responseTo(id)
	if r := decodeTool(t, resp.Result); !r.IsError || r.text() != `{"code":-1,"message":"denied"}` {
		t.Errorf("result = %+v", r)
	}
}

func TestNotifyTool(t *testing.T) {
	c := startPipe(t, Options{})
	id := c.request("tools/call", map[string]any{"name": "notify", "arguments": map[string]any{
		"method": "notifications/resources/updated", "params": map[string]any{"uri": "test://static/1"}}})
	resp, before := c.responseTo(id)
	if len(before) != 1 || before[0].Method != "notifications/resources/updated" ||
		string(before[0].Params) != `{"uri":"test://static/1"}` || decodeTool(t, resp.Result).text() != "ok" {
		t.Errorf("before = %+v, result %s", before, resp.Result)
	}
}

func TestCancelSleep(t *testing.T) {
	c := startPipe(t, Options{ReportCancels: true})
	c.initialize()
	id := c.request("tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 60000}})
	c.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "user\nabort"})
	harness.WaitFor(t, "the cancel report", func() bool {
		return hasLine(c.stderr.String(), fmt.Sprintf("cancelled %d user abort", id))
	})
	// The sleep is gone and sends nothing, while the server still answers.
	c.call("ping", nil)
	c.expectSilence(50 * time.Millisecond)

	// A string id is found too, and reported as JSON.
	c.send(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "tools/call",
		"params": map[string]any{"name": "progress", "arguments": map[string]any{"steps": 1000, "intervalMs": 50}}})
	c.notify("notifications/cancelled", map[string]any{"requestId": "s1"})
	harness.WaitFor(t, "the cancel report", func() bool { return hasLine(c.stderr.String(), `cancelled "s1"`) })
	c.call("ping", nil)
	c.expectSilence(50 * time.Millisecond)
}

func TestNoSchemaTool(t *testing.T) {
	c := startPipe(t, Options{ToolWithoutSchema: true})
	if r := c.callTool("no-schema", nil); r.text() != "no schema" {
		t.Errorf("no-schema = %q", r.text())
	}
	resp, _ := c.responseTo(c.request("tools/call", map[string]any{"name": "no-schema"}))
	if resp.Error != nil {
		t.Errorf("no-schema without arguments: %+v", resp.Error)
	}
	c = startPipe(t, Options{})
	resp, _ = c.responseTo(c.request("tools/call", map[string]any{"name": "no-schema"}))
	if resp.Error == nil {
		t.Error("no-schema offered by default")
	}
}

func TestEchoArgumentShapes(t *testing.T) {
	c := startPipe(t, Options{})
	// Shapes the fast path leaves to encoding/json must behave the same.
	for _, tc := range []struct{ args, want string }{
		{`{"message":"plain"}`, "plain"},
		{`{"message":"esc\"aped\u00e9"}`, "esc\"apedé"},
		{`{"Message":"folded"}`, "folded"},
		{`{}`, ""},
		{`null`, ""},
	} {
		c.sendRaw(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":` + tc.args + `}}`)
		if r := decodeTool(t, c.recv().Result); r.text() != tc.want {
			t.Errorf("%s: %q, want %q", tc.args, r.text(), tc.want)
		}
	}
	c.sendRaw(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":5}}}`)
	if m := c.recv(); m.Error == nil || m.Error.Code != codeInvalidParams {
		t.Errorf("numeric message: %+v", m)
	}
}
