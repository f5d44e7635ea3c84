package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/naming"
)

// Exposed is a member's calls in mcpactor.Manager's convention: every
// server's tools under the names a Manager gives them
// (mcp__<server>__<tool>, docs/configuration.md "Tool names"), calls by
// that name with the same options, and a status per server. Its
// ListTools, CallTool, CallToolWith and Status have the Manager's
// signatures and result types, so that code written against them
// switches to a cluster by taking the value from Member.Exposed instead
// of Runtime.Manage (docs/cluster.md, "The Manager's API").
//
// The tenant is the value's: Member.Exposed calls the shared sessions,
// Member.As(tenant).Exposed the tenant's. The names are worked out as a
// Manager running Config.Servers works them out, over the tool lists of
// all of one tenant's identities at once, so a tool's name differs
// between tenants only if their servers list different tools.
//
// Prompts and resources follow the Manager's convention too
// (exposed_catalog.go): ListPrompts, GetPrompt by exposed name,
// ListResources and ReadResource by server and URI, from the lists this
// member loaded (LoadPrompts, LoadResources).
//
// The by-server methods of Member and Tenant (CallTool(ctx, server,
// tool, args), ...) stay: they name a server that has not listed its
// tools yet.
type Exposed struct{ t Tenant }

// Exposed returns the shared sessions' calls in the Manager's convention.
func (m *Member) Exposed() Exposed { return Exposed{t: m.As("")} }

// Exposed returns the tenant's calls in the Manager's convention.
func (t Tenant) Exposed() Exposed { return Exposed{t: t} }

// ListTools returns the tools of every server by exposed name, sorted,
// from the cluster's shared tool cache: no round trip, as a Manager's
// ListTools makes none. The cache holds the tools of the identities that
// have been activated once, on any member; a server never started for
// the tenant is not listed yet (LoadTools starts it). A tool whose
// identity has no live owner at the moment (its member lost, or none
// yet) is Cached: its call waits for a new activation.
func (e Exposed) ListTools() []mcpactor.ManagedTool {
	return e.catalog(e.cachedLists()).tools
}

// LoadTools is ListTools once every server has listed its tools:
// identities not in the cache are activated (their servers started) to
// list them, concurrently, within ctx; ListTools offers them from then
// on. It returns the tools listed and the failures of the servers that
// could not list, joined.
func (e Exposed) LoadTools(ctx context.Context) ([]mcpactor.ManagedTool, error) {
	lists := e.cachedLists()
	err := e.fill(ctx, lists, func(server string) bool { _, ok := lists[server]; return !ok })
	return e.catalog(lists).tools, err
}

// CallTool calls a tool by its exposed name on the session that offers
// it, wherever it lives. A name no server offers is an
// an ErrNotFound *mcpactor.Error, as the Manager's.
func (e Exposed) CallTool(ctx context.Context, exposed string, args any) (*messages.CallToolResult, error) {
	return e.CallToolWith(ctx, exposed, args, mcpactor.CallOptions{})
}

// callGrace is how much longer than the owner's own timeout a caller
// waits for its answer when the options allow a call longer than
// Config.CallTimeout, so that the call ends with the owner's
// ErrTimeout *mcpactor.Error, not with the caller's deadline.
const callGrace = time.Second

// CallToolWith is CallTool with per-call options. Timeout,
// ResetTimeoutOnProgress, MaxTotalTimeout, Meta, BusyRetryUnsafe and
// ValidateOutput are sent with the call and applied by the owner to its
// request to the server (within Config.MaxServeTimeout and ctx).
// OnProgress receives the call's progress notifications, sent back by
// the owner, in order, on the calling goroutine, all before CallToolWith
// returns (progress.go).
//
// When ctx has no deadline the call is bounded by Config.CallTimeout, or
// by the options' own bound plus callGrace if that is longer. With
// ResetTimeoutOnProgress it is bounded instead by MaxTotalTimeout (or,
// without one, Config.MaxServeTimeout) plus callGrace, and the caller
// waits at most Timeout (or Config.CallTimeout) plus callGrace between
// two progress notifications: the owner enforces the same Timeout,
// reset by the same notifications, so its ErrTimeout *mcpactor.Error
// arrives first.
func (e Exposed) CallToolWith(ctx context.Context, exposed string, args any, opts mcpactor.CallOptions) (*messages.CallToolResult, error) {
	m := e.t.m
	pair, err := e.resolve(ctx, exposed)
	if err != nil {
		return nil, err
	}
	req := &request{Server: pair.Server, Tenant: e.t.tenant, Method: methodCallTool, Name: pair.Tool}
	if err := req.setCallOptions(opts); err != nil {
		return nil, fmt.Errorf("cluster: %s tools/call %s: member %s: %w", req.identity(), pair.Tool, m.cfg.Name, err)
	}
	req.Progress = opts.OnProgress != nil || opts.ResetTimeoutOnProgress
	req.onProgress = opts.OnProgress
	if _, ok := ctx.Deadline(); !ok {
		bound := optionsBound(opts)
		if opts.ResetTimeoutOnProgress {
			bound = opts.MaxTotalTimeout
			if bound <= 0 {
				bound = m.cfg.MaxServeTimeout
			}
			idle := opts.Timeout
			if idle <= 0 {
				idle = m.cfg.CallTimeout
			}
			req.progressIdle = idle + callGrace
		}
		if bound > 0 && bound+callGrace > m.cfg.CallTimeout {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, bound+callGrace)
			defer cancel()
		}
	}
	return e.t.callTool(ctx, req, args)
}

// setCallOptions puts opts in r, all but OnProgress (the caller's
// own, which stays with it: CallToolWith asks for the progress).
func (r *request) setCallOptions(opts mcpactor.CallOptions) error {
	r.CallTimeout, r.ResetOnProgress, r.MaxTotalTimeout, r.BusyRetryUnsafe, r.ValidateOutput =
		opts.Timeout, opts.ResetTimeoutOnProgress, opts.MaxTotalTimeout, opts.BusyRetryUnsafe, opts.ValidateOutput
	if len(opts.Meta) > 0 {
		b, err := json.Marshal(opts.Meta)
		if err != nil {
			return fmt.Errorf("encode _meta: %w", err)
		}
		r.Meta = b
	}
	return nil
}

// optionsBound is how long opts let a call run on the owner: 0 for no
// bound of their own (the server's request timeout applies).
func optionsBound(opts mcpactor.CallOptions) time.Duration {
	bound := opts.Timeout
	if opts.MaxTotalTimeout > 0 && (bound == 0 || opts.ResetTimeoutOnProgress || opts.MaxTotalTimeout < bound) {
		bound = opts.MaxTotalTimeout
	}
	return bound
}

// Status returns the status of every configured server's session (for
// the value's tenant), sorted by name, as the Manager's Status does,
// named as the user named the server. An identity this member owns has
// its manager's full status. Any other is described from this member's
// view of etcd, with no round trip: StateReady when a live member owns
// it (its tools counted from the shared cache, Cached set), and
// StateConnecting when none does (its next call activates it; Tools as
// cached, or ToolsPending when never listed). Member.Status has the
// owned identities' full statuses, and Tenant.Info asks the owner.
func (e Exposed) Status() []mcpactor.ServerStatus {
	m := e.t.m
	lists := e.cachedLists()
	out := make([]mcpactor.ServerStatus, 0, len(m.cfg.Servers))
	for server := range m.cfg.Servers {
		id := e.t.identity(server)
		if st, ok := m.ownedServerStatus(id); ok {
			st.Name = server
			out = append(out, st)
			continue
		}
		tools, listed := lists[server]
		st := mcpactor.ServerStatus{Name: server, State: mcpactor.StateConnecting, Tools: len(tools),
			ToolsPending: !listed, Cached: listed}
		if e.ownerLive(server) {
			st.State = mcpactor.StateReady
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b mcpactor.ServerStatus) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ownedServerStatus is the manager's status of id's server if this
// member owns id.
func (m *Member) ownedServerStatus(id Identity) (mcpactor.ServerStatus, bool) {
	if m.mgr == nil {
		return mcpactor.ServerStatus{}, false
	}
	m.mu.Lock()
	act := m.acts[id]
	m.mu.Unlock()
	if act == nil {
		return mcpactor.ServerStatus{}, false
	}
	return m.ownedStatus(act.name)
}

// ownerLive reports whether a member this one sees alive owns the
// tenant's session of server.
func (e Exposed) ownerLive(server string) bool {
	rec, ok := e.t.m.view.owner(e.t.identity(server))
	if !ok {
		return false
	}
	_, ok = e.t.m.view.member(rec.Member)
	return ok
}

// cachedLists returns the tool lists the shared cache holds for the
// tenant's identities, by server.
func (e Exposed) cachedLists() map[string][]messages.Tool {
	m := e.t.m
	out := make(map[string][]messages.Tool, len(m.cfg.Servers))
	for server := range m.cfg.Servers {
		b := m.view.cachedTools(e.t.identity(server))
		if b == nil {
			continue
		}
		var tools []messages.Tool
		if json.Unmarshal(b, &tools) == nil {
			out[server] = tools
		}
	}
	return out
}

// fill lists, from their owners (activating them), the tools of the
// servers want picks, into lists; it returns the failures, joined.
func (e Exposed) fill(ctx context.Context, lists map[string][]messages.Tool, want func(server string) bool) error {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	var servers []string
	for server := range e.t.m.cfg.Servers {
		if want(server) { // before any listing writes to lists, which want may read
			servers = append(servers, server)
		}
	}
	for _, server := range servers {
		wg.Go(func() {
			var tools []messages.Tool
			err := e.t.run(ctx, &request{Server: server, Tenant: e.t.tenant, Method: methodListTools}, &tools)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			lists[server] = tools
			if b, err := json.Marshal(tools); err == nil {
				e.t.m.view.noteTools(e.t.identity(server), b)
			}
		})
	}
	wg.Wait()
	return joinSorted(errs)
}

// joinSorted joins errs in the order of their texts, so that the
// concurrent listings' failures read the same from run to run.
func joinSorted(errs []error) error {
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	var out error
	for _, err := range errs {
		if out == nil {
			out = err
		} else {
			out = fmt.Errorf("%w; %w", out, err)
		}
	}
	return out
}

// exposedCatalog is a tenant's tools by exposed name.
type exposedCatalog struct {
	tools  []mcpactor.ManagedTool // sorted by Name
	byName map[string]naming.ToolPair
}

// catalog names the tools of lists as a Manager names its servers':
// each list repaired by naming.NormalizeTools, then the names worked out
// by naming.NewToolIndex over every list at once (a name depends on
// which other tools share its base name).
func (e Exposed) catalog(lists map[string][]messages.Tool) exposedCatalog {
	var pairs []naming.ToolPair
	normalized := make(map[string][]messages.Tool, len(lists))
	for server, tools := range lists {
		tools, _ = naming.NormalizeTools(tools)
		normalized[server] = tools
		for _, t := range tools {
			pairs = append(pairs, naming.ToolPair{Server: server, Tool: t.Name})
		}
	}
	ix := naming.NewToolIndex(pairs)
	c := exposedCatalog{tools: make([]mcpactor.ManagedTool, 0, len(pairs)), byName: make(map[string]naming.ToolPair, len(pairs))}
	for server, tools := range normalized {
		cached := !e.ownerLive(server)
		for _, t := range tools {
			name, ok := ix.Exposed(server, t.Name)
			if !ok {
				continue
			}
			c.tools = append(c.tools, mcpactor.ManagedTool{Name: name, Server: server, Tool: t, Cached: cached})
			c.byName[name] = naming.ToolPair{Server: server, Tool: t.Name}
		}
	}
	slices.SortFunc(c.tools, func(a, b mcpactor.ManagedTool) int { return strings.Compare(a.Name, b.Name) })
	return c
}

// resolve returns the server and tool behind exposed. A name the cached
// lists do not give is looked for again in fresh lists of the servers
// whose names it could be made from (which activates them: a server not
// started for the tenant has no list in the cache, and a cached list may
// predate a tools/list_changed); any other name is unknown at once.
func (e Exposed) resolve(ctx context.Context, exposed string) (naming.ToolPair, error) {
	lists := e.cachedLists()
	if p, ok := e.catalog(lists).byName[exposed]; ok {
		return p, nil
	}
	err := e.fill(ctx, lists, func(server string) bool { return couldExpose(server, exposed) })
	if p, ok := e.catalog(lists).byName[exposed]; ok {
		return p, nil
	}
	unknown := callerr.NewUnknownTool(&callerr.Error{Tool: exposed})
	if err != nil {
		return naming.ToolPair{}, fmt.Errorf("%w (listing tools failed: %w)", unknown, err)
	}
	return naming.ToolPair{}, unknown
}

// exposedPrefixLen is how much of mcp__<server>__<tool> an exposed name
// keeps at least when shortened (naming.NewToolIndex: a base name's
// first 55 characters).
const exposedPrefixLen = 55

// couldExpose reports whether server could offer a tool under exposed:
// exposed begins with mcp__<server>__ as naming sanitises it, or with as
// much of it as a shortened name keeps.
func couldExpose(server, exposed string) bool {
	p := "mcp__" + naming.Sanitize(server) + "__"
	n := min(len(p), exposedPrefixLen)
	return len(exposed) > n && exposed[:n] == p[:n]
}
