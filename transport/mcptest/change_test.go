package mcptest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// Notify reaches a connected client outside any call, by every way.
func TestNotify(t *testing.T) {
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			n := &notes{}
			rt := start(t, mcpactor.Options{Handlers: handlers(n)})
			s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}}
			if got, err := s.Notify("notifications/message", nil); got != 0 || err != nil {
				t.Fatalf("Notify before any connection = %d, %v", got, err)
			}
			connect(t, rt, w.config(t, s))
			// A 2026-07-28 client hears on a listen stream it opens
			// after connecting: notify until one is there.
			harness.WaitFor(t, "a connection told", func() bool {
				got, err := s.Notify("notifications/resources/updated", messages.ResourceUpdatedParams{URI: "test://x"})
				if err != nil {
					t.Fatal(err)
				}
				return got == 1
			})
			harness.WaitFor(t, "the notification", func() bool { return n.has("notifications/resources/updated") })
			if _, err := s.Notify("x", func() {}); err == nil {
				t.Error("Notify encoded a func")
			}
		})
	}
}

// SetTools changes what tools/list lists, tells the client, and a call of
// a tool gone fails with -32602.
func TestSetTools(t *testing.T) {
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			n := &notes{}
			rt := start(t, mcpactor.Options{Handlers: handlers(n)})
			s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}}
			c := connect(t, rt, w.config(t, s))
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()

			renamed := echoTool
			renamed.Name = "echo2"
			harness.WaitFor(t, "a connection told", func() bool { return s.SetTools(renamed, mcptest.Tool{Name: "other"}) == 1 })
			harness.WaitFor(t, "tools/list_changed", func() bool { return n.has(messages.NotificationToolsListChanged) })
			tools, err := c.ListTools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
			}
			if !slices.Equal(names, []string{"echo2", "other"}) {
				t.Fatalf("tools after SetTools: %v", names)
			}
			res, err := c.CallTool(ctx, "echo2", map[string]any{"message": "renamed"})
			if err != nil || text(res) != "renamed" {
				t.Fatalf("echo2: %v %v", res, err)
			}
			_, err = c.CallTool(ctx, "echo", map[string]any{"message": "gone"})
			var rpcErr *mcpactor.RPCError
			if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 || !errors.Is(err, mcpactor.ErrRPC) {
				t.Fatalf("a tool gone: %v", err)
			}
		})
	}
}

// SetResources, SetResourceTemplates and SetPrompts change their lists
// and send their list_changed.
func TestSetResourcesAndPrompts(t *testing.T) {
	n := &notes{}
	rt := start(t, mcpactor.Options{Handlers: handlers(n)})
	s := richServer()
	t.Cleanup(s.Close)
	c := connect(t, rt, s.InProcess())
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	if got := s.SetResources(mcptest.Resource{URI: "test://new", Name: "new", Text: "fresh"}); got != 1 {
		t.Fatalf("SetResources told %d connections", got)
	}
	harness.WaitFor(t, "resources/list_changed", func() bool { return n.has(messages.NotificationResourcesListChanged) })
	res, err := c.ListResources(ctx)
	if err != nil || len(res) != 1 || res[0].URI != "test://new" {
		t.Fatalf("resources after SetResources: %+v %v", res, err)
	}
	if r, err := c.ReadResource(ctx, "test://new"); err != nil || r.Contents[0].Text != "fresh" {
		t.Fatalf("read test://new: %+v %v", r, err)
	}
	_, err = c.ReadResource(ctx, "test://a")
	var rpcErr *mcpactor.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32002 {
		t.Fatalf("a resource gone: %v", err)
	}

	s.SetResourceTemplates(mcptest.ResourceTemplate{URITemplate: "test://t/{id}", Name: "t"})
	tpls, err := c.ListResourceTemplates(ctx)
	if err != nil || len(tpls) != 1 || tpls[0].URITemplate != "test://t/{id}" {
		t.Fatalf("templates after SetResourceTemplates: %+v %v", tpls, err)
	}

	if got := s.SetPrompts(mcptest.Prompt{Name: "new", Description: "A new prompt."}); got != 1 {
		t.Fatalf("SetPrompts told %d connections", got)
	}
	harness.WaitFor(t, "prompts/list_changed", func() bool { return n.has(messages.NotificationPromptsListChanged) })
	prompts, err := c.ListPrompts(ctx)
	if err != nil || len(prompts) != 1 || prompts[0].Name != "new" {
		t.Fatalf("prompts after SetPrompts: %+v %v", prompts, err)
	}
	_, err = c.GetPrompt(ctx, "greet", map[string]string{"who": "x"})
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 {
		t.Fatalf("a prompt gone: %v", err)
	}

	// A connection made afterwards has the new lists from the start.
	c2, err := rt.Connect(ctx, "later", s.InProcess())
	if err != nil {
		t.Fatal(err)
	}
	prompts, err = c2.ListPrompts(ctx)
	if err != nil || len(prompts) != 1 || prompts[0].Name != "new" {
		t.Fatalf("prompts of a later connection: %+v %v", prompts, err)
	}
}

// A manager (Runtime.Manage) lists a server's tools, prompts and
// resources again when SetTools, SetPrompts and SetResources tell it they
// changed: Manager.ListTools follows, by every way.
func TestManagerFollowsChanges(t *testing.T) {
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			rt := start(t, mcpactor.Options{})
			s := richServer()
			cfg := w.config(t, s)
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			m, err := rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true, Servers: map[string]mcpactor.ServerConfig{"fake": cfg}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = m.Close(context.Background()) })
			toolNames := func() []string {
				var names []string
				for _, tl := range m.ListTools() {
					names = append(names, tl.Name)
				}
				slices.Sort(names)
				return names
			}
			if got := toolNames(); len(got) != len(s.Tools) {
				t.Fatalf("tools at start: %v", got)
			}
			// The manager lists prompts and resources once ready, and
			// does not list again on a list_changed arriving while it
			// is listing: let the first lists land first.
			harness.WaitFor(t, "the manager's first prompts and resources", func() bool {
				return len(m.ListPrompts()) == len(s.Prompts) && len(m.ListResources()) == len(s.Resources)
			})

			renamed := echoTool
			renamed.Name = "echo2"
			// Over HTTP in the 2026-07-28 revision the manager hears on
			// a listen stream it opens once connected: until then the
			// change reaches nobody.
			harness.WaitFor(t, "the manager told", func() bool { return s.SetTools(renamed) == 1 })
			harness.WaitFor(t, "the manager's new tools", func() bool {
				return slices.Equal(toolNames(), []string{"mcp__fake__echo2"})
			})
			res, err := m.CallTool(ctx, "mcp__fake__echo2", map[string]any{"message": "managed"})
			if err != nil || text(res) != "managed" {
				t.Fatalf("echo2: %v %v", res, err)
			}

			if got := s.SetPrompts(mcptest.Prompt{Name: "fresh"}); got != 1 {
				t.Fatalf("SetPrompts told %d connections", got)
			}
			harness.WaitFor(t, "the manager's new prompts", func() bool {
				p := m.ListPrompts()
				return len(p) == 1 && p[0].Prompt.Name == "fresh"
			})
			if got := s.SetResources(mcptest.Resource{URI: "test://fresh", Name: "fresh", Text: "new"}); got != 1 {
				t.Fatalf("SetResources told %d connections", got)
			}
			harness.WaitFor(t, "the manager's new resources", func() bool {
				r := m.ListResources()
				return len(r) == 1 && r[0].Resource.URI == "test://fresh"
			})
		})
	}
}

// StartHTTPWith puts the server behind middleware: what the middleware
// refuses never reaches the server, what it lets through does, headers
// and all.
func TestStartHTTPWith(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{echoTool}}
	h := s.StartHTTPWith(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Key") != "open sesame" {
				http.Error(w, "no key", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	t.Cleanup(h.Close)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := rt.Connect(ctx, "locked-out", h.Config()); !errors.Is(err, mcpactor.ErrHTTP) {
		t.Fatalf("without the key: %v, want ErrHTTP", err)
	}
	if got := s.Received(); len(got) != 0 {
		t.Fatalf("the server received %d messages past the middleware", len(got))
	}
	cfg := h.Config()
	cfg.Headers = map[string]string{"X-Key": "open sesame"}
	c := connect(t, rt, cfg)
	if res, err := c.CallTool(ctx, "echo", map[string]any{"message": "in"}); err != nil || text(res) != "in" {
		t.Fatalf("echo: %v %v", res, err)
	}
	if calls := s.Calls(); len(calls) != 1 || calls[0].Header.Get("X-Key") != "open sesame" {
		t.Fatalf("calls %+v", calls)
	}
}

// Call.Stderr writes to the server's stderr: Server.Stderr in this
// process.
func TestCallStderr(t *testing.T) {
	rt := start(t, mcpactor.Options{})
	s := &mcptest.Server{Tools: []mcptest.Tool{{Name: "complain", Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
		_, err := io.WriteString(c.Stderr(), "something is off\n")
		return nil, err
	}}}}
	t.Cleanup(s.Close)
	c := connect(t, rt, s.InProcess())
	if _, err := c.CallTool(context.Background(), "complain", nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Stderr(); got != "something is off\n" {
		t.Fatalf("Stderr = %q", got)
	}
}

// SendRaw's lines reach the client, which skips and counts them; the
// call goes on.
func TestCallSendRaw(t *testing.T) {
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			rt := start(t, mcpactor.Options{})
			s := &mcptest.Server{Tools: []mcptest.Tool{{Name: "raw", Handler: func(_ context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
				c.SendRaw("this is not json", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"raw"}}`)
				return &messages.CallToolResult{Content: []messages.Content{messages.TextContent("after")}}, nil
			}}}}
			c := connect(t, rt, w.config(t, s))
			res, err := c.CallTool(context.Background(), "raw", nil)
			if err != nil || text(res) != "after" {
				t.Fatalf("raw: %v %v", res, err)
			}
			if st := c.Stats(); st.Malformed != 1 {
				t.Errorf("Stats.Malformed = %d, want the line that is not JSON", st.Malformed)
			}
		})
	}
}
