package cluster

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

// The servers a member owns are run by one mcpactor.Manager of the
// member's (docs/cluster.md, "Supervision of owned servers"), started
// empty: an activation adds its server once it holds the ownership key
// and removes it before giving the key up. The manager restarts a server
// whose connection dies (exponential backoff with jitter, then a circuit
// breaker), restarts one whose calls keep failing in the transport or
// whose keepalive pings fail, and bounds the handshakes in flight; the
// member keeps what only it knows: the key, the lease check before every
// call, the era memo and the shared tool cache.

// startManager starts the member's manager of owned servers, with none.
func (m *Member) startManager(ctx context.Context) error {
	if m.cfg.CallOnly {
		return nil
	}
	s := m.cfg.Supervision
	mgr, err := m.rt.Manage(ctx, mcpactor.ManageOptions{
		NoCache:        true, // the shared cache in etcd is the cluster's
		Startup:        mcpactor.StartupImmediate,
		FailFast:       s.FailFast,
		BreakerRetry:   s.BreakerRetry,
		BreakerBackoff: s.BreakerBackoff,
		RestartWait:    s.RestartWait,
		MaxConnecting:  s.MaxConnecting,
		OnEvent:        m.onManagerEvent,
	})
	if err != nil {
		if mgr != nil {
			_ = mgr.Close(context.WithoutCancel(ctx))
		}
		return err
	}
	m.mgr = mgr
	return nil
}

// onManagerEvent hears the manager's events, in order, on its goroutine.
func (m *Member) onManagerEvent(e mcpactor.ManagerEvent) {
	m.mu.Lock()
	act := m.names[e.Server]
	m.mu.Unlock()
	if act == nil {
		return
	}
	switch e.Kind {
	case mcpactor.EventToolsChanged:
		act.exposed.Store(nil)
	case mcpactor.EventStateChanged:
		act.setState(e.State, e.Err)
		if !act.started() {
			return // starting: awaitReady decides
		}
		m.log("cluster owned server state", "identity", act.id.String(), "generation", act.generation,
			"state", string(e.State), "err", errText(e.Err))
		switch e.State {
		case mcpactor.StateReady:
			// Restarted: the tools of the new process may differ.
			if act.client.Generation().Number > 1 {
				m.refreshOnChange(e.Server)
			}
		case mcpactor.StateFailed:
			// The manager gives up on it for good (it cannot start any
			// more): so does the ownership, and the next call starts
			// a new generation.
			m.mu.Lock()
			if m.stopping {
				m.mu.Unlock()
				return
			}
			m.wg.Go(func() {
				m.deactivate(act, "server failed", true)
			})
			m.mu.Unlock()
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// setState records the manager's state of act's server ("" before any).
func (act *activation) setState(st mcpactor.ServerState, err error) {
	act.mu.Lock()
	defer act.mu.Unlock()
	act.state, act.stateErr = st, err
	if act.changed != nil {
		close(act.changed)
	}
	act.changed = make(chan struct{})
}

// settle records st unless an event has settled the state already.
func (act *activation) settle(st mcpactor.ServerState, err error) {
	act.mu.Lock()
	defer act.mu.Unlock()
	if act.state == "" || act.state == mcpactor.StateConnecting {
		act.state, act.stateErr = st, err
		if act.changed != nil {
			close(act.changed)
		}
		act.changed = make(chan struct{})
	}
}

func (act *activation) currentState() (mcpactor.ServerState, <-chan struct{}, error) {
	act.mu.Lock()
	defer act.mu.Unlock()
	return act.state, act.changed, act.stateErr
}

// awaitReady waits until the manager has the server named name ready,
// and returns its client; a state other than connecting or ready (the
// first connection failed: the manager is about to restart it, or gave
// up) is the first connection's error. The manager's events say when;
// its Status is read too, now and then, so that an event the subscriber
// did not get in time cannot hold the activation.
func (m *Member) awaitReady(ctx context.Context, act *activation, name string) (*mcpactor.Client, error) {
	poll := time.NewTicker(200 * time.Millisecond)
	defer poll.Stop()
	for {
		st, changed, err := act.currentState()
		switch st {
		case mcpactor.StateReady:
			if c, ok := m.mgr.Client(name); ok {
				return c, nil
			}
		case "", mcpactor.StateConnecting:
		default:
			if err == nil {
				err = callerr.NewUnavailable(&callerr.Error{Server: name, State: string(st)})
			}
			c, _ := m.mgr.Client(name)
			return c, err
		}
		select {
		case <-changed:
		case <-poll.C:
			if s, ok := m.ownedStatus(name); ok && s.State != mcpactor.StateConnecting {
				act.settle(s.State, s.LastError)
			}
		case <-ctx.Done():
			c, _ := m.mgr.Client(name)
			return c, ctx.Err()
		}
	}
}

// ownedStatus is the manager's status of the server named name.
func (m *Member) ownedStatus(name string) (mcpactor.ServerStatus, bool) {
	for _, s := range m.mgr.Status() {
		if s.Name == name {
			return s, true
		}
	}
	return mcpactor.ServerStatus{}, false
}

// OwnedServer is an identity this member owns, as its manager runs it
// (Member.Status).
type OwnedServer struct {
	Identity Identity
	// Generation is the ownership's fencing revision
	// (Placement.Generation): the same across the manager's restarts.
	Generation int64
	// Server is the manager's status of the server: its state, restarts,
	// last error, the number of its current connection (Generation: 1,
	// and one more per restart), calls in flight and latencies. Its Name
	// is the manager's name for the server (clientName).
	Server mcpactor.ServerStatus
}

// Status returns the identities this member owns (those still starting
// included), sorted, each with its manager's status. A call-only member
// owns none.
func (m *Member) Status() []OwnedServer {
	if m.mgr == nil {
		return nil
	}
	statuses := m.mgr.Status()
	m.mu.Lock()
	out := make([]OwnedServer, 0, len(m.names))
	for _, s := range statuses {
		if act := m.names[s.Name]; act != nil && m.acts[act.id] == act {
			out = append(out, OwnedServer{Identity: act.id, Generation: act.generation, Server: s})
		}
	}
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b OwnedServer) int {
		return cmp.Or(cmp.Compare(a.Identity.Server, b.Identity.Server), cmp.Compare(a.Identity.Tenant, b.Identity.Tenant))
	})
	return out
}

// callTool calls tool on act's server through the manager, by the name
// it offers the tool under, so that the manager's breaker, its count of
// transport failures and its wait for a restart apply. A tool the
// configuration's EnabledTools and DisabledTools leave out is refused
// with an ErrNotFound *mcpactor.Error, as the manager refuses a tool it does
// not offer: those lists are the operator's policy, which a call from
// another member must not get round. Any other tool the manager does not
// offer (its listing is not in yet) is called on the server's client
// directly, as a runtime's client would: the server answers. A tool
// missing from a listing the manager has is refused with
// an ErrNotFound *mcpactor.Error, as the manager refuses it.
//
// opts are the caller's call options (the request's), applied here on
// the owner, where the server's request timeout runs.
func (m *Member) callTool(ctx context.Context, act *activation, tool string, args any, opts mcpactor.CallOptions) (*messages.CallToolResult, error) {
	if !act.offers(tool) {
		return nil, callerr.NewUnknownTool(&callerr.Error{Tool: tool})
	}
	for _, fresh := range []bool{false, true} {
		exposed, ok := m.exposedName(act, tool, fresh)
		if !ok {
			// The names held may predate the manager's listing (read
			// when it was not in yet): read them again once before
			// deciding from the status below, which may be newer.
			continue
		}
		res, err := m.mgr.CallToolWith(ctx, exposed, args, opts)
		if callerr.UnknownTool(err) == nil {
			return res, err
		}
		// Renamed meanwhile (another server's tool came to share its
		// name) or gone: read the names again.
	}
	if s, ok := m.ownedStatus(act.name); ok && s.State == mcpactor.StateReady && !s.ToolsPending && s.Tools > 0 {
		// The manager has the server's listing, and the tool is not in
		// it: refused as the manager refuses it, not sent for the
		// server to answer with an error result. (A listing of no
		// tools, or one not in yet, leaves it to the server.) The names
		// are read once more after the status, so they hold the
		// listing it reports.
		if exposed, ok := m.exposedName(act, tool, true); ok {
			return m.mgr.CallToolWith(ctx, exposed, args, opts)
		}
		return nil, callerr.NewUnknownTool(&callerr.Error{Tool: tool})
	}
	return act.client.CallToolWith(ctx, tool, args, opts)
}

// offers reports whether act's configuration lets tool be called (the
// manager's rule: in EnabledTools when that is set, never in
// DisabledTools).
func (act *activation) offers(tool string) bool {
	if len(act.enabled) > 0 && !slices.Contains(act.enabled, tool) {
		return false
	}
	return !slices.Contains(act.disabled, tool)
}

// listTools lists act's tools as its configuration offers them: the
// server's list less what EnabledTools and DisabledTools leave out, for
// callers and for the shared cache alike.
func (m *Member) listTools(ctx context.Context, act *activation) ([]messages.Tool, error) {
	tools, err := act.client.ListTools(ctx)
	if err != nil || (len(act.enabled) == 0 && len(act.disabled) == 0) {
		return tools, err
	}
	return slices.DeleteFunc(tools, func(t messages.Tool) bool { return !act.offers(t.Name) }), nil
}

// exposedName is the name the manager offers act's tool under. The
// names are read from the manager's tool list when none are known (or
// fresh): once after each change of the server's tools.
func (m *Member) exposedName(act *activation, tool string, fresh bool) (string, bool) {
	names := act.exposed.Load()
	if names == nil || fresh {
		next := map[string]string{}
		for _, t := range m.mgr.ListTools() {
			if t.Server == act.name && !t.Cached {
				next[t.Tool.Name] = t.Name
			}
		}
		act.exposed.Store(&next)
		names = &next
	}
	exposed, ok := (*names)[tool]
	return exposed, ok
}

// ownedError is err of a call to act's server, as the manager sees it: a
// call that failed while the server cannot take calls (its breaker open,
// failed; with FailFast, restarting) is an ErrServerUnavailable *mcpactor.Error
// naming its state and last error, as the manager's own routing answers.
func (m *Member) ownedError(act *activation, err error) error {
	var rpc *callerr.RPCError
	switch {
	case err == nil, callerr.Unavailable(err) != nil, errors.As(err, &rpc),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	s, ok := m.ownedStatus(act.name)
	if !ok {
		return err
	}
	switch s.State {
	case mcpactor.StateBreakerOpen, mcpactor.StateFailed, mcpactor.StateDisabled, mcpactor.StateRefused:
	case mcpactor.StateRestarting, mcpactor.StateUnhealthy:
		if !m.cfg.Supervision.FailFast {
			return err
		}
	default:
		return err
	}
	return callerr.NewUnavailable(&callerr.Error{Server: act.name, State: string(s.State), Cause: s.LastError})
}
