package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/bench/internal/measure"
	"github.com/mcpactor/mcpactor/messages"
)

// sessions is the fleet of a client that keeps a session per server (or
// per identity), each a measure.Client.
type sessions struct {
	ss []measure.Client // nil where the session was not made
	// after is closed after every session: what the sessions share (a
	// runtime, an http.Client's idle connections); may be nil.
	after func(ctx context.Context) error
}

// upSessions makes sp.Sessions sessions with dial, at most sp.Parallel at
// a time, each followed by its first call.
func upSessions(ctx context.Context, sp spec, dial func(ctx context.Context, i int) (measure.Client, error)) (*sessions, []error) {
	f := &sessions{ss: make([]measure.Client, sp.Sessions)}
	failed := make([]error, sp.Sessions)
	limited(sp.Sessions, sp.Parallel, func(i int) {
		c, err := dial(ctx, i)
		if err == nil {
			// Kept even when its first call fails, so that it is closed.
			f.ss[i] = c
			err = firstCall(ctx, c.Call, i)
		}
		failed[i] = err
	})
	return f, failed
}

func (f *sessions) call(ctx context.Context, i int, tool string, args json.RawMessage) (string, error) {
	return f.ss[i].Call(ctx, tool, args)
}

func (f *sessions) protocol() string {
	for _, c := range f.ss {
		if c != nil {
			return c.Protocol()
		}
	}
	return ""
}

// close closes every session at once, then what they share.
func (f *sessions) close(ctx context.Context) error {
	errs := make([]error, len(f.ss)+1)
	limited(len(f.ss), 0, func(i int) {
		if f.ss[i] != nil {
			errs[i] = f.ss[i].Close(ctx)
		}
	})
	if f.after != nil {
		errs[len(f.ss)] = f.after(ctx)
	}
	return errors.Join(errs...)
}

// textOf is the check every client makes of a result: not a tool error,
// and a first content item that is text, whose text it returns.
func textOf(res *messages.CallToolResult) (string, error) {
	if res.IsError {
		return "", fmt.Errorf("tool error: %+v", res.Content)
	}
	if len(res.Content) == 0 || res.Content[0].Type != "text" {
		return "", measure.ErrNoText
	}
	return res.Content[0].Text, nil
}

// mcpactorSession is one connection of a runtime the fleet shares; the
// runtime's Stop closes it.
type mcpactorSession struct{ c *mcpactor.Client }

func (s mcpactorSession) Call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	res, err := s.c.CallTool(ctx, tool, args)
	if err != nil {
		return "", err
	}
	return textOf(res)
}

func (s mcpactorSession) Protocol() string            { return s.c.ProtocolVersion() }
func (s mcpactorSession) Close(context.Context) error { return nil }

// manageFleet is mcpactor's Manager with every server of a scenario:
// calls go through Manager.CallTool, by the exposed name of each server's
// echo tool.
type manageFleet struct {
	rt      *mcpactor.Runtime
	m       *mcpactor.Manager
	exposed []string // echo's exposed name, by server index
}

func (f *manageFleet) call(ctx context.Context, i int, _ string, args json.RawMessage) (string, error) {
	res, err := f.m.CallTool(ctx, f.exposed[i], args)
	if err != nil {
		return "", err
	}
	return textOf(res)
}

func (f *manageFleet) protocol() string {
	for _, st := range f.m.Status() {
		if c, ok := f.m.Client(st.Name); ok {
			return c.ProtocolVersion()
		}
	}
	return ""
}

func (f *manageFleet) close(ctx context.Context) error { return f.rt.Stop(ctx) }

// serverName names the i-th server or identity of a scenario.
func serverName(i int) string { return fmt.Sprintf("s%04d", i) }

// upManage runs every server of the scenario under one Manager (no
// tool-list cache, ManageOptions.MaxConnecting = sp.Parallel), then makes
// each server's first call through it.
func upManage(ctx context.Context, sp spec, env *environment) (fleet, []error, error) {
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		return nil, nil, err
	}
	servers := make(map[string]mcpactor.ServerConfig, sp.Sessions)
	for i := range sp.Sessions {
		servers[serverName(i)] = configFor(env, i)
	}
	mc := sp.Parallel
	if mc <= 0 {
		mc = sp.Sessions
	}
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{Servers: servers, NoCache: true, MaxConnecting: mc})
	if err != nil {
		_ = rt.Stop(ctx)
		return nil, nil, err
	}
	f := &manageFleet{rt: rt, m: m, exposed: make([]string, sp.Sessions)}
	index := make(map[string]int, sp.Sessions)
	for i := range sp.Sessions {
		index[serverName(i)] = i
	}
	for _, t := range m.ListTools() {
		if i, ok := index[t.Server]; ok && t.Tool.Name == "echo" && !t.Cached {
			f.exposed[i] = t.Name
		}
	}
	failed := make([]error, sp.Sessions)
	limited(sp.Sessions, sp.Parallel, func(i int) {
		if f.exposed[i] == "" {
			failed[i] = fmt.Errorf("%s: no echo tool listed", serverName(i))
			return
		}
		failed[i] = firstCall(ctx, func(ctx context.Context, tool string, args json.RawMessage) (string, error) {
			return f.call(ctx, i, tool, args)
		}, i)
	})
	return f, failed, nil
}

// listeningName is mcpactor with a notification handler: over HTTP each
// session then holds the GET stream for the server's own messages, as a
// Manager's do, and as go-sdk's sessions do by default. Without one
// (upConnect) mcpactor opens no such stream, as mcp-go by default.
const listeningName = "mcpactor-listening"

// upConnect connects every session with Runtime.Connect on one runtime
// (over HTTP, one Identity each, as per-user sessions are).
func upConnect(ctx context.Context, sp spec, env *environment) (fleet, []error, error) {
	return connectAll(ctx, sp, env, mcpactor.Options{})
}

// upConnectListening is upConnect with a notification handler.
func upConnectListening(ctx context.Context, sp spec, env *environment) (fleet, []error, error) {
	return connectAll(ctx, sp, env, mcpactor.Options{Handlers: mcpactor.Handlers{
		Notification: func(string, mcpactor.Notification) {}}})
}

func connectAll(ctx context.Context, sp spec, env *environment, opts mcpactor.Options) (fleet, []error, error) {
	rt, err := mcpactor.Start(opts)
	if err != nil {
		return nil, nil, err
	}
	f, failed := upSessions(ctx, sp, func(ctx context.Context, i int) (measure.Client, error) {
		c, err := rt.Connect(ctx, serverName(i), configFor(env, i))
		if err != nil {
			return nil, err
		}
		return mcpactorSession{c}, nil
	})
	f.after = rt.Stop
	return f, failed, nil
}

// configFor is the configuration of the i-th server or identity.
func configFor(env *environment, i int) mcpactor.ServerConfig {
	if env.url != "" {
		return mcpactor.ServerConfig{URL: env.url, Identity: fmt.Sprintf("user-%04d", i)}
	}
	s := env.stdio
	return mcpactor.ServerConfig{Command: s.Path, Args: s.Args, Env: s.EnvMap}
}
