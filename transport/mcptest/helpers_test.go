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
	{"in-process", inProcess(false)},
	{"in-process-2026-07-28", inProcess(true)},
	{"streamable-http", overHTTP(false, (*mcptest.HTTPServer).Config)},
	{"streamable-http-2026-07-28", overHTTP(true, (*mcptest.HTTPServer).Config)},
	{"sse", overHTTP(false, (*mcptest.HTTPServer).SSEConfig)},
}

// inProcess reaches s in this process, in the 2026-07-28 revision when
// stateless.
func inProcess(stateless bool) func(t *testing.T, s *mcptest.Server) mcpactor.ServerConfig {
	return func(t *testing.T, s *mcptest.Server) mcpactor.ServerConfig {
		if stateless {
			s.Stateless = true
		}
		t.Cleanup(s.Close)
		return s.InProcess()
	}
}

// overHTTP reaches s over HTTP, with the configuration cfg gives (Config
// or SSEConfig), in the 2026-07-28 revision when stateless.
func overHTTP(stateless bool, cfg func(*mcptest.HTTPServer) mcpactor.ServerConfig) func(t *testing.T, s *mcptest.Server) mcpactor.ServerConfig {
	return func(t *testing.T, s *mcptest.Server) mcpactor.ServerConfig {
		if stateless {
			s.Stateless = true
		}
		h := s.StartHTTP()
		t.Cleanup(h.Close)
		return cfg(h)
	}
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
