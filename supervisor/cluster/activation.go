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
	// gone is closed once the activation's servers are dropped (it failed
	// to start, or was deactivated): the next activation of id on this
	// member starts only then (activate), and a fence revokes the lease
	// only then (fenceLease), so that one member never runs two servers
	// of one identity, nor lets another member start one while its own
	// still runs.
	gone     chan struct{}
	goneOnce sync.Once
	// stopStart cancels the start (claimAndConnect) and releases its
	// timer; fenceLease calls it for an activation still starting.
	stopStart context.CancelFunc
	// fenced is set when the member's lease was fenced while the
	// activation started: it gives up, and leaves its key to the lease.
	fenced atomic.Bool
	// writer is the token of the connect attempt whose server may be
	// written to (fence): each attempt takes a new one (addServer), a
	// failed attempt gives it up (0), and retiredWriter, once set, stays:
	// the activation is no longer its identity's current one on this
	// member, and none of its servers is written to again.
	writer   atomic.Int64
	attempts int64 // the last token taken; the start's goroutine only
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
		// The previous activation of id on this member, if its servers
		// are still being dropped: the new one starts after them.
		prev := m.retiring[id]
		sctx, cancel := context.WithTimeout(m.starting, m.cfg.CallTimeout)
		act = &activation{id: id, ready: make(chan struct{}), gone: make(chan struct{}), stopStart: cancel}
		m.acts[id] = act
		m.wg.Go(func() {
			m.start(sctx, act, prev)
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

// start takes the ownership key of act.id and starts its server, once
// prev (the identity's previous activation on this member, or nil) is
// gone. On failure act.err is set and act is forgotten, so that the next
// call tries again.
func (m *Member) start(ctx context.Context, act *activation, prev *activation) {
	defer act.stopStart()
	var err error
	if prev != nil {
		// Bounded: a deactivation drops its servers within closeWithin.
		// Not by ctx: a start that gave up here would let a third
		// activation start before prev is gone.
		select {
		case <-prev.gone:
		case <-m.starting.Done():
			err = fmt.Errorf("cluster: %s activate: member %s: %w", act.id, m.cfg.Name, ErrStopped)
		}
	}
	if err == nil {
		err = m.claimAndConnect(ctx, act)
	}
	if err == nil && act.fenced.Load() {
		// Connected just as the lease was fenced: its server goes now.
		m.dropServer(act.name, act.client)
		err = m.lapsed(act)
	}
	if err != nil {
		if act.fenced.Load() {
			err = m.lapsed(act)
		}
		act.err = err
		m.forget(act)
		act.markGone(m)
	}
	close(act.ready)
	if err != nil {
		return
	}
	// A fence that ran while the server started stopped act (above); one
	// that runs from here on finds it ready. fenceAt was zeroed before
	// either looked, so this sees a fence that raced with both.
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

// lapsed is the error of an activation whose start the member's fence
// stopped.
func (m *Member) lapsed(act *activation) error {
	return &NotOwnerError{Identity: act.id, Member: m.cfg.Name, Method: "activate", Reason: "its lease lapsed while the activation started"}
}

func (m *Member) claimAndConnect(ctx context.Context, act *activation) error {
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
	rec, _ := json.Marshal(ownerRecord{Member: m.cfg.Name, Address: m.addr})
	key := m.view.ownersPrefix() + id.key()
	// The claim is worth nothing once the lease lapses: bounded by it,
	// so that an unreachable etcd fails the activation then, not at the
	// call's timeout.
	tctx, tcancel := context.WithTimeout(ctx, m.lease.validFor())
	defer tcancel()
	claim := func() (*clientv3.TxnResponse, error) {
		return m.etcd.Txn(tctx).
			If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, string(rec), clientv3.WithLease(lease))).
			Else(clientv3.OpGet(key)).
			Commit()
	}
	resp, err := claim()
	if err == nil && !resp.Succeeded && m.clearOrphan(tctx, key, lease, resp) {
		resp, err = claim()
	}
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
		m.releaseStarted(act)
		return &NotOwnerError{Identity: id, Member: m.cfg.Name, Method: "activate", Reason: "its lease could not be renewed in time"}
	}
	if err := m.connect(ctx, act, cfg); err != nil {
		m.releaseStarted(act)
		return err
	}
	return nil
}

// clearOrphan deletes the ownership key a claim found (resp, the claim's
// answer), and reports whether it did, when the key is an orphan of this
// member: bound to the lease the member holds now and naming it, while no
// activation of the identity runs here (the caller is the identity's one
// activation, started after the previous one was gone). Such a key is left
// by a claim etcd applied after the member had given up waiting for it, or
// by a release that never reached etcd, and it would otherwise refuse
// every activation of the identity for as long as the member lives, since
// its lease is kept alive. It is deleted, not taken over, so that the next
// claim makes a key with a new create revision: a release of the earlier
// activation still on its way compares that revision, and must never
// delete the new one.
func (m *Member) clearOrphan(ctx context.Context, key string, lease clientv3.LeaseID, resp *clientv3.TxnResponse) bool {
	rr := resp.Responses[0].GetResponseRange()
	if rr == nil || len(rr.Kvs) != 1 {
		return false
	}
	kv := rr.Kvs[0]
	var o ownerRecord
	if kv.Lease != int64(lease) || json.Unmarshal(kv.Value, &o) != nil || o.Member != m.cfg.Name {
		return false
	}
	del, err := m.etcd.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", kv.CreateRevision),
			clientv3.Compare(clientv3.LeaseValue(key), "=", lease)).
		Then(clientv3.OpDelete(key)).
		Commit()
	if err != nil || !del.Succeeded {
		return false
	}
	m.log("cluster orphaned ownership key cleared", "key", key, "generation", kv.CreateRevision)
	return true
}

// releaseStarted gives up the key of act, whose start failed, unless the
// member's fence stopped it: the key then goes with the lease, which the
// fence revokes once every server of it is gone (fenceLease), and a
// release now could let another member start the identity before that.
func (m *Member) releaseStarted(act *activation) {
	if !act.fenced.Load() {
		m.release(act)
	}
}

// connect adds act's server to the member's manager and waits until it
// is ready. The protocol era its server spoke at its last activation, on
// any member, is shared in etcd: a configuration that pins no version is
// pinned to it, so that a new activation (a failover included) skips the
// server/discover probe, which a session-era server that never answers
// it makes wait out ProbeTimeout. A memo the server contradicts (it was
// replaced) is dropped, and the server added again, probed.
func (m *Member) connect(ctx context.Context, act *activation, cfg mcpactor.ServerConfig) error {
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
	if err != nil && memo != "" && ctx.Err() == nil && !act.fenced.Load() {
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
//
// Each call is an attempt with a write token of its own (activation.
// writer): a failed attempt gives its token up before its server is
// dropped, so that a server being dropped, or one the manager was about
// to restart, is never written to while the next attempt's server (the
// era memo's probed retry) starts.
func (m *Member) addServer(ctx context.Context, act *activation, name string, cfg mcpactor.ServerConfig) (*mcpactor.Client, error) {
	token, ok := act.nextWriter()
	if !ok {
		return nil, m.lapsed(act)
	}
	cfg.Fence = m.fence(act, token, cfg.Fence)
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
		act.endWriter(token)
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

// retiredWriter is activation.writer once the activation is no longer
// current.
const retiredWriter = -1

// nextWriter takes a new write token for a connect attempt of act; false
// if act is retired.
func (act *activation) nextWriter() (int64, bool) {
	prev := act.writer.Load()
	if prev == retiredWriter {
		return 0, false
	}
	act.attempts++
	if !act.writer.CompareAndSwap(prev, act.attempts) {
		return 0, false // retired meanwhile: it only ever moves to retiredWriter
	}
	return act.attempts, true
}

// endWriter gives up token, a failed attempt's, unless act was retired.
func (act *activation) endWriter(token int64) { act.writer.CompareAndSwap(token, 0) }

// retire makes act's fence refuse every write from now on, for good.
func (act *activation) retire() { act.writer.Store(retiredWriter) }

// markGone records that act's servers are dropped: the next activation
// of its identity on this member may start.
func (act *activation) markGone(m *Member) {
	act.goneOnce.Do(func() {
		m.mu.Lock()
		if m.retiring[act.id] == act {
			delete(m.retiring, act.id)
		}
		m.mu.Unlock()
		close(act.gone)
	})
}

// fence is the ServerConfig.Fence of one connect attempt (token) of
// act's server: the transport calls it right before each write to the
// server (a stdio write, an HTTP request), and writes nothing when it
// fails. The lease check before a call reaches the transport is not
// enough: a member paused after it would, on resuming, write what it had
// queued to a server it no longer owns, after the new owner's server
// started. Checked at the write, on the boot clock, a lapsed lease stops
// every frame; the calls end with *NotOwnerError on the owner, which the
// caller receives as *MemberLostError (the owner's lease lapsed under
// the call). The residual window is a pause between this check and the
// write system call (docs/cluster.md, "Fencing at the write").
//
// A valid lease is not enough either: the fence names the activation
// (its generation, the ownership key's create revision, and the
// attempt's token). A write is refused once the activation is no longer
// the identity's current one on this member (deactivated, or stopped by
// a fence while it started), once its attempt was given up, and once
// this member's view of etcd holds a newer generation of the identity
// (another activation, anywhere, took the key since). user is the
// configuration's own Fence, checked after ours.
func (m *Member) fence(act *activation, token int64, user func() error) func() error {
	lease, id, gen := act.lease, act.id, act.generation
	return func() error {
		if act.writer.Load() != token {
			return &NotOwnerError{Identity: id, Member: m.cfg.Name, Method: "write",
				Reason: fmt.Sprintf("its activation of generation %d (attempt %d) is no longer the current one (nothing was sent)", gen, token)}
		}
		if !m.lease.valid(lease) {
			return &NotOwnerError{Identity: id, Member: m.cfg.Name, Method: "write",
				Reason: "its lease lapsed before the write (nothing was sent)"}
		}
		if rec, ok := m.view.owner(id); ok && rec.Generation > gen {
			return &NotOwnerError{Identity: id, Member: m.cfg.Name, Method: "write", Owner: rec.Member,
				Reason: fmt.Sprintf("generation %d of the identity superseded its activation's %d (nothing was sent)", rec.Generation, gen)}
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

// forget removes act from the tables if it is still there, and retires
// it: its fence refuses every write from now on, and until its servers
// are dropped (markGone) a new activation of its identity on this member
// waits for them.
func (m *Member) forget(act *activation) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.acts[act.id] != act {
		return false
	}
	act.retire()
	delete(m.acts, act.id)
	m.retiring[act.id] = act
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
	act.markGone(m)
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
// lease id, those still starting included (their writes are refused from
// now on and their start is cancelled: a server they started is dropped
// by addServer), and waits, at most TTL/3 (what the fence leaves before
// etcd may expire the lease), until every server of them, and of those
// already being deactivated, is gone. It reports whether they all are:
// only then may the lease be revoked, which lets another member take the
// identities at once; otherwise the lease is left to expire. Their keys
// go with the lease.
func (m *Member) fenceLease(id clientv3.LeaseID, reason string) bool {
	m.mu.Lock()
	var doomed, starting, all []*activation
	for _, act := range m.acts {
		select {
		case <-act.ready:
			if act.err == nil && act.lease == id {
				doomed = append(doomed, act)
				all = append(all, act)
			}
		default:
			// Starting, under lease id or none yet (a claim under a
			// fenced lease fails): it must not outlive the fence.
			starting = append(starting, act)
			all = append(all, act)
		}
	}
	for _, act := range m.retiring {
		all = append(all, act)
	}
	m.mu.Unlock()
	for _, act := range starting {
		act.fenced.Store(true)
		act.retire()
		act.stopStart()
	}
	for _, act := range doomed {
		m.wg.Go(func() { m.deactivate(act, "fenced: "+reason, false) })
	}
	t := time.NewTimer(m.cfg.LeaseTTL / 3)
	defer t.Stop()
	for _, act := range all {
		select {
		case <-act.gone:
		case <-t.C:
			m.log("cluster fence: a server of the lease may still run; the lease is left to expire", "identity", act.id.String())
			return false
		}
	}
	return true
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
