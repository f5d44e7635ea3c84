package mcpactor_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

func TestMain(m *testing.M) {
	testserver.RunIfChild()
	os.Exit(m.Run())
}

func cfgFor(opts testserver.Options) mcpactor.ServerConfig {
	path, args, env := testserver.Command(opts)
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return mcpactor.ServerConfig{Command: path, Args: args, Env: m}
}

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	rt, _ := mcpactor.Start(ctx, mcpactor.Options{})
	defer rt.Stop(ctx)
	c, err := rt.Connect(ctx, "ts", cfgFor(testserver.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := c.ListTools(ctx)
	t.Log(len(tools), err, c.ProtocolVersion(), c.ServerInfo())
	res, err := c.CallTool(ctx, "echo", map[string]any{"message": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res.Content)
	start := time.Now()
	for i := 0; i < 10000; i++ {
		if _, err := c.CallTool(ctx, "echo", map[string]any{"message": "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	t.Log("10000 sequential:", time.Since(start))
	_, err = c.CallToolWith(ctx, "sleep", map[string]any{"ms": 5000}, mcpactor.CallOptions{Timeout: 100 * time.Millisecond})
	t.Log("timeout:", err)
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
