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

// TestServerExtensions: a server's own extensions reach that server alone,
// over the runtime's (its settings win), and a bad one is refused before
// anything starts.
func TestServerExtensions(t *testing.T) {
	rt, err := mcpactor.Start(mcpactor.Options{Extensions: map[string]any{"com.example/audit": map[string]any{"level": 1}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Stop(context.Background()) })
	ctx := taskCtx(t)
	own, plain := &mcptest.Server{}, &mcptest.Server{}
	t.Cleanup(func() { own.Close(); plain.Close() })
	cfg := own.InProcess()
	cfg.Extensions = map[string]any{"com.example/audit": map[string]any{"level": 3}, "org.example/only-here": nil}
	if _, err := rt.Connect(ctx, "own", cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Connect(ctx, "plain", plain.InProcess()); err != nil {
		t.Fatal(err)
	}
	initParams := func(s *mcptest.Server) []byte {
		for _, m := range s.Received() {
			if m.Method == messages.MethodInitialize {
				return m.Params
			}
		}
		return nil
	}
	if p := initParams(own); !bytes.Contains(p, []byte(`"com.example/audit":{"level":3}`)) || !bytes.Contains(p, []byte(`"org.example/only-here":{}`)) {
		t.Errorf("the server with its own extensions got %s", p)
	}
	if p := initParams(plain); !bytes.Contains(p, []byte(`"com.example/audit":{"level":1}`)) || bytes.Contains(p, []byte("only-here")) {
		t.Errorf("the other server got %s", p)
	}
	bad := plain.InProcess()
	bad.Extensions = map[string]any{"no-slash": nil}
	if _, err := rt.Connect(ctx, "bad", bad); !errors.Is(err, mcpactor.ErrConfig) {
		t.Errorf("Connect with a bad extension = %v; want ErrConfig", err)
	}
}
