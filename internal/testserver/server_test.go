package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
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
	var res struct{ Tools []Tool }
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
				Tools      []Tool
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
		"content-kinds", "trace-meta", "ask-client", "notify", "crash",
		"notify-flood", "stderr-flood", "stop-reading", "close-stdout", "reply-raw", "send-raw", "echo-env"}

	all, pages := names(startPipe(t, Options{}).client)
	if !slices.Equal(all, want) || pages != 1 {
		t.Errorf("one page: %v in %d pages", all, pages)
	}
	all, pages = names(startPipe(t, Options{PageSize: 5, ToolWithoutSchema: true}).client)
	if !slices.Equal(all, append(want, "no-schema")) || pages != 4 {
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
