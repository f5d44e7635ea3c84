package mcptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// richServer offers one of everything a Server declares.
func richServer() *mcptest.Server {
	return &mcptest.Server{
		Name:         "rich",
		Version:      "1.2.3",
		Instructions: "be kind",
		Tools: []mcptest.Tool{
			echoTool,
			{Name: "progress", Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
				for i := 1; i <= 3; i++ {
					c.Progress(float64(i), 3, "step")
				}
				return &messages.CallToolResult{Content: []messages.Content{messages.TextContent("done")}}, nil
			}},
			{Name: "notify", Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
				if err := c.Notify("notifications/tools/list_changed", nil); err != nil {
					return nil, err
				}
				return nil, c.Log(messages.LoggingLevel("info"), "rich", "hello")
			}},
			{Name: "ask", Handler: func(ctx context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
				roots, err := c.ListRoots(ctx)
				if err != nil {
					return nil, err
				}
				sample, err := c.CreateMessage(ctx, messages.CreateMessageParams{MaxTokens: 10})
				if err != nil {
					return nil, err
				}
				form, err := c.Elicit(ctx, messages.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)})
				if err != nil {
					return nil, err
				}
				return &messages.CallToolResult{Content: []messages.Content{
					messages.TextContent(roots[0].URI + " " + sample.Model + " " + form.Action)}}, nil
			}},
			{Name: "fail", Handler: func(context.Context, *mcptest.Call) (*messages.CallToolResult, error) {
				return nil, errors.New("it failed")
			}},
			{Name: "rpc-error", Handler: func(context.Context, *mcptest.Call) (*messages.CallToolResult, error) {
				return nil, &mcptest.RPCError{Code: -32099, Message: "nope"}
			}},
		},
		Resources: []mcptest.Resource{
			{URI: "test://a", Name: "a", MimeType: "text/plain", Text: "alpha"},
			{URI: "test://b", Name: "b", MimeType: "application/octet-stream", Blob: []byte{0, 1, 2}},
		},
		Prompts: []mcptest.Prompt{
			{Name: "plain", Description: "A plain prompt."},
			{Name: "greet", Arguments: []messages.PromptArgument{{Name: "who", Required: true}},
				Get: func(_ context.Context, args map[string]string) (*messages.GetPromptResult, error) {
					if args["who"] == "" {
						return nil, errors.New("who is required")
					}
					return &messages.GetPromptResult{Messages: []messages.PromptMessage{
						{Role: "user", Content: messages.TextContent("Hello, " + args["who"])}}}, nil
				}},
		},
	}
}

// clientHandlers answer the server's requests, and collect notifications.
type notes struct {
	mu  sync.Mutex
	all []string
}

func (n *notes) has(method string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, m := range n.all {
		if m == method {
			return true
		}
	}
	return false
}

func handlers(n *notes) mcpactor.Handlers {
	return mcpactor.Handlers{
		Roots: func(context.Context, string) ([]messages.Root, error) {
			return []messages.Root{{URI: "file:///work", Name: "work"}}, nil
		},
		Sampling: func(context.Context, string, *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			return &messages.CreateMessageResult{Role: "assistant", Content: messages.TextContent("hi"), Model: "fake-model"}, nil
		},
		Elicitation: func(context.Context, string, *messages.ElicitParams) (*messages.ElicitResult, error) {
			return &messages.ElicitResult{Action: "decline"}, nil
		},
		Notification: func(_ string, no mcpactor.Notification) {
			n.mu.Lock()
			n.all = append(n.all, no.Method)
			n.mu.Unlock()
		},
	}
}

// Everything a Server declares reaches the client, by every way.
func TestServerEveryWay(t *testing.T) {
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			n := &notes{}
			rt := start(t, mcpactor.Options{Handlers: handlers(n)})
			s := richServer()
			c := connect(t, rt, w.config(t, s))
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()

			if v := c.ProtocolVersion(); (v == "2026-07-28") != contains(w.name, "2026-07-28") {
				t.Errorf("protocol version %s", v)
			}
			if info := c.ServerInfo(); info.Name != "rich" || info.Version != "1.2.3" {
				t.Errorf("server info = %+v", info)
			}
			if got := c.Instructions(); got != "be kind" {
				t.Errorf("instructions = %q", got)
			}
			tools, err := c.ListTools(ctx)
			if err != nil || len(tools) != 6 || tools[0].Name != "echo" {
				t.Fatalf("tools = %v, %v", tools, err)
			}
			res, err := c.CallTool(ctx, "echo", map[string]any{"message": "hi"})
			if err != nil || text(res) != "hi" {
				t.Fatalf("echo = %v, %v", res, err)
			}
			var steps int
			res, err = c.CallToolWith(ctx, "progress", nil, mcpactor.CallOptions{OnProgress: func(messages.ProgressParams) { steps++ }})
			if err != nil || text(res) != "done" || steps != 3 {
				t.Errorf("progress = %v, %v, %d steps", res, err, steps)
			}
			if _, err := c.CallTool(ctx, "notify", nil); err != nil {
				t.Fatal(err)
			}
			harness.WaitFor(t, "the notifications", func() bool {
				return n.has("notifications/tools/list_changed") && n.has("notifications/message")
			})
			res, err = c.CallTool(ctx, "ask", nil)
			if err != nil || text(res) != "file:///work fake-model decline" {
				t.Errorf("ask = %v, %v", res, err)
			}
			res, err = c.CallTool(ctx, "fail", nil)
			if err != nil || !res.IsError || text(res) != "it failed" {
				t.Errorf("fail = %+v, %v", res, err)
			}
			_, err = c.CallTool(ctx, "rpc-error", nil)
			var rpcErr *mcpactor.RPCError
			if !errors.As(err, &rpcErr) || rpcErr.Code != -32099 || !errors.Is(err, mcpactor.ErrRPC) {
				t.Errorf("rpc-error = %v", err)
			}

			rs, err := c.ListResources(ctx)
			if err != nil || len(rs) != 2 {
				t.Fatalf("resources = %v, %v", rs, err)
			}
			read, err := c.ReadResource(ctx, "test://a")
			if err != nil || read.Contents[0].Text != "alpha" {
				t.Errorf("read = %+v, %v", read, err)
			}
			if blob, err := c.ReadResource(ctx, "test://b"); err != nil || blob.Contents[0].Blob != "AAEC" {
				t.Errorf("read of a blob = %+v, %v", blob, err)
			}
			if _, err := c.ReadResource(ctx, "test://none"); !errors.As(err, &rpcErr) || rpcErr.Code != -32002 {
				t.Errorf("read of an unknown resource: %v", err)
			}
			ps, err := c.ListPrompts(ctx)
			if err != nil || len(ps) != 2 {
				t.Fatalf("prompts = %v, %v", ps, err)
			}
			got, err := c.GetPrompt(ctx, "greet", map[string]string{"who": "Ada"})
			if err != nil || got.Messages[0].Content.Text != "Hello, Ada" {
				t.Errorf("greet = %+v, %v", got, err)
			}
			if _, err := c.GetPrompt(ctx, "greet", nil); !errors.As(err, &rpcErr) || rpcErr.Code != -32602 {
				t.Errorf("greet without its argument: %v", err)
			}
			if got, err := c.GetPrompt(ctx, "plain", nil); err != nil || got.Messages[0].Content.Text != "A plain prompt." {
				t.Errorf("plain = %+v, %v", got, err)
			}

			var calls []mcptest.ToolCall
			for _, c := range s.Calls() {
				if c.InputResponses == nil { // not a retry
					calls = append(calls, c)
				}
			}
			if len(calls) != 6 || calls[0].Name != "echo" || string(calls[0].Arguments) != `{"message":"hi"}` {
				t.Errorf("calls = %+v", calls)
			}
			if len(calls) > 1 && !contains(string(calls[1].Meta), "progressToken") {
				t.Errorf("the progress call's _meta = %s", calls[1].Meta)
			}
			methods := s.Methods()
			if len(methods) == 0 || methods[0] != "initialize" && methods[0] != "server/discover" {
				t.Errorf("methods = %v", methods)
			}
			if w.name == "streamable-http" {
				if h := calls[0].Header; h.Get("Mcp-Protocol-Version") == "" || h.Get("Mcp-Session-Id") == "" {
					t.Errorf("headers of a call = %v", h)
				}
			}
		})
	}
}

// A call the client gives up on is cancelled, and the server records it.
func TestCancellationRecorded(t *testing.T) {
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			rt := start(t, mcpactor.Options{})
			s := &mcptest.Server{Tools: []mcptest.Tool{{Name: "slow", Fault: mcptest.Fault{Hang: true}}}}
			c := connect(t, rt, w.config(t, s))
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := c.CallTool(ctx, "slow", map[string]any{"n": 1})
				done <- err
			}()
			harness.WaitFor(t, "the call", func() bool { return len(s.Calls()) == 1 })
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("error = %v, want context.Canceled", err)
			}
			harness.WaitFor(t, "the cancellation", func() bool { return len(s.Cancellations()) == 1 })
			if got, want := string(s.Cancellations()[0].RequestID), string(s.Calls()[0].ID); got != want {
				t.Errorf("cancelled %s, the call was %s", got, want)
			}
		})
	}
}

// A Stdio server is this binary re-executed: a real subprocess, in
// either protocol (session or stateless).
func TestStdio(t *testing.T) {
	for name, version := range map[string]string{"echo": "2025-11-25", "echo-2026-07-28": "2026-07-28"} {
		t.Run(name, func(t *testing.T) {
			rt := start(t, mcpactor.Options{})
			c := connect(t, rt, mcptest.Stdio(name))
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			res, err := c.CallTool(ctx, "echo", map[string]any{"message": "over pipes"})
			if err != nil || text(res) != "over pipes" {
				t.Fatalf("echo = %v, %v", res, err)
			}
			if v := c.ProtocolVersion(); v != version {
				t.Errorf("protocol version %s, want %s", v, version)
			}
		})
	}
}

// Close ends the connections a Server serves in this process, and later
// dials fail.
func TestClose(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}}
	c := connect(t, rt, s.InProcess())
	s.Close()
	_, err := c.CallTool(context.Background(), "echo", nil)
	wantErr(t, err, mcpactor.ErrTransportClosed)
	if _, err := s.Dial(context.Background()); err == nil {
		t.Error("Dial after Close worked")
	}
}

// A Handler's panic is answered as an internal error; the server goes on.
func TestHandlerPanic(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{echoTool, {Name: "bug", Handler: func(context.Context, *mcptest.Call) (*messages.CallToolResult, error) {
		panic("handler bug")
	}}}}
	t.Cleanup(s.Close)
	c := connect(t, rt, s.InProcess())
	_, err := c.CallTool(context.Background(), "bug", nil)
	var rpcErr *mcpactor.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32603 {
		t.Fatalf("error = %v, want -32603", err)
	}
	if res, err := c.CallTool(context.Background(), "echo", map[string]any{"message": "on"}); err != nil || text(res) != "on" {
		t.Fatalf("after the panic: %v, %v", res, err)
	}
}
