package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/eventstream"
	"github.com/asynkron/protoactor-go/remote"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/telemetry"
)

// Member is one process of the cluster: it owns some identities (runs
// their servers, as one machine's runtime would) and calls any identity,
// wherever it lives, by the same names. Its methods are safe for
// concurrent use.
type Member struct {
	cfg    Config
	rt     *mcpactor.Runtime
	tel    *telemetry.Telemetry // the hop's spans (trace.go)
	mgr    *mcpactor.Manager    // runs the servers this member owns (owned.go); nil if call-only
	etcd   *clientv3.Client
	lease  *leaseKeeper
	view   *view
	sys    *actor.ActorSystem
	remote *remote.Remote
	addr   string
	self   *actor.PID
	sub    *eventstream.Subscription

	ctx    context.Context // ends at Stop
	cancel context.CancelFunc
	// starting ends first thing in Stop: server starts in progress give
	// up rather than hold Stop.
	starting       context.Context
	cancelStarting context.CancelFunc
	wg             sync.WaitGroup

	mu       sync.Mutex
	stopping bool
	acts     map[Identity]*activation
	// tenantActs counts the entries of acts with a tenant.
	tenantActs int
	names      map[string]*activation // by the manager's name of the server
	// retiring holds, by identity, the activation last forgotten until
	// its servers are dropped (activation.gone).
	retiring map[Identity]*activation

	calls    pendingCalls
	counts   counters
	lost     lostAddresses // members whose connection broke (route.go)
	workers  *workers      // serve other members' requests
	out      *outbound     // what waits for other members (outbound.go)
	pids     pidCache      // other members' inboxes
	catalogs catalogs      // prompt and resource lists loaded (exposed_catalog.go)
	stop     sync.Once
}

// Start joins the cluster: it starts the member's runtime and remote
// layer, connects to etcd, takes a lease and registers the member, and
// returns once this member sees the cluster (its view of etcd is loaded
// and it is registered), or ctx ends.
func Start(ctx context.Context, cfg Config) (m *Member, err error) {
	cfg, err = cfg.normalize()
	if err != nil {
		return nil, err
	}
	if cfg.InsecureAllowUnauthenticated && cfg.Secret == "" && !cfg.mutualTLS() {
		cfg.Logger.Warn("cluster member accepts unauthenticated peers (InsecureAllowUnauthenticated): anyone who reaches "+
			cfg.BindAddress+" can run tools on every session", "member", cfg.Name)
	}
	m = &Member{cfg: cfg, acts: map[Identity]*activation{}, names: map[string]*activation{}, retiring: map[Identity]*activation{}}
	m.calls.init()
	m.tel = newHopTelemetry(cfg.Runtime.Telemetry)
	m.ctx, m.cancel = context.WithCancel(context.Background())
	m.starting, m.cancelStarting = context.WithCancel(m.ctx)
	m.workers = newWorkers(m.ctx, &m.wg)
	defer func() {
		if err != nil {
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = m.Stop(sctx)
			cancel()
		}
	}()
	if m.rt, err = mcpactor.Start(m.runtimeOptions()); err != nil {
		return m, err
	}
	if err = m.startManager(ctx); err != nil {
		return m, fmt.Errorf("cluster: member %s: manager: %w", cfg.Name, err)
	}
	// The remote layer first: its start rewrites gRPC's global logger,
	// which is best done before the etcd client's gRPC is busy.
	m.out = newOutbound(cfg, &m.counts)
	if m.sys, m.remote, m.addr, err = startRemote(cfg, &m.counts, m.out); err != nil {
		return m, err
	}
	m.wg.Go(func() { m.out.watch(m.ctx) })
	m.sub = m.sys.EventStream.Subscribe(func(evt any) {
		if e, ok := evt.(*remote.EndpointTerminatedEvent); ok {
			m.out.forget(e.Address)
			m.lost.mark(e.Address, 2*m.cfg.LeaseTTL+time.Second)
			m.calls.failAddress(e.Address, "connection lost")
		}
	})
	m.etcd, err = clientv3.New(clientv3.Config{
		Endpoints:   cfg.Etcd.Endpoints,
		DialTimeout: cfg.Etcd.DialTimeout,
		TLS:         cfg.Etcd.TLS,
		Username:    cfg.Etcd.Username,
		Password:    cfg.Etcd.Password,
		Logger:      zap.NewNop(),
		Context:     m.ctx,
	})
	if err != nil {
		return m, fmt.Errorf("cluster: member %s: etcd %v: %w", cfg.Name, cfg.Etcd.Endpoints, err)
	}
	m.view = &view{
		prefix: cfg.Etcd.Prefix, cli: m.etcd, log: m.log, synced: make(chan struct{}),
		members: map[string]memberRecord{}, owners: map[Identity]ownerRecord{}, tools: map[Identity][]byte{}, eras: map[Identity][]byte{},
		onLost: m.memberLost,
	}
	m.lease = newLeaseKeeper(m.etcd, cfg.LeaseTTL)
	m.lease.log = m.log
	m.lease.onJoin = m.register
	m.lease.onFence = m.fenceLease
	// The inbox before the member key exists (the lease's onJoin writes
	// it), and after everything a request touches.
	self, ok := m.sys.ProcessRegistry.Add(inbox{m}, actorName)
	if !ok {
		return m, fmt.Errorf("cluster: member %s: the actor system has a process named %s already", cfg.Name, actorName)
	}
	m.self = self
	m.wg.Add(2)
	go func() {
		defer m.wg.Done()
		m.view.run(m.ctx)
	}()
	go func() {
		defer m.wg.Done()
		m.lease.run(m.ctx)
	}()
	for _, ch := range []chan struct{}{m.view.synced, m.lease.joined} {
		select {
		case <-ch:
		case <-ctx.Done():
			return m, fmt.Errorf("cluster: member %s: joining via etcd %v: %w", cfg.Name, cfg.Etcd.Endpoints, ctx.Err())
		}
	}
	m.log("cluster member started", "address", m.addr)
	return m, nil
}

// register writes the member's key under a new lease.
func (m *Member) register(ctx context.Context, lease clientv3.LeaseID) error {
	b, err := jsonMarshal(memberRecord{Name: m.cfg.Name, Address: m.addr, CallOnly: m.cfg.CallOnly})
	if err != nil {
		return err
	}
	_, err = m.etcd.Put(ctx, m.view.membersPrefix()+m.cfg.Name, string(b), clientv3.WithLease(lease))
	return err
}

// Name is the member's name in the cluster.
func (m *Member) Name() string { return m.cfg.Name }

// Address is the address other members reach this one at.
func (m *Member) Address() string { return m.addr }

// Members returns the names of the members this one sees alive.
func (m *Member) Members() []string { return m.view.memberNames(false) }

// Placement tells where an identity lives now.
type Placement struct {
	Member string
	// Generation is the activation's fencing revision: larger for every
	// new activation of the identity.
	Generation int64
}

// Owner tells which member owns id now, as this member sees it.
func (m *Member) Owner(id Identity) (Placement, bool) {
	rec, ok := m.view.owner(id)
	return Placement{Member: rec.Member, Generation: rec.Generation}, ok
}

// Stop leaves the cluster: calls waiting on other members end with
// ErrStopped, this member's servers are closed and their ownership given
// up (the lease is revoked, so the others take over at once), and
// everything started is released, within ctx.
func (m *Member) Stop(ctx context.Context) error {
	var err error
	m.stop.Do(func() { err = m.shutdown(ctx) })
	return err
}

func (m *Member) shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.stopping = true
	m.cancelStarting()
	acts := make([]*activation, 0, len(m.acts))
	for _, act := range m.acts {
		acts = append(acts, act)
	}
	m.mu.Unlock()
	m.calls.failAll(func(p *pendingCall) error {
		return fmt.Errorf("cluster: %s %s: member %s: %w", p.id, p.method, m.cfg.Name, ErrStopped)
	})
	for _, act := range acts {
		select {
		case <-act.ready:
		case <-ctx.Done():
		}
		if act.err == nil && act.client != nil {
			m.deactivate(act, "member stopping", true)
		}
	}
	if m.lease != nil {
		if id, _ := m.lease.current(); id != 0 {
			m.lease.revoke(id)
		}
	}
	m.cancel()
	done := make(chan struct{})
	go func() {
		m.wg.Wait()
		close(done)
	}()
	var errs []error
	select {
	case <-done:
	case <-ctx.Done():
		errs = append(errs, fmt.Errorf("cluster: member %s: stop: %w", m.cfg.Name, ctx.Err()))
	}
	if m.etcd != nil {
		errs = append(errs, m.etcd.Close())
	}
	if m.sys != nil {
		if m.sub != nil {
			m.sys.EventStream.Unsubscribe(m.sub)
		}
		if m.self != nil {
			m.sys.ProcessRegistry.Remove(m.self)
		}
		m.shutdownRemote(ctx)
		m.sys.Shutdown()
	}
	if m.mgr != nil {
		if err := m.mgr.Close(ctx); err != nil && !errors.Is(err, mcpactor.ErrStopped) {
			errs = append(errs, err)
		}
	}
	if m.rt != nil {
		errs = append(errs, m.rt.Stop(ctx))
	}
	return errors.Join(errs...)
}

// shutdownRemote stops the remote layer, bounded by ctx: its graceful
// stop waits for the peers' streams, which need not end.
func (m *Member) shutdownRemote(ctx context.Context) {
	if m.remote == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		m.remote.Shutdown(true)
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

func (m *Member) log(msg string, args ...any) {
	m.cfg.Logger.Info(msg, append([]any{"member", m.cfg.Name}, args...)...)
}
