package mcptest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// wait bounds every blocking step of the tests.
const wait = 20 * time.Second

// echoTool answers its message argument as text.
var echoTool = mcptest.Tool{
	Name:        "echo",
	Description: "Returns message.",
	InputSchema: map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}},
	Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
		var a struct{ Message string }
		if err := c.Bind(&a); err != nil {
			return nil, err
		}
		return &messages.CallToolResult{Content: []messages.Content{messages.TextContent(a.Message)}}, nil
	},
}

// stdioServers are the servers Stdio reaches, by name: declared at
// package level so that the re-executed binary has them too.
var stdioServers = map[string]*mcptest.Server{
	"echo":            {Tools: []mcptest.Tool{echoTool}},
	"echo-2026-07-28": {Tools: []mcptest.Tool{echoTool}, Stateless: true},
	"stubborn":        {Tools: []mcptest.Tool{echoTool}, Faults: mcptest.Faults{IgnoreSIGTERM: true}},
	"crash": {Tools: []mcptest.Tool{echoTool, {
		Name:  "crash",
		Fault: mcptest.Fault{Crash: &mcptest.Crash{Code: 3, Stderr: "mcptest: crashed on purpose"}},
	}}},
}

// way is one way of reaching a server.
type way struct {
	name   string
	config func(t *testing.T, s *mcptest.Server) mcpactor.ServerConfig
}

// ways are every way of reaching a Server declared in the test (Stdio
// needs one of stdioServers, and has its own tests).
var ways = []way{
	{"in-process", func(t *testing.T, s *mcptest.Server) mcpactor.ServerConfig {
		t.Cleanup(s.Close)
		return s.InProcess()
	}},
	{"in-process-2026-07-28", func(t *testing.T, s *mcptest.Server) mcpactor.ServerConfig {
		s.Stateless = true
		t.Cleanup(s.Close)
		return s.InProcess()
	}},
	{"streamable-http", func(t *testing.T, s *mcptest.Server) mcpactor.ServerConfig {
		h := s.StartHTTP()
		t.Cleanup(h.Close)
		return h.Config()
	}},
	{"streamable-http-2026-07-28", func(t *testing.T, s *mcptest.Server) mcpactor.ServerConfig {
		s.Stateless = true
		h := s.StartHTTP()
		t.Cleanup(h.Close)
		return h.Config()
	}},
	{"sse", func(t *testing.T, s *mcptest.Server) mcpactor.ServerConfig {
		h := s.StartHTTP()
		t.Cleanup(h.Close)
		return h.SSEConfig()
	}},
}

// start starts a runtime with opts, stopped when the test ends (before
// the servers' cleanups, registered later, run... earlier: cleanups run
// last first, so register servers after this).
func start(t *testing.T, opts mcpactor.Options) *mcpactor.Runtime {
	t.Helper()
	rt, err := mcpactor.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		rt.Stop(ctx)
	})
	return rt
}

// connect connects to cfg under name.
func connect(t *testing.T, rt *mcpactor.Runtime, cfg mcpactor.ServerConfig) *mcpactor.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := rt.Connect(ctx, "fake", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// text is the first text content of res.
func text(res *messages.CallToolResult) string {
	for _, c := range res.Content {
		if c.Type == messages.ContentTypeText {
			return c.Text
		}
	}
	return ""
}

// wantErr fails the test unless err matches target (errors.Is).
func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one matching %v", err, target)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
