package supervisor_test

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
)

// The prompts and resources of every ready server are listed beside the
// tools: prompts by exposed name (mcp__<server>__<prompt>), resources by
// server and URI; GetPrompt and ReadResource reach the right server.
func TestManagerPromptsAndResources(t *testing.T) {
	m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{
		testServer(t, "alpha", testserver.Options{}, "alpha"),
		testServer(t, "beta", testserver.Options{}, "beta"),
	}})
	harness.WaitFor(t, "the catalogs", func() bool { return len(m.Prompts()) == 4 && len(m.Resources()) > 0 })
	names := map[string]bool{}
	for _, p := range m.Prompts() {
		names[p.Name] = true
	}
	for _, want := range []string{"mcp__alpha__greet", "mcp__alpha__simple", "mcp__beta__greet", "mcp__beta__simple"} {
		if !names[want] {
			t.Errorf("no prompt %s among %v", want, names)
		}
	}
	ctx := harness.Context(t)
	res, err := m.GetPrompt(ctx, "mcp__beta__greet", map[string]string{"name": "Ada"})
	if err != nil || len(res.Messages) == 0 || res.Messages[0].Content.Text != "Hello, Ada!" {
		t.Fatalf("GetPrompt: %+v, %v", res, err)
	}
	var unknown *callerr.Error
	if _, err := m.GetPrompt(ctx, "mcp__beta__nope", nil); !(errors.As(err, &unknown) && callerr.UnknownTool(unknown) == unknown) {
		t.Errorf("unknown prompt: %v", err)
	}

	r := m.Resources()[0]
	read, err := m.ReadResource(ctx, r.Server, r.Resource.URI)
	if err != nil || len(read.Contents) == 0 || read.Contents[0].URI != r.Resource.URI {
		t.Fatalf("ReadResource(%s, %s): %+v, %v", r.Server, r.Resource.URI, read, err)
	}
	var noServer *callerr.Error
	if _, err := m.ReadResource(ctx, "gamma", r.Resource.URI); !(errors.As(err, &noServer) && callerr.UnknownServer(noServer) == noServer) {
		t.Errorf("unknown server: %v", err)
	}

	if err := m.Remove(ctx, "beta"); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Prompts() {
		if p.Server == "beta" {
			t.Errorf("prompt %s of a removed server", p.Name)
		}
	}
	closeManager(t, m)
	if _, err := m.GetPrompt(ctx, "mcp__alpha__simple", nil); !errors.Is(err, errkind.ErrStopped) {
		t.Errorf("GetPrompt after Close: %v", err)
	}
	if _, err := m.ReadResource(ctx, "alpha", r.Resource.URI); !errors.Is(err, errkind.ErrStopped) {
		t.Errorf("ReadResource after Close: %v", err)
	}
}

// A server's notifications/prompts/list_changed and
// notifications/resources/list_changed make the manager list that catalog
// again: a change is applied and followed by one EventCatalogChanged for
// the server.
func TestManagerRefreshesCatalogsOnListChanged(t *testing.T) {
	hub := &testserver.Hub{}
	spec := testserver.DefaultSpec(testserver.Options{})
	spec.Hub = hub
	h := testserver.NewSpecHandler(testserver.Options{}, spec, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		h.Close()
	})
	events := make(chan supervisor.Event, 64)
	m := manage(t, supervisor.ManagerOptions{
		Servers: []*supervisor.Server{httpServer(t, "alpha", srv.URL, config.RestartPolicy{})},
		OnEvent: func(e supervisor.Event) {
			if e.Kind == supervisor.EventCatalogChanged {
				events <- e
			}
		},
	})
	harness.WaitFor(t, "the catalogs", func() bool { return len(m.Prompts()) == len(spec.Prompts) && len(m.Resources()) == len(spec.Resources) })
	drain := func() {
		for {
			select {
			case <-events:
			default:
				return
			}
		}
	}
	ctx := harness.Context(t)
	catalog := &testserver.Catalog{Tools: spec.Tools, Resources: spec.Resources, ResourceTemplates: spec.ResourceTemplates, Prompts: spec.Prompts}
	for _, c := range []struct {
		method string
		change func()
		done   func() bool
	}{
		{"notifications/prompts/list_changed", func() { catalog.Prompts = catalog.Prompts[:1] }, func() bool { return len(m.Prompts()) == 1 }},
		{"notifications/resources/list_changed", func() { catalog.Resources = catalog.Resources[:1] }, func() bool { return len(m.Resources()) == 1 }},
	} {
		drain()
		c.change()
		hub.SetCatalog(catalog)
		if n := hub.Notify(c.method, nil); n != 1 {
			t.Fatalf("%s went to %d clients", c.method, n)
		}
		select {
		case e := <-events:
			if e.Server != "alpha" {
				t.Errorf("after %s: event %+v", c.method, e)
			}
		case <-ctx.Done():
			t.Fatalf("no EventCatalogChanged after %s", c.method)
		}
		// The event taken may be an earlier refresh's, delivered late
		// (events reach OnEvent after the catalog is published): the
		// catalog must follow the change all the same.
		harness.WaitFor(t, "the catalog after "+c.method, c.done)
	}
}

// During a bring-up, the prompts and resources of the servers that are
// up wait until every server's tools are in: the tools are what callers
// wait for, and the catalogs' lists would take CPU from the others'
// handshakes. They are listed all the same, once the starts are over.
func TestManagerListsCatalogsAfterTheBringUp(t *testing.T) {
	var mu sync.Mutex
	var kinds []string
	var servers []*supervisor.Server
	for i := range 6 {
		servers = append(servers, testServer(t, fmt.Sprintf("s%d", i), testserver.Options{}, t.Name()))
	}
	opts := supervisor.ManagerOptions{Servers: servers, MaxConnecting: 2, Startup: supervisor.StartupImmediate}
	// No stall releases the catalogs early, however slow the machine.
	opts = supervisor.WithCatalogStall(opts, harness.Bound)
	opts = supervisor.WithListedHook(opts, func(_, kind string) {
		mu.Lock()
		kinds = append(kinds, kind)
		mu.Unlock()
	})
	m := manage(t, opts)
	harness.WaitFor(t, "every catalog", func() bool { return len(m.Prompts()) == 2*len(servers) && len(m.Resources()) > 0 })
	mu.Lock()
	defer mu.Unlock()
	tools := 0
	for i, k := range kinds {
		if k == "tools" {
			tools++
			continue
		}
		if tools < len(servers) {
			t.Fatalf("a list of %s came (%d) before every server's tools (%d of %d): %v", k, i, tools, len(servers), kinds)
		}
	}
}

// A start that makes no progress (a handshake that hangs) does not hold
// the catalogs of the servers that are up for longer than the stall
// allowance.
func TestManagerCatalogsNotHeldByAHungStart(t *testing.T) {
	opts := supervisor.ManagerOptions{Servers: []*supervisor.Server{
		testServer(t, "up", testserver.Options{}, t.Name()),
		testServer(t, "hang", testserver.Options{SlowInitialize: time.Minute}, t.Name()+"-hang"),
	}, Startup: supervisor.StartupImmediate}
	m := manage(t, supervisor.WithCatalogStall(opts, 100*time.Millisecond))
	harness.WaitFor(t, "the catalogs of the server that is up", func() bool { return len(m.Prompts()) == 2 && len(m.Resources()) > 0 })
	if st := status(m, "hang"); st.State != supervisor.StateConnecting {
		t.Errorf("the hung server is %s; want it still connecting", st.State)
	}
}
