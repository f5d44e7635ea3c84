package mcpactor_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// cachingServer is a 2026-07-28 server whose lists and reads may be
// cached for ttl.
func cachingServer(ttl time.Duration) *mcptest.Server {
	return &mcptest.Server{Stateless: true, CacheTTL: ttl, CacheScope: "private",
		Tools:     []mcptest.Tool{{Name: "one"}},
		Resources: []mcptest.Resource{{URI: "file:///a", Name: "a", Text: "first"}},
		Prompts:   []mcptest.Prompt{{Name: "p"}},
	}
}

// connectCaching connects srv over HTTP, where a 2026-07-28 client hears
// change notifications on its listen stream; with a notification handler,
// so that the client opens it.
func connectCaching(t *testing.T, srv *mcptest.Server, cacheReads bool) *mcpactor.Client {
	t.Helper()
	h := srv.StartHTTP()
	rt, err := mcpactor.Start(mcpactor.Options{Handlers: mcpactor.Handlers{Notification: func(string, mcpactor.Notification) {}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Stop(context.Background()); h.Close(); srv.Close() })
	cfg := h.Config()
	cfg.CacheReads = cacheReads
	c, err := rt.Connect(taskCtx(t), "cached", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestListsCachedWhileFresh: within ttlMs the lists are not asked again;
// list_changed drops the tools list at once.
func TestListsCachedWhileFresh(t *testing.T) {
	srv := cachingServer(time.Hour)
	c := connectCaching(t, srv, false)
	ctx := taskCtx(t)
	for range 3 {
		if _, err := c.ListTools(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ListPrompts(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ListResources(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []string{messages.MethodToolsList, messages.MethodPromptsList, messages.MethodResourcesList} {
		if n := countOf(srv.Methods(), m); n != 1 {
			t.Errorf("%s asked %d times in three lists, want once", m, n)
		}
	}
	// The caller's copy is its own.
	tools, _ := c.ListTools(ctx)
	tools[0].Name = "scribbled"
	if again, _ := c.ListTools(ctx); again[0].Name != "one" {
		t.Fatalf("the cache kept the caller's change: %q", again[0].Name)
	}

	// A 2026-07-28 client hears list_changed on its listen stream, which
	// it opens after connecting: until then nobody is told.
	deadline := time.Now().Add(10 * time.Second)
	for srv.SetTools(mcptest.Tool{Name: "two"}) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the client never opened its listen stream")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for {
		tools, err := c.ListTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(tools) == 1 && tools[0].Name == "two" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after list_changed the list is still %+v", tools)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestListsNotCachedWithoutTTL: a server that sends no ttlMs (or 0) is
// asked every time, as before caching hints.
func TestListsNotCachedWithoutTTL(t *testing.T) {
	srv := cachingServer(0)
	c := connectCaching(t, srv, true)
	ctx := taskCtx(t)
	for range 3 {
		if _, err := c.ListTools(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ReadResource(ctx, "file:///a"); err != nil {
			t.Fatal(err)
		}
	}
	if n := countOf(srv.Methods(), messages.MethodToolsList); n != 3 {
		t.Errorf("tools/list asked %d times, want 3", n)
	}
	if n := countOf(srv.Methods(), messages.MethodResourcesRead); n != 3 {
		t.Errorf("resources/read asked %d times, want 3", n)
	}
}

// TestReadsCachedWhenAsked: with CacheReads a fresh read is served again;
// without, never; an expired one is read anew.
func TestReadsCachedWhenAsked(t *testing.T) {
	srv := cachingServer(300 * time.Millisecond)
	c := connectCaching(t, srv, true)
	ctx := taskCtx(t)
	for range 3 {
		res, err := c.ReadResource(ctx, "file:///a")
		if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "first") {
			t.Fatalf("ReadResource = %+v, %v", res, err)
		}
	}
	if n := countOf(srv.Methods(), messages.MethodResourcesRead); n != 1 {
		t.Errorf("resources/read asked %d times while fresh, want once", n)
	}
	time.Sleep(400 * time.Millisecond)
	if _, err := c.ReadResource(ctx, "file:///a"); err != nil {
		t.Fatal(err)
	}
	if n := countOf(srv.Methods(), messages.MethodResourcesRead); n != 2 {
		t.Errorf("resources/read asked %d times after expiry, want 2", n)
	}
}
