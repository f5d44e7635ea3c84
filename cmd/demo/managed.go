package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor"
)

// The part of --config and --discover that is the same: the servers are
// brought up by Runtime.Manage, each one is reported, one tool is called
// on each ready one, and the manager's status table ends the run.

// manageOptions are the ManageOptions the flags choose, for every mode.
func (o options) manageOptions(ev *eventLog) mcpactor.ManageOptions {
	return mcpactor.ManageOptions{CacheDir: o.cacheDir, NoCache: o.noCache, MaxConnecting: o.maxConnect, OnEvent: ev.add}
}

// runManaged runs the servers of mo and reports them. A server that does
// not come up or a call that fails makes the error; a server not approved
// or disabled is reported, not counted.
func runManaged(ctx context.Context, rt *mcpactor.Runtime, mo mcpactor.ManageOptions, o options, ev *eventLog, r *report) error {
	m, st, err := bringUp(ctx, rt, mo, o, ev, r)
	if err != nil {
		return err
	}
	cctx, end := r.step(ctx, "call", "one tool call on each ready server, through the manager")
	called, failedCalls := callEach(cctx, m, st, o, r)
	end()

	r.heading("manager status")
	printStatus(r, m.Status())
	down := notUp(st)
	r.line("%d servers: %d ready, %d not up, %d not started (disabled or not approved); %d calls, %d failed",
		len(st), countState(st, mcpactor.StateReady), len(down), countNotStarted(st), called, failedCalls)
	var errs []error
	if len(down) > 0 {
		errs = append(errs, fmt.Errorf("%d server(s) did not come up: %s", len(down), strings.Join(down, ", ")))
	}
	if failedCalls > 0 {
		errs = append(errs, fmt.Errorf("%d call(s) failed", failedCalls))
	}
	if o.call != "" && called == 0 {
		errs = append(errs, fmt.Errorf("no ready server offers a tool named %q", o.call))
	}
	return errors.Join(errs...)
}

// bringUp starts the manager and waits until every server has settled,
// printing each one's line.
func bringUp(ctx context.Context, rt *mcpactor.Runtime, mo mcpactor.ManageOptions, o options, ev *eventLog, r *report) (*mcpactor.Manager, []mcpactor.ServerStatus, error) {
	mctx, end := r.step(ctx, "manage", "bringing the servers up through Runtime.Manage")
	defer end()
	start := time.Now()
	m, err := rt.Manage(mctx, mo)
	if err != nil {
		return nil, nil, fmt.Errorf("manage: %w", err)
	}
	gated := time.Since(start)
	st, ok := settle(ctx, m, ev, o.timeout)
	r.line("Manage returned at the startup gate after %v; every server settled after %v",
		gated.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	if !ok {
		r.line("(gave up waiting after --timeout %v: the servers still starting are reported as they are)", o.timeout)
	}
	printServerLines(r, st)
	return m, st, nil
}

// settle waits, up to limit, until no server is on its way up: each one is
// ready with its live tools, or has failed at least once (the manager goes
// on restarting it: docs/configuration.md, "Server entries", restart), or
// is not to be started. Manage itself returns earlier for servers whose
// tools the cache offers. ok is false if limit passed first.
func settle(ctx context.Context, m *mcpactor.Manager, ev *eventLog, limit time.Duration) (_ []mcpactor.ServerStatus, ok bool) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	// The events wake us early; the tick covers events the manager drops
	// for a slow subscriber.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		changed := ev.changed()
		st := m.Status()
		if !slices.ContainsFunc(st, starting) {
			return st, true
		}
		select {
		case <-changed:
		case <-tick.C:
		case <-deadline.C:
			return st, false
		case <-ctx.Done():
			return st, false
		}
	}
}

// starting reports a server still on its way up.
func starting(s mcpactor.ServerStatus) bool {
	switch s.State {
	case mcpactor.StateReady:
		return s.Cached // up, its live tool list not in yet
	case mcpactor.StateConnecting:
		return s.LastError == nil // a first attempt, not a restart
	}
	return false
}

// notStarted: the manager was told not to start these.
func notStarted(s mcpactor.ServerStatus) bool {
	return s.State == mcpactor.StateDisabled || s.State == mcpactor.StateRefused
}

func notUp(st []mcpactor.ServerStatus) []string {
	var names []string
	for _, s := range st {
		if s.State != mcpactor.StateReady && !notStarted(s) {
			names = append(names, s.Name)
		}
	}
	return names
}

func countState(st []mcpactor.ServerStatus, state mcpactor.ServerState) int {
	n := 0
	for _, s := range st {
		if s.State == state {
			n++
		}
	}
	return n
}

func countNotStarted(st []mcpactor.ServerStatus) int {
	n := 0
	for _, s := range st {
		if notStarted(s) {
			n++
		}
	}
	return n
}

// printServerLines prints one line per server: state, source, negotiated
// protocol, tools and the first line of its last error.
func printServerLines(r *report, st []mcpactor.ServerStatus) {
	rows := make([][]string, 0, len(st))
	for _, s := range st {
		proto := "-"
		if s.ProtocolVersion != "" {
			proto = s.ProtocolVersion + " (" + protocolOf(s.ProtocolVersion) + ")"
		}
		tools := fmt.Sprintf("%d tools", s.Tools)
		if s.Cached {
			tools += " (cached)"
		}
		last := ""
		if s.LastError != nil {
			last = "last error: " + firstLine(s.LastError.Error())
		}
		rows = append(rows, []string{s.Name, string(s.State), sourceOf(s.Source), proto, tools, last})
	}
	r.table(nil, rows)
}

// sourceOf is a source's kind and level; the file is in the discovery
// listing, and too long for a table.
func sourceOf(s mcpactor.Source) string {
	return s.Kind + " (" + s.Level + ")"
}

// firstLine keeps an error to its first line and a tail marker: a
// server's stderr tail can be long, and the status table says the rest.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}
