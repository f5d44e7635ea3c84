package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
	"github.com/mcpactor/mcpactor/supervisor/toolcache"
)

// startGate runs the embedded servers through Runtime.Manage and shows the
// startup gate: a server without a cached tool list is awaited; one with a
// cached list is offered with it at once, a call to one of its tools
// waits until it is up, and its live list replaces the cached one. It
// returns once every server is up.
func startGate(ctx context.Context, rt *mcpactor.Runtime, o options, httpURL string, ev *eventLog, r *report) (*mcpactor.Manager, error) {
	n := o.servers + 1
	if o.slow > 0 {
		n++
	}
	ctx, end := r.step(ctx, "gate", "startup gate: %d servers through Runtime.Manage, %s", n, cacheNote(o))
	defer end()
	dir, err := os.MkdirTemp("", "mcpactor-demo-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path, err := writeEmbeddedFile(dir, o, httpURL)
	if err != nil {
		return nil, err
	}
	r.line("servers from %s: the stdio ones run ${%s} (this binary, wherever `go run` built it), http-1 is at ${%s};", path, envDemoBin, envDemoHTTPURL)
	r.line("the cache knows a server by its entry as written, so they are the same servers every run")
	had := cachedTools(o, path, slowName)
	mo := o.manageOptions(ev)
	mo.ConfigFile = path
	start := time.Now()
	m, err := rt.Manage(ctx, mo)
	if err != nil {
		return nil, fmt.Errorf("manage: %w", err)
	}
	r.line("Manage returned after %v (gate %v); at that moment:", time.Since(start).Round(time.Millisecond), supervisor.DefaultGate)
	at := m.Status()
	printServerLines(r, at)
	for _, s := range at {
		r.setState(s.Name, string(s.State), s.ProtocolVersion) // the summary's rows, in this order
	}
	if o.slow > 0 {
		slowServer(ctx, m, o, had, ev, start, r)
	}
	st, _ := settle(ctx, m, ev, o.timeout)
	for _, s := range st {
		r.setState(s.Name, string(s.State), s.ProtocolVersion)
		if s.State != mcpactor.StateReady {
			r.fail("%s did not come up: %s (%v)", s.Name, s.State, s.LastError)
		}
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	r.line("all %d servers up and listed %v after Manage was called", len(st), time.Since(start).Round(time.Millisecond))
	return m, nil
}

func cacheNote(o options) string {
	switch {
	case o.noCache:
		return "no tool-list cache (--no-cache)"
	case o.cacheDir != "":
		return "tool-list cache in " + o.cacheDir
	}
	dir, err := toolcache.DefaultDir()
	if err != nil {
		return "no tool-list cache (" + err.Error() + ")"
	}
	return "tool-list cache in " + dir
}

// cachedTools is how many tools the cache holds for the server name of
// the file at path, looked up as the manager will (docs/configuration.md,
// "Tool names and the tool-list cache": a server given explicitly has no
// project and no auth identity); -1 for no entry.
func cachedTools(o options, path, name string) int {
	if o.noCache {
		return -1
	}
	dir := o.cacheDir
	if dir == "" {
		var err error
		if dir, err = toolcache.DefaultDir(); err != nil {
			return -1
		}
	}
	f, err := config.LoadFile(path)
	if err != nil || f.Servers[name] == nil {
		return -1
	}
	e, ok := (&toolcache.Cache{Dir: dir}).Load(toolcache.Key{Server: name, ConfigHash: f.Servers[name].Hash})
	if !ok {
		return -1
	}
	return len(e.Tools)
}

// slowServer tells what the gate did with the slow server, given the
// number of tools the cache had for it (-1: none), calls its echo and, if
// its tools were the cache's, waits for the live list to replace them.
func slowServer(ctx context.Context, m *mcpactor.Manager, o options, had int, ev *eventLog, start time.Time, r *report) {
	s, _ := statusOf(m, slowName)
	cached := s.Cached
	up := time.Since(start).Round(time.Millisecond)
	switch {
	case cached:
		r.line("%s: still %s; its %d tools from an earlier run are offered from the cache within the gate (Cached=true)", slowName, s.State, s.Tools)
	case s.State != mcpactor.StateReady:
		r.fail("%s: %s at the gate, with no cached tools to offer (%v)", slowName, s.State, s.LastError)
		return
	case had >= 0:
		r.line("%s: the cache had its %d tools, but it was up within the gate anyway (after %v): its live tools are offered", slowName, had, up)
	case o.noCache:
		r.line("%s: no cache to offer its tools from, so Manage awaited it: up after %v", slowName, up)
	default:
		r.line("%s: no cached tool list (a first run, or its entry changed), so Manage awaited it: up after %v; its tools are cached now, run the demo again to see them offered within the gate", slowName, up)
	}
	echo, ok := exposed(m, slowName, "echo")
	if !ok {
		r.fail("%s offers no echo tool", slowName)
		return
	}
	t0 := time.Now()
	res, err := m.CallTool(ctx, echo, map[string]any{"message": echoMessage})
	d := time.Since(t0)
	r.record(slowName, d, err, err == nil && res.IsError)
	if outcome, ok := judge(choice{echo: true, args: map[string]any{"message": echoMessage}}, res, err); !ok {
		r.fail("%s: %s", echo, outcome)
		return
	}
	if !cached {
		r.line("%s answered in %v", echo, round(d))
		return
	}
	r.line("%s, called while %s was starting, waited for it and answered after %v", echo, slowName, round(d))
	wctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	e, err := ev.waitFor(wctx, 0, func(e mcpactor.ManagerEvent) bool {
		return e.Server == slowName && e.Kind == mcpactor.EventToolsChanged
	})
	if err != nil {
		r.fail("%s: no tools-changed event: %v", slowName, err)
		return
	}
	s, _ = statusOf(m, slowName)
	r.line("event: %s, %s (%s): the live list replaced the cached one: %d tools, Cached=%v", e.Kind, e.Server, e.State, s.Tools, s.Cached)
	if s.Cached {
		r.fail("%s: tools still the cache's after the live list came", slowName)
	}
}

func statusOf(m *mcpactor.Manager, name string) (mcpactor.ServerStatus, bool) {
	for _, s := range m.Status() {
		if s.Name == name {
			return s, true
		}
	}
	return mcpactor.ServerStatus{}, false
}

// exposed is the name the manager offers a server's tool by.
func exposed(m *mcpactor.Manager, server, tool string) (string, bool) {
	for _, t := range m.ListTools() {
		if t.Server == server && t.Tool.Name == tool {
			return t.Name, true
		}
	}
	return "", false
}
