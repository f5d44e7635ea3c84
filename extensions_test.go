package mcpactor_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// TestExtensionsDeclared: the extensions a user declares reach the server
// in both eras (initialize's capabilities; every 2026-07-28 request's
// _meta), beside the tasks extension the runtime declares itself.
func TestExtensionsDeclared(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		srv := &mcptest.Server{Stateless: stateless, Tools: []mcptest.Tool{{Name: "noop"}}}
		rt, err := mcpactor.Start(mcpactor.Options{Extensions: map[string]any{
			"com.example/audit": map[string]any{"level": 2},
			"org.example/plain": nil,
		}})
		if err != nil {
			t.Fatal(err)
		}
		ctx := taskCtx(t)
		c, err := rt.Connect(ctx, "ext", srv.InProcess())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CallTool(ctx, "noop", nil); err != nil {
			t.Fatal(err)
		}
		want := [][]byte{[]byte(`"com.example/audit":{"level":2}`), []byte(`"org.example/plain":{}`)}
		method := messages.MethodInitialize
		if stateless {
			want = append(want, []byte(`"io.modelcontextprotocol/tasks":{}`))
			method = messages.MethodToolsCall
		}
		var params []byte
		for _, m := range srv.Received() {
			if m.Method == method {
				params = m.Params
			}
		}
		for _, w := range want {
			if !bytes.Contains(params, w) {
				t.Errorf("stateless=%v: %s params lack %s:\n%s", stateless, method, w, params)
			}
		}
		rt.Stop(context.Background())
		srv.Close()
	}
}

// TestExtensionsRefused: an identifier or settings SEP-2133 does not allow
// are refused by Start.
func TestExtensionsRefused(t *testing.T) {
	for _, ext := range []map[string]any{
		{"no-slash": map[string]any{}},
		{"com.example/list": []int{1}},
		{"com.example/text": "on"},
		{"/name": nil},
	} {
		if _, err := mcpactor.Start(mcpactor.Options{Extensions: ext}); !errors.Is(err, mcpactor.ErrConfig) {
			t.Errorf("Start with %v = %v; want ErrConfig", ext, err)
		}
	}
}
