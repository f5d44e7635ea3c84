package mcpactor_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// weatherSchema is a tool's outputSchema in JSON Schema 2020-12, with a
// $defs reference inside it.
const weatherSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
"properties":{"city":{"type":"string"},"celsius":{"$ref":"#/$defs/temp"}},"required":["city","celsius"],
"$defs":{"temp":{"type":"number","minimum":-90,"maximum":60}}}`

// schemaServer offers tools whose structured output is right, wrong,
// missing, or described by a schema that points outside itself.
func schemaServer() *mcptest.Server {
	out := func(s string) func(context.Context, *mcptest.Call) (*messages.CallToolResult, error) {
		return func(context.Context, *mcptest.Call) (*messages.CallToolResult, error) {
			res := &messages.CallToolResult{Content: []messages.Content{{Type: messages.ContentTypeText, Text: s}}}
			if s != "" {
				res.StructuredContent = []byte(s)
			}
			return res, nil
		}
	}
	return &mcptest.Server{Tools: []mcptest.Tool{
		{Name: "good", OutputSchema: weatherSchema, Handler: out(`{"city":"Oslo","celsius":-3.5}`)},
		{Name: "bad", OutputSchema: weatherSchema, Handler: out(`{"city":"Oslo","celsius":451}`)},
		{Name: "missing", OutputSchema: weatherSchema, Handler: out("")},
		{Name: "failing", OutputSchema: weatherSchema, Handler: func(context.Context, *mcptest.Call) (*messages.CallToolResult, error) {
			return nil, errors.New("no weather today")
		}},
		{Name: "remote", OutputSchema: `{"$ref":"file:///etc/passwd"}`, Handler: out(`{}`)},
		{Name: "free", Handler: out(`{"anything":true}`)},
	}}
}

// TestValidateOutput checks structured output against outputSchema when a
// server's configuration asks, naming the tool and the first violation.
func TestValidateOutput(t *testing.T) {
	srv := schemaServer()
	cfg := srv.InProcess()
	cfg.ValidateOutput = true
	c, ctx := connectWeather(t, srv, cfg)
	for _, ok := range []string{"good", "failing", "free"} {
		if _, err := c.CallTool(ctx, ok, nil); err != nil {
			t.Errorf("%s: %v; want it to pass", ok, err)
		}
	}
	for tool, want := range map[string]struct{ at, says string }{
		"bad":     {"/celsius", "maximum"},
		"missing": {"", "no structuredContent"},
		"remote":  {"", "does not compile"},
	} {
		_, err := c.CallTool(ctx, tool, nil)
		var se *mcpactor.Error
		if !errors.Is(err, mcpactor.ErrBadResponse) || !(errors.As(err, &se) && callerr.InvalidResult(se) == se) {
			t.Errorf("%s: err = %v; want output-schema error in ErrBadResponse", tool, err)
			continue
		}
		if se.Tool != tool || se.Location != want.at || !strings.Contains(se.Error(), want.says) {
			t.Errorf("%s: %+v; want at %q saying %q", tool, se, want.at, want.says)
		}
		if !strings.Contains(err.Error(), `"weather"`) {
			t.Errorf("%s: the error does not name the server: %v", tool, err)
		}
	}
	if n := countOf(srv.Methods(), messages.MethodToolsList); n != 1 {
		t.Errorf("tools/list read %d times, want once (the schemas are kept)", n)
	}
}

// TestValidateOutputPerCall: without the server's switch, one call can ask.
func TestValidateOutputPerCall(t *testing.T) {
	srv := schemaServer()
	c, ctx := connectWeather(t, srv, srv.InProcess())
	if _, err := c.CallTool(ctx, "bad", nil); err != nil {
		t.Fatalf("unchecked call: %v", err)
	}
	if _, err := c.CallToolWith(ctx, "bad", nil, mcpactor.CallOptions{ValidateOutput: true}); !errors.Is(err, mcpactor.ErrBadResponse) {
		t.Fatalf("checked call: %v; want ErrBadResponse", err)
	}
}

// connectWeather connects srv with cfg as "weather", stopped with the test.
func connectWeather(t *testing.T, srv *mcptest.Server, cfg mcpactor.ServerConfig) (*mcpactor.Client, context.Context) {
	t.Helper()
	return connectFake(t, mcpactor.Options{}, srv, "weather", cfg)
}

// connectFake starts a runtime with opts and connects it to the fake srv
// with cfg as name; srv and the runtime stop when t ends (the runtime
// first), and ctx, the test's bound, is cancelled before them.
func connectFake(t *testing.T, opts mcpactor.Options, srv *mcptest.Server, name string, cfg mcpactor.ServerConfig) (*mcpactor.Client, context.Context) {
	t.Helper()
	t.Cleanup(srv.Close)
	rt, err := mcpactor.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Stop(context.Background()) })
	ctx := taskCtx(t)
	c, err := rt.Connect(ctx, name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, ctx
}
