package testserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestInitialize(t *testing.T) {
	for _, tc := range []struct{ offered, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"1999-01-01", LatestProtocolVersion},
		{"", LatestProtocolVersion},
	} {
		t.Run(tc.offered, func(t *testing.T) {
			c := startPipe(t, Options{})
			var res struct {
				ProtocolVersion string                     `json:"protocolVersion"`
				Capabilities    map[string]json.RawMessage `json:"capabilities"`
				ServerInfo      struct{ Name, Version string }
				Instructions    string `json:"instructions"`
			}
			mustUnmarshal(t, c.call("initialize", map[string]any{"protocolVersion": tc.offered}), &res)
			if res.ProtocolVersion != tc.want {
				t.Errorf("protocolVersion = %q, want %q", res.ProtocolVersion, tc.want)
			}
			if res.ServerInfo.Name != ServerName || res.ServerInfo.Version != ServerVersion || res.Instructions == "" {
				t.Errorf("serverInfo/instructions = %+v %q", res.ServerInfo, res.Instructions)
			}
			for _, k := range []string{"tools", "resources", "prompts", "logging", "completions"} {
				if _, ok := res.Capabilities[k]; !ok {
					t.Errorf("capability %s missing", k)
				}
			}
			c.notify("notifications/initialized", map[string]any{})
			if got := string(c.call("ping", nil)); got != "{}" {
				t.Errorf("ping = %s", got)
			}
		})
	}
}

func TestLenientBeforeInitialize(t *testing.T) {
	c := startPipe(t, Options{})
	var res struct{ Tools []tool }
	mustUnmarshal(t, c.call("tools/list", nil), &res)
	if len(res.Tools) == 0 {
		t.Fatal("no tools before initialize")
	}
}

func TestErrors(t *testing.T) {
	c := startPipe(t, Options{})
	c.initialize()

	resp, _ := c.responseTo(c.request("no/such/method", nil))
	if resp.Error == nil || resp.Error.Code != codeMethodNotFound || resp.Error.Message != "Method not found" {
		t.Errorf("unknown method: %+v", resp.Error)
	}
	c.sendRaw("this is not json")
	if m := c.recv(); m.Error == nil || m.Error.Code != codeParseError || string(m.ID) != "null" {
		t.Errorf("parse error: %+v id %s", m.Error, m.ID)
	}
	resp, _ = c.responseTo(c.request("tools/call", map[string]any{"name": "nope"}))
	if resp.Error == nil || resp.Error.Code != codeInvalidParams {
		t.Errorf("unknown tool: %+v", resp.Error)
	}
	// Unknown notifications and client responses to nothing are ignored.
	c.notify("notifications/whatever", map[string]any{})
	c.sendRaw(`{"jsonrpc":"2.0","id":"srv-999","result":{}}`)
	c.call("ping", nil)
}

func TestToolsList(t *testing.T) {
	names := func(c *client) (all []string, pages int) {
		var cursor *string
		for pages = 1; ; pages++ {
			params := map[string]any{}
			if cursor != nil {
				params["cursor"] = *cursor
			}
			var res struct {
				Tools      []tool
				NextCursor string `json:"nextCursor"`
			}
			mustUnmarshal(c.t, c.call("tools/list", params), &res)
			for _, tl := range res.Tools {
				all = append(all, tl.Name)
				if tl.Name != "no-schema" && len(tl.InputSchema) == 0 {
					c.t.Errorf("tool %s has no inputSchema", tl.Name)
				}
			}
			if res.NextCursor == "" {
				return all, pages
			}
			cursor = &res.NextCursor
		}
	}
	want := []string{"echo", "sleep", "progress", "fail", "rpc-error", "big", "structured",
		"content-kinds", "trace-meta", "ask-client", "notify", "crash"}

	all, pages := names(startPipe(t, Options{}).client)
	if !slices.Equal(all, want) || pages != 1 {
		t.Errorf("one page: %v in %d pages", all, pages)
	}
	all, pages = names(startPipe(t, Options{PageSize: 5, ToolWithoutSchema: true}).client)
	if !slices.Equal(all, append(want, "no-schema")) || pages != 3 {
		t.Errorf("paged: %v in %d pages", all, pages)
	}

	c := startPipe(t, Options{EndlessCursor: true, PageSize: 4})
	var first string
	for i := range 5 {
		params := map[string]any{}
		if i > 0 {
			params["cursor"] = first
		}
		var res struct{ NextCursor string }
		mustUnmarshal(t, c.call("tools/list", params), &res)
		if res.NextCursor == "" || (i > 0 && res.NextCursor != first) {
			t.Fatalf("page %d: nextCursor %q, first %q", i, res.NextCursor, first)
		}
		first = res.NextCursor
	}
	resp, _ := c.responseTo(c.request("tools/list", map[string]any{"cursor": "garbage"}))
	if resp.Error == nil || resp.Error.Code != codeInvalidParams {
		t.Errorf("bad cursor: %+v", resp.Error)
	}
}

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
			ProgressToken    string
			Progress, Total  int
			Message          string
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
	waitFor(t, "the cancel report", func() bool {
		return hasLine(c.stderr.String(), fmt.Sprintf("cancelled %d user abort", id))
	})
	// The sleep is gone and sends nothing, while the server still answers.
	c.call("ping", nil)
	c.expectSilence(50 * time.Millisecond)

	// A string id is found too, and reported as JSON.
	c.send(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "tools/call",
		"params": map[string]any{"name": "progress", "arguments": map[string]any{"steps": 1000, "intervalMs": 50}}})
	c.notify("notifications/cancelled", map[string]any{"requestId": "s1"})
	waitFor(t, "the cancel report", func() bool { return hasLine(c.stderr.String(), `cancelled "s1"`) })
	c.call("ping", nil)
	c.expectSilence(50 * time.Millisecond)
}

func TestResources(t *testing.T) {
	c := startPipe(t, Options{})
	var list struct{ Resources []resourceInfo }
	mustUnmarshal(t, c.call("resources/list", nil), &list)
	if len(list.Resources) != 2 {
		t.Fatalf("resources = %+v", list)
	}
	var templates struct{ ResourceTemplates []resourceTemplate }
	mustUnmarshal(t, c.call("resources/templates/list", nil), &templates)
	if len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "test://dynamic/{id}" {
		t.Errorf("templates = %+v", templates)
	}
	read := func(uri string) resourceContent {
		var res struct{ Contents []resourceContent }
		mustUnmarshal(t, c.call("resources/read", map[string]any{"uri": uri}), &res)
		if len(res.Contents) != 1 || res.Contents[0].URI != uri {
			t.Fatalf("read %s = %+v", uri, res)
		}
		return res.Contents[0]
	}
	if r := read("test://static/1"); r.Text == "" {
		t.Errorf("static/1 = %+v", r)
	}
	if r := read("test://static/2"); r.Blob != base64.StdEncoding.EncodeToString(staticBlob) {
		t.Errorf("static/2 = %+v", r)
	}
	if r := read("test://dynamic/7"); r.Text != "dynamic resource 7" {
		t.Errorf("dynamic = %+v", r)
	}
	resp, _ := c.responseTo(c.request("resources/read", map[string]any{"uri": "test://missing"}))
	if resp.Error == nil || resp.Error.Code != codeResourceNotFound || resp.Error.Message != "Resource not found" {
		t.Errorf("missing = %+v", resp.Error)
	}
	for _, m := range []string{"resources/subscribe", "resources/unsubscribe"} {
		if got := string(c.call(m, map[string]any{"uri": "test://static/1"})); got != "{}" {
			t.Errorf("%s = %s", m, got)
		}
	}
	c.expectSilence(30 * time.Millisecond)
}

func TestPromptsAndCompletion(t *testing.T) {
	c := startPipe(t, Options{})
	var list struct{ Prompts []promptInfo }
	mustUnmarshal(t, c.call("prompts/list", nil), &list)
	if len(list.Prompts) != 2 || list.Prompts[1].Name != "greet" || !list.Prompts[1].Arguments[0].Required {
		t.Fatalf("prompts = %+v", list)
	}
	var got struct {
		Messages []struct {
			Role    string
			Content textBlock
		}
	}
	mustUnmarshal(t, c.call("prompts/get", map[string]any{"name": "greet", "arguments": map[string]any{"name": "Ada"}}), &got)
	if len(got.Messages) != 1 || got.Messages[0].Role != "user" || got.Messages[0].Content.Text != "Hello, Ada!" {
		t.Errorf("greet = %+v", got)
	}
	mustUnmarshal(t, c.call("prompts/get", map[string]any{"name": "simple"}), &got)
	if got.Messages[0].Content.Type != "text" {
		t.Errorf("simple = %+v", got)
	}
	resp, _ := c.responseTo(c.request("prompts/get", map[string]any{"name": "greet"}))
	if resp.Error == nil || resp.Error.Code != codeInvalidParams {
		t.Errorf("greet without name: %+v", resp.Error)
	}

	var comp struct {
		Completion struct {
			Values  []string
			Total   int
			HasMore bool
		}
	}
	mustUnmarshal(t, c.call("completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/prompt", "name": "greet"},
		"argument": map[string]any{"name": "name", "value": "al"},
	}), &comp)
	if !slices.Equal(comp.Completion.Values, []string{"Alice", "Alan", "Albert"}) || comp.Completion.Total != 3 || comp.Completion.HasMore {
		t.Errorf("completion = %+v", comp)
	}
}

func TestSetLevel(t *testing.T) {
	c := startPipe(t, Options{})
	id := c.request("logging/setLevel", map[string]any{"level": "warning"})
	if resp := c.recv(); idKey(resp.ID) != fmt.Sprint(id) || string(resp.Result) != "{}" {
		t.Fatalf("answer = %+v", resp)
	}
	n := c.recv()
	if n.Method != "notifications/message" ||
		string(n.Params) != `{"level":"warning","logger":"testserver","data":"level set to warning"}` {
		t.Errorf("notification = %s %s", n.Method, n.Params)
	}
	resp, _ := c.responseTo(c.request("logging/setLevel", map[string]any{"level": "loud"}))
	if resp.Error == nil {
		t.Error("bad level accepted")
	}
}

// TestConcurrentEcho drives many requests in flight at once, as the
// benchmark does.
func TestConcurrentEcho(t *testing.T) {
	c := startPipe(t, Options{})
	const n = 256
	go func() {
		for i := range n {
			c.send(map[string]any{"jsonrpc": "2.0", "id": i, "method": "tools/call",
				"params": map[string]any{"name": "echo", "arguments": map[string]any{"message": fmt.Sprint("m", i)}}})
		}
	}()
	seen := make(map[string]bool)
	for range n {
		m := c.recv()
		if r := decodeTool(t, m.Result); r.text() != "m"+idKey(m.ID) {
			t.Fatalf("id %s got %q", m.ID, r.text())
		}
		seen[idKey(m.ID)] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct answers", len(seen))
	}
}

func TestServeStops(t *testing.T) {
	t.Run("EOF", func(t *testing.T) {
		c := startPipe(t, Options{})
		c.request("tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 60000}})
		c.call("ping", nil)
		c.w.Close()
		if err := c.wait(); err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		c := startPipe(t, Options{})
		c.request("tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 60000}})
		c.call("ping", nil)
		c.cancel()
		if err := c.wait(); err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
	t.Run("reader without Close", func(t *testing.T) {
		err := Serve(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), io.Discard, nil, Options{})
		if err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "\x00\x1f\x7f", "é€😀", "bad\xff\xfeutf8", "\u2028\u2029", "<&>"} {
		var got, want string
		if err := json.Unmarshal(appendString(nil, s), &got); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		wantJSON, _ := json.Marshal(s)
		_ = json.Unmarshal(wantJSON, &want)
		if got != want {
			t.Errorf("%q: decodes to %q, want %q", s, got, want)
		}
	}
}
