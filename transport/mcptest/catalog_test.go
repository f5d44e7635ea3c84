package mcptest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// connectTemplates connects a new runtime to a new templateServer by way
// w.
func connectTemplates(t *testing.T, w way) (*mcpactor.Client, *mcptest.Server) {
	t.Helper()
	rt := start(t, mcpactor.Options{})
	s := templateServer()
	return connect(t, rt, w.config(t, s)), s
}

// templateServer has resource templates and completions.
func templateServer() *mcptest.Server {
	return &mcptest.Server{
		ResourceTemplates: []mcptest.ResourceTemplate{
			{URITemplate: "test://logs/{day}.log", Name: "logs", MimeType: "text/plain",
				Read: func(_ context.Context, uri string, vars map[string]string) (*messages.ReadResourceResult, error) {
					switch vars["day"] {
					case "missing":
						return nil, nil
					case "secret":
						return nil, &mcptest.RPCError{Code: -32001, Message: "forbidden"}
					case "broken":
						return nil, errors.New("disk on fire")
					}
					return &messages.ReadResourceResult{Contents: []messages.ResourceContents{
						messages.TextResource(uri, "text/plain", "log of "+vars["day"])}}, nil
				}},
			{URITemplate: "test://files/{+path}", Name: "files"},
		},
		Complete: func(_ context.Context, p messages.CompleteParams) (*messages.Completion, error) {
			if p.Ref.Type != "ref/resource" || p.Argument.Name != "day" {
				return nil, errors.New("unknown reference")
			}
			var out []string
			for _, d := range []string{"monday", "tuesday", "wednesday"} {
				if strings.HasPrefix(d, p.Argument.Value) {
					out = append(out, d)
				}
			}
			return &messages.Completion{Values: out}, nil
		},
	}
}

// Resource templates are listed, and read through their Read with the
// URI's values, by every way; what Read returns names the client's error.
func TestResourceTemplates(t *testing.T) {
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			c, _ := connectTemplates(t, w)
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			if c.Capabilities().Resources == nil || c.Capabilities().Completions == nil {
				t.Fatalf("capabilities %+v lack resources or completions", c.Capabilities())
			}
			tpls, err := c.ListResourceTemplates(ctx)
			if err != nil || len(tpls) != 2 || tpls[0].URITemplate != "test://logs/{day}.log" || tpls[0].MimeType != "text/plain" {
				t.Fatalf("templates: %+v %v", tpls, err)
			}
			res, err := c.ReadResource(ctx, "test://logs/monday.log")
			if err != nil || res.Contents[0].Text != "log of monday" || res.Contents[0].URI != "test://logs/monday.log" {
				t.Fatalf("read monday: %+v %v", res, err)
			}
			// {+path} takes slashes; a template without Read answers
			// the URI itself.
			res, err = c.ReadResource(ctx, "test://files/a/b.txt")
			if err != nil || res.Contents[0].Text != "test://files/a/b.txt" {
				t.Fatalf("read a file: %+v %v", res, err)
			}
			for uri, code := range map[string]int64{
				"test://logs/missing.log": -32002, // Read found nothing
				"test://logs/a/b.log":     -32002, // {day} takes no slash
				"test://nowhere":          -32002,
				"test://logs/secret.log":  -32001, // Read's *RPCError
				"test://logs/broken.log":  -32603, // Read's other error
			} {
				_, err := c.ReadResource(ctx, uri)
				var rpcErr *mcpactor.RPCError
				if !errors.As(err, &rpcErr) || rpcErr.Code != code || !errors.Is(err, mcpactor.ErrRPC) {
					t.Errorf("read %s: %v, want RPC error %d", uri, err, code)
				}
			}
		})
	}
}

// Complete answers completion/complete; its errors are -32602, and a
// Server without it has no such method.
func TestComplete(t *testing.T) {
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			c, s := connectTemplates(t, w)
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			res, err := c.Complete(ctx, messages.CompleteParams{
				Ref:      messages.CompleteReference{Type: "ref/resource", URI: "test://logs/{day}.log"},
				Argument: messages.CompleteArgument{Name: "day", Value: "t"},
			})
			if err != nil || len(res.Completion.Values) != 1 || res.Completion.Values[0] != "tuesday" {
				t.Fatalf("complete: %+v %v", res, err)
			}
			_, err = c.Complete(ctx, messages.CompleteParams{
				Ref:      messages.CompleteReference{Type: "ref/prompt", Name: "nope"},
				Argument: messages.CompleteArgument{Name: "x"},
			})
			var rpcErr *mcpactor.RPCError
			if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, "unknown reference") {
				t.Fatalf("complete a bad reference: %v", err)
			}
			if got := s.Calls(); len(got) != 0 {
				t.Errorf("calls %+v", got)
			}
		})
	}
	rt := start(t, mcpactor.Options{})
	plain := &mcptest.Server{Tools: []mcptest.Tool{echoTool}}
	t.Cleanup(plain.Close)
	c := connect(t, rt, plain.InProcess())
	if c.Capabilities().Completions != nil || c.Capabilities().Resources != nil || c.Capabilities().Prompts != nil {
		t.Errorf("a plain server declares %+v", c.Capabilities())
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, err := c.Complete(ctx, messages.CompleteParams{Ref: messages.CompleteReference{Type: "ref/prompt", Name: "x"}})
	var rpcErr *mcpactor.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32601 {
		t.Fatalf("complete without Complete: %v", err)
	}
	_, err = c.ReadResource(ctx, "test://x")
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32601 {
		t.Fatalf("read from a server without resources: %v", err)
	}
}

// PageSize splits the lists into pages, which the client follows.
func TestPageSize(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := richServer()
	s.PageSize = 2
	t.Cleanup(s.Close)
	c := connect(t, rt, s.InProcess())
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) != len(s.Tools) {
		t.Fatalf("ListTools: %d tools, %v; want %d", len(tools), err, len(s.Tools))
	}
	pages := 0
	for _, m := range s.Methods() {
		if m == "tools/list" {
			pages++
		}
	}
	if want := (len(s.Tools) + 1) / 2; pages != want {
		t.Errorf("%d tools/list pages, want %d", pages, want)
	}
	var names []string
	for tool, err := range c.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if len(names) == 3 {
			break
		}
	}
	if len(names) != 3 || names[2] != s.Tools[2].Name {
		t.Errorf("Tools yielded %v", names)
	}
	if prompts, err := c.ListPrompts(ctx); err != nil || len(prompts) != len(s.Prompts) {
		t.Errorf("ListPrompts: %+v %v", prompts, err)
	}
}
