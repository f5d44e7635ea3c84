package mcpactor_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// TestGETListenerOnlyWhenRead checks when a session over Streamable HTTP
// opens the GET stream for the server's own messages: only when something
// reads what it carries (docs/architecture.md, "The GET listener"). A
// handler for a server's requests opens it whatever the server declared;
// a notification handler or CacheReads opens it when the server declared
// a notification it may send unasked; a client with neither holds no
// stream, and works the same.
func TestGETListenerOnlyWhenRead(t *testing.T) {
	t.Parallel()
	noteHandler := func(string, mcpactor.Notification) {}
	rootsHandler := func(context.Context, string) ([]messages.Root, error) { return nil, nil }
	const quiet = `{"tools":{}}` // nothing the server may send unasked
	for _, tc := range []struct {
		name     string
		caps     string // the server's capabilities; "" for the test server's (listChanged, logging, subscribe)
		handlers mcpactor.Handlers
		cache    bool
		want     bool
	}{
		{name: "nothing reads", want: false},
		{name: "a notification handler", handlers: mcpactor.Handlers{Notification: noteHandler}, want: true},
		{name: "CacheReads", cache: true, want: true},
		{name: "a notification handler, a quiet server", caps: quiet, handlers: mcpactor.Handlers{Notification: noteHandler}, want: false},
		{name: "a roots handler, a quiet server", caps: quiet, handlers: mcpactor.Handlers{Roots: rootsHandler}, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec := testserver.DefaultSpec(testserver.Options{})
			if tc.caps != "" {
				spec.Capabilities = json.RawMessage(tc.caps)
			}
			h := testserver.NewSpecHandler(testserver.Options{}, spec, nil)
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			t.Cleanup(h.Close)
			rt := startRuntime(t, mcpactor.Options{Handlers: tc.handlers})
			c, err := rt.Connect(waitCtx(t), "remote", mcpactor.ServerConfig{URL: ts.URL + testserver.HTTPPath, CacheReads: tc.cache})
			if err != nil {
				t.Fatal(err)
			}
			if v := c.ProtocolVersion(); v == messages.Version20260728 {
				t.Fatalf("protocol %s, want a session-era one", v)
			}
			if _, err := c.CallTool(waitCtx(t), "echo", map[string]any{"message": "hi"}); err != nil {
				t.Fatalf("echo: %v", err)
			}
			// The handshake waits for the listener's first answer, so the
			// GET, if there is one, is recorded by now.
			gets := 0
			for _, e := range h.Exchanges() {
				if e.Method == http.MethodGet {
					gets++
				}
			}
			if want := map[bool]int{true: 1}[tc.want]; gets != want {
				t.Errorf("%d GET listener(s) opened, want %d", gets, want)
			}
		})
	}
}
