package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// activation is this member's session for one identity it owns: the
// ownership key it took in etcd, then the server, run by the member's
// manager (owned.go) under a name of its own.
//
// Order is the guarantee: the key is taken (a transaction that creates it
// only if it does not exist, bound to the member's lease) before the
// server is added to the manager, hence before its process starts or its
// HTTP session opens, and every call checks that the lease is still safe
// (leaseKeeper.valid) before it reaches the server. Generation is the
// key's create revision, the fencing token: each new activation of an
// identity, wherever it runs, has a larger one. A restart of the server
// by the manager, while the member holds the key, is the same activation
// and the same generation: the ownership did not change, only the
// connection (SessionInfo.Connection counts those).
type activation struct {
	id         Identity
	lease      clientv3.LeaseID
	generation int64
	ready      chan struct{} // closed when client or err is set
	// name is the server's name in the member's manager: unique per
	// identity and generation (clientName).
	name string
	// client is the manager's client of the server: the same handle
	// across the manager's restarts, each a new connection on it.
	client *mcpactor.Client
	err    error
	// enabled and disabled are the configuration's EnabledTools and
	// DisabledTools: a tool they leave out is refused (owned.go,
	// callTool), as a manager refuses one it does not offer.
	enabled, disabled []string
	// listings counts the tools/list_changed notifications not yet
	// followed by a listing (refreshOnChange).
	listings atomic.Int32
	// exposed maps the server's tool names to the names the manager
	// offers them under (owned.go); nil until read, and again whenever
	// the manager's tools of the server change.
	exposed atomic.Pointer[map[string]string]

	// The manager's state of the server while it starts (awaitReady),
	// from its events or, should one be late, its Status.
	mu       sync.Mutex
	state    mcpactor.ServerState
	stateErr error
	changed  chan struct{} // closed and replaced when state moves
}

// activate returns this member's activation of id, taking ownership and
// starting the server if nobody owns it. Another member's ownership is a
// *NotOwnerError naming it.
func (m *Member) activate(ctx context.Context, id Identity, method string) (*activation, error) {
	m.mu.Lock()
	if m.stopping {
		m.mu.Unlock()
		return nil, fmt.Errorf("cluster: %s %s: member %s: %w", id, method, m.cfg.Name, ErrStopped)
	}
	if m.cfg.CallOnly {
		m.mu.Unlock()
		return nil, &NotOwnerError{Identity: id, Member: m.cfg.Name, Method: method, Reason: "it is call-only"}
	}
	act, ok := m.acts[id]
	if !ok && id.Tenant != "" && m.tenantActs >= m.cfg.MaxTenantActivations {
		m.mu.Unlock()
		return nil, fmt.Errorf("cluster: %s %s: member %s owns %d tenant sessions (MaxTenantActivations): %w",
			id, method, m.cfg.Name, m.cfg.MaxTenantActivations, ErrTooManyActivations)
	}
	if !ok {
		if id.Tenant != "" {
			m.tenantActs++
		}
		act = &activation{id: id, ready: make(chan struct{})}
		m.acts[id] = act
		m.wg.Go(func() {
			m.start(act)
		})
	}
	m.mu.Unlock()
	select {
	case <-act.ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("cluster: %s %s: member %s: waiting for its activation: %w", id, method, m.cfg.Name, ctx.Err())
	}
	if act.err != nil {
		return nil, act.err
	}
	if !m.lease.valid(act.lease) {
		return nil, &NotOwnerError{Identity: id, Member: m.cfg.Name, Method: method, Reason: "its lease could not be renewed in time"}
	}
	return act, nil
}

// start takes the ownership key of act.id and starts its server. On
// failure act.err is set and act is forgotten, so that the next call tries
// again.
func (m *Member) start(act *activation) {
	err := m.claimAndConnect(act)
	if err != nil {
		act.err = err
		m.forget(act)
	}
	close(act.ready)
	if err != nil {
		return
	}
	// A fence that ran while the server started skipped act (not ready
	// then); fenceAt was zeroed before it looked, so this sees it.
	if !m.lease.valid(act.lease) {
		m.deactivate(act, "fenced while starting", false)
		return
	}
	m.log("cluster activation started", "identity", act.id.String(), "generation", act.generation)
	m.wg.Go(func() {
		m.refreshTools(act)
	})
	m.wg.Go(func() {
		// The manager's client ends only when the server is removed
		// (deactivate) or the manager stops: a server that exits is
		// restarted on the same client.
		select {
		case <-act.client.Done():
			m.deactivate(act, "server closed", true)
		case <-m.ctx.Done():
		}
	})
}

func (m *Member) claimAndConnect(act *activation) error {
	id := act.id
	base, ok := m.cfg.Servers[id.Server]
	if !ok {
		return &UnknownServerError{Server: id.Server, Member: m.cfg.Name, Method: "activate"}
	}
	cfg := base
	if id.Tenant != "" {
		// The runtime keeps OAuth tokens and private tool lists per
		// identity: the tenant's session is reached as the tenant.
		cfg.Identity = id.Tenant
	}
	if m.cfg.ServerFor != nil {
		var err error
		if cfg, err = m.serverFor(id, base); err != nil {
			return fmt.Errorf("cluster: %s activate: member %s: ServerFor: %w", id, m.cfg.Name, err)
		}
	}
	lease, ok := m.lease.current()
	if !ok {
		return &NotOwnerError{Identity: id, Member: m.cfg.Name, Method: "activate", Reason: "it holds no valid lease"}
	}
	ctx, cancel := context.WithTimeout(m.starting, m.cfg.CallTimeout)
	defer cancel()
	rec, _ := json.Marshal(ownerRecord{Member: m.cfg.Name, Address: m.addr})
	key := m.view.ownersPrefix() + id.key()
	// The claim is worth nothing once the lease lapses: bounded by it,
	// so that an unreachable etcd fails the activation then, not at the
	// call's timeout.
	tctx, tcancel := context.WithTimeout(ctx, m.lease.validFor())
	defer tcancel()
	resp, err := m.etcd.Txn(tctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(rec), clientv3.WithLease(lease))).
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		return &EtcdUnavailableError{Identity: id, Method: "activate", Member: m.cfg.Name, Reason: err.Error()}
	}
	if !resp.Succeeded {
		owner := ""
		if rr := resp.Responses[0].GetResponseRange(); rr != nil && len(rr.Kvs) == 1 {
			var o ownerRecord
			if json.Unmarshal(rr.Kvs[0].Value, &o) == nil {
				owner = o.Member
			}
		}
		return &NotOwnerError{Identity: id, Member: m.cfg.Name, Method: "activate", Owner: owner, Reason: "another activation holds the key"}
	}
	act.lease, act.generation = lease, resp.Header.Revision
	if !m.lease.valid(lease) { // fenced while the transaction ran
		m.release(act)
		return &NotOwnerError{Identity: id, Member: m.cfg.Name, Method: "activate", Reason: "its lease could not be renewed in time"}
	}
	if err := m.connect(ctx, act, cfg); err != nil {
		m.release(act)
		return err
	}
	return nil
}

// connect adds act's server to the member's manager and waits until it
// is ready. The protocol era its server spoke at its last activation, on
// any member, is shared in etcd: a configuration that pins no version is
// pinned to it, so that a new activation (a failover included) skips the
// server/discover probe, which a session-era server that never answers
// it makes wait out ProbeTimeout. A memo the server contradicts (it was
// replaced) is dropped, and the server added again, probed.
func (m *Member) connect(ctx context.Context, act *activation, cfg mcpactor.ServerConfig) error {
	cfg.Fence = m.fence(act, cfg.Fence)
	// Telemetry names the server as the user configured it: the manager's
	// name holds the tenant's digest and the generation, and metric
	// series keyed by it would grow with every failover.
	if cfg.TelemetryName == "" {
		cfg.TelemetryName = act.id.Server
	}
	name, memo := clientName(act.id, act.generation), ""
	if cfg.ProtocolVersion == "" {
		memo = m.view.era(act.id)
		cfg.ProtocolVersion = memo
	}
	c, err := m.addServer(ctx, act, name, cfg)
	if err != nil && memo != "" && ctx.Err() == nil {
		m.log("cluster era memo contradicted", "identity", act.id.String(), "era", memo, "err", err)
		m.putEra(act, "")
		cfg.ProtocolVersion, memo = "", ""
		name += ".probed"
		c, err = m.addServer(ctx, act, name, cfg)
	}
	if err != nil {
		return err
	}
	act.name, act.client = name, c
	act.enabled, act.disabled = cfg.EnabledTools, cfg.DisabledTools
	if era := eraOf(c.ProtocolVersion()); memo == "" && cfg.ProtocolVersion == "" && era != m.view.era(act.id) {
		m.putEra(act, era)
	}
	return nil
}

// addServer adds act's server to the manager as name and waits for its
// first connection. A first connection that fails fails the activation
// (its key is released, the next call tries again): the manager's
// restart policy is for a server that has been up, not for one that
// cannot start.
func (m *Member) addServer(ctx context.Context, act *activation, name string, cfg mcpactor.ServerConfig) (*mcpactor.Client, error) {
	act.setState("", nil)
	m.mu.Lock()
	m.names[name] = act
	m.mu.Unlock()
	err := m.mgr.Add(ctx, name, cfg)
	var c *mcpactor.Client
	if err == nil {
		c, err = m.awaitReady(ctx, act, name)
	}
	if err != nil {
		m.dropServer(name, c)
		m.mu.Lock()
		if m.names[name] == act {
			delete(m.names, name)
		}
		m.mu.Unlock()
		return nil, err
	}
	return c, nil
}

// fence is the ServerConfig.Fence of act's server: the transport calls
// it right before each write to the server (a stdio write, an HTTP
// request), and writes nothing when it fails. The lease check before a
// call reaches the transport is not enough: a member paused after it
// would, on resuming, write what it had queued to a server it no longer
// owns, after the new owner's server started. Checked at the write, on
// the boot clock, a lapsed lease stops every frame; the calls end with
// *NotOwnerError on the owner, which the caller receives as
// *MemberLostError (the owner's lease lapsed under the call). The residual
// window is a pause between this check and the write system call
// (docs/cluster.md, "Fencing at the write"). user is the configuration's
// own Fence, checked after ours.
func (m *Member) fence(act *activation, user func() error) func() error {
	lease, id := act.lease, act.id
	return func() error {
		if !m.lease.valid(lease) {
			return &NotOwnerError{Identity: id, Member: m.cfg.Name, Method: "write",
				Reason: "its lease lapsed before the write (nothing was sent)"}
		}
		if user != nil {
			return user()
		}
		return nil
	}
}

// eraOf is the version to pin for a server that negotiated version: the
// stateless era's, or the newest of the session era (the handshake then
// accepts any session-era version the server answers with).
func eraOf(version string) string {
	if version == messages.Version20260728 {
		return version
	}
	return messages.Version20251125
}

// putEra records act's era in etcd ("" deletes it), while act owns its
// identity.
func (m *Member) putEra(act *activation, era string) {
	if !m.lease.valid(act.lease) {
		return
	}
	ctx, cancel := context.WithTimeout(m.ctx, m.cfg.CallTimeout)
	defer cancel()
	key := m.view.erasPrefix() + act.id.key()
	if era == "" {
		_, _ = m.etcd.Delete(ctx, key)
		return
	}
	_, _ = m.etcd.Put(ctx, key, era)
}

// forget removes act from the tables if it is still there.
func (m *Member) forget(act *activation) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.acts[act.id] != act {
		return false
	}
	delete(m.acts, act.id)
	if act.id.Tenant != "" {
		m.tenantActs--
	}
	if m.names[act.name] == act {
		delete(m.names, act.name)
	}
	return true
}

// deactivate removes act's server from the manager (killing it once
// closeWithin has passed) and, if release, gives its ownership key up.
func (m *Member) deactivate(act *activation, reason string, release bool) {
	if !m.forget(act) {
		return
	}
	m.log("cluster activation stopped", "identity", act.id.String(), "generation", act.generation, "reason", reason)
	m.dropServer(act.name, act.client)
	if release {
		m.release(act)
	}
}

// dropServer removes the server named name from the manager, so that it
// is never restarted, and closes its client c (looked up when nil) within
// closeWithin: the manager's own close of a removed server is graceful
// and may take longer than ownership allows.
func (m *Member) dropServer(name string, c *mcpactor.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), m.closeWithin())
	defer cancel()
	if c == nil {
		c, _ = m.mgr.Client(name)
	}
	_ = m.mgr.Remove(ctx, name)
	if c != nil {
		_ = c.Close(ctx)
	}
}

// closeWithin bounds the closing of a server when ownership ends: it is
// killed before the lease could expire (see leaseKeeper).
func (m *Member) closeWithin() time.Duration { return m.cfg.LeaseTTL / 6 }

// release deletes act's ownership key if it is still act's (same create
// revision): never a newer owner's.
func (m *Member) release(act *activation) {
	key := m.view.ownersPrefix() + act.id.key()
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.LeaseTTL)
	defer cancel()
	_, _ = m.etcd.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", act.generation)).
		Then(clientv3.OpDelete(key)).
		Commit()
}

// fenceLease stops, at once and in parallel, every activation bound to
// lease id. Their keys go with the lease.
func (m *Member) fenceLease(id clientv3.LeaseID, reason string) {
	m.mu.Lock()
	var doomed []*activation
	for _, act := range m.acts {
		select {
		case <-act.ready:
			if act.err == nil && act.lease == id {
				doomed = append(doomed, act)
			}
		default: // still starting: its own validity check refuses it
		}
	}
	m.mu.Unlock()
	done := make(chan struct{}, len(doomed))
	for _, act := range doomed {
		go func() {
			m.deactivate(act, "fenced: "+reason, false)
			done <- struct{}{}
		}()
	}
	for range doomed {
		<-done
	}
}

// refreshTools stores act's tool list in the shared cache, readable by
// every member even while the identity has no owner.
func (m *Member) refreshTools(act *activation) {
	ctx, cancel := context.WithTimeout(m.ctx, m.cfg.CallTimeout)
	defer cancel()
	tools, err := m.listTools(ctx, act)
	if err != nil {
		return
	}
	b, err := json.Marshal(tools)
	if err != nil {
		return
	}
	if !m.lease.valid(act.lease) {
		return
	}
	_, _ = m.etcd.Put(ctx, m.view.toolsPrefix()+act.id.key(), string(b))
}

// clientName names an activation's server in the member's manager, whose
// names are letters, digits, '-', '_' and '.': the server, a digest of the
// tenant (which may be an e-mail address), and the generation. A restart
// keeps the name; a new activation (a new generation) has a new one.
func clientName(id Identity, generation int64) string {
	name := id.Server
	if id.Tenant != "" {
		name += "." + tenantDigest(id.Tenant)
	}
	return name + "." + strconv.FormatInt(generation, 10)
}

// runtimeOptions are the member's runtime options with the notification
// handler wrapped: a server's tools/list_changed (server/tools, "List
// Changed Notification") refreshes the shared cache, then the user's own
// handler, if any, hears it too, with the server named as the user named
// it (notifiedServer), never by the manager's name for it.
func (m *Member) runtimeOptions() mcpactor.Options {
	opts := m.cfg.Runtime
	user, userCtx := opts.Handlers.Notification, opts.Handlers.NotificationContext
	opts.Handlers.Notification = nil
	opts.Handlers.NotificationContext = func(ctx context.Context, client string, n mcpactor.Notification) {
		if n.Method == messages.NotificationToolsListChanged {
			m.refreshOnChange(client)
		}
		if user == nil && userCtx == nil {
			return
		}
		server := m.notifiedServer(client)
		switch {
		case userCtx != nil:
			userCtx(ctx, server, n)
		case user != nil:
			user(server, n)
		}
	}
	return opts
}

// notifiedServer is how the user's notification handler names the
// server the manager runs as client: its identity, that is the server as
// configured, with "@tenant" for a tenant's session ("alpha",
// "alpha@alice"), as errors name it. A notification that comes after its
// activation was dropped is named by the configured server its name
// begins with (the tenant is then unknown: the name holds a digest).
func (m *Member) notifiedServer(client string) string {
	base := strings.TrimSuffix(client, ".probed")
	m.mu.Lock()
	act := m.names[client]
	if act == nil {
		act = m.names[base]
	}
	m.mu.Unlock()
	if act != nil {
		return act.id.String()
	}
	for name := base; name != ""; {
		if _, ok := m.cfg.Servers[name]; ok {
			return name
		}
		i := strings.LastIndexByte(name, '.')
		if i < 0 {
			break
		}
		name = name[:i]
	}
	return base
}

// refreshOnChange lists the tools of the activation whose server the
// manager names client again, for the shared cache. A storm of
// notifications costs one listing in progress and one after it, not one
// each.
func (m *Member) refreshOnChange(client string) {
	m.mu.Lock()
	act := m.names[client]
	if act != nil && !act.started() {
		act = nil
	}
	if act == nil || m.stopping || act.listings.Add(1) > 1 {
		m.mu.Unlock()
		return
	}
	m.wg.Go(func() {
		for {
			n := act.listings.Load()
			m.refreshTools(act)
			if act.listings.Add(-n) == 0 {
				return
			}
		}
	})
	m.mu.Unlock()
}

// started reports whether act's server is up and act serves calls.
func (act *activation) started() bool {
	select {
	case <-act.ready:
		return act.err == nil && act.client != nil
	default:
		return false
	}
}
