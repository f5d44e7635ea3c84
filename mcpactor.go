package mcpactor

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/sourcegraph/conc"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/actorsys"
	"github.com/mcpactor/mcpactor/telemetry"
)

// Runtime owns the actor system and every client started from it. The
// clients are children of an owner actor, which keeps the set Stop closes;
// the handle itself holds nothing that changes but the once of Stop.
type Runtime struct {
	system    *actor.ActorSystem
	env       actors.Env
	unobserve func()
	ownsHTTP  bool // env.HTTPClient was made by Start, so Stop closes it

	owner    *actor.PID
	clients  sync.Map      // the owner's clients, as it shows them to the gauge (owner.visible)
	stopping chan struct{} // closed when Stop begins
	stopOnce sync.Once
}

// Start creates a runtime. It starts no server and does not block: servers
// are started by Connect, Open and Manage, which take a context. The error
// is for options that cannot work: an Extensions entry that is not one
// (*ConfigError).
func Start(opts Options) (*Runtime, error) {
	system := actorsys.New()
	shrinkRegistry(system)
	rt := &Runtime{system: system, env: actors.Env{Options: opts}, stopping: make(chan struct{})}
	if !opts.Telemetry.Disabled {
		rt.env.Instruments = telemetry.New(opts.Telemetry)
		rt.unobserve = rt.env.Instruments.RegisterMailboxDepth(rt.observeMailboxes)
	}
	if len(opts.Extensions) > 0 {
		ext, err := declaredExtensions(opts.Extensions)
		if err != nil {
			return nil, err
		}
		rt.env.Extensions = ext
	}
	rt.env = rt.env.Shared()
	own := newOwner(rt.env, &rt.clients)
	rt.owner = system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return own },
		actor.WithSupervisor(actors.StopOnPanic())))
	// A client the caller gave us may serve others; one we made is ours to
	// close.
	rt.ownsHTTP = opts.HTTPClient == nil
	return rt, nil
}

// Open starts connecting to the server name and returns at once. Requests
// made on the client wait for the handshake (bounded by the connect
// timeout, not by ctx: the handshake outlives the call). The handshake
// joins ctx's trace. Use Connect to wait for it.
func (rt *Runtime) Open(ctx context.Context, name string, cfg ServerConfig) (*Client, error) {
	return rt.open(ctx, name, cfg)
}

// open starts a client whose handshake belongs to ctx's trace.
func (rt *Runtime) open(ctx context.Context, name string, cfg ServerConfig) (*Client, error) {
	ecfg := cfg.spec()
	if err := ecfg.Validate(name); err != nil {
		return nil, err
	}
	reply := make(chan opened, 1)
	select {
	case <-rt.stopping:
		return nil, &Error{Kind: ErrStopped}
	default:
	}
	rt.system.Root.Send(rt.owner, openClient{ctx: ctx, name: name, cfg: ecfg, reply: reply})
	select {
	case o := <-reply:
		if o.err != nil {
			return nil, o.err
		}
		return &Client{h: o.c}, nil
	case <-rt.stopping:
		// Stop began while we asked: the owner may have answered (then
		// Stop closes that client) or be gone.
		return nil, &Error{Kind: ErrStopped}
	}
}

// Connect starts the server name and waits until its handshake is done. On
// failure everything started for it has been torn down and the error says
// why: an *Error of kind ErrStart, ErrTimeout, ErrUnsupported (a protocol
// version, or the server's end with its exit status and stderr.
func (rt *Runtime) Connect(ctx context.Context, name string, cfg ServerConfig) (*Client, error) {
	c, err := rt.open(ctx, name, cfg)
	if err != nil {
		return nil, err
	}
	if err := c.WaitReady(ctx); err != nil {
		// Torn down completely before returning. If the caller's context
		// has ended, Close skips the grace periods (the process is
		// killed), so Connect does not overrun the caller's deadline.
		closeCtx := ctx
		if ctx.Err() == nil {
			closeCtx = context.WithoutCancel(ctx)
		}
		c.Close(closeCtx)
		return nil, err
	}
	return c, nil
}

// Stop closes every client concurrently (each in order: pending requests
// failed, server asked to exit, then killed) and waits until all are gone,
// or until ctx ends (DefaultCloseTimeout when it has no deadline): then the
// servers left are killed and Stop returns within 100 ms, with an error for
// each client whose teardown had not finished. As with Close, no callback
// runs after Stop returns. Stop is idempotent.
func (rt *Runtime) Stop(ctx context.Context) error {
	var err error // nil when stopped already, or being stopped by another caller
	rt.stopOnce.Do(func() { err = rt.stop(ctx) })
	return err
}

func (rt *Runtime) stop(ctx context.Context) error {
	reply := make(chan owned, 1)
	rt.system.Root.Send(rt.owner, stopAll{reply: reply})
	all := <-reply
	close(rt.stopping)

	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultCloseTimeout)
		defer cancel()
	}
	errs := make([]error, len(all.clients)+len(all.managers))
	var wg conc.WaitGroup
	for i, c := range all.clients {
		wg.Go(func() { errs[i] = c.Close(ctx) })
	}
	for i, m := range all.managers {
		wg.Go(func() { errs[len(all.clients)+i] = m.Close(ctx) })
	}
	wg.Wait()
	if rt.ownsHTTP {
		// Without this the kept-alive connections to HTTP servers (and a
		// reader and writer goroutine each) outlive the runtime until the
		// server or the idle timeout closes them.
		rt.env.HTTPClient.CloseIdleConnections()
	}
	rt.system.Shutdown()
	if rt.env.Instruments != nil {
		rt.unobserve()
		rt.env.Instruments.Close()
	}
	return errors.Join(errs...)
}

// registryBuckets is how many concurrent maps hold the actor system's
// processes once shrinkRegistry has run. protoactor makes 1024, each of
// 32 shards with a lock and a map of its own: 2.8 MB of heap, the largest
// part of an idle runtime's, sized for a cluster node's millions of
// actors. A runtime has a handful of actors per server, and the registry
// is read only when an actor is spawned or stopped and at a PID's first
// use (a PID caches its process), so 4 maps, 128 shards, keep contention
// negligible at 1/256 of the memory. protoactor has allocated its 1024
// by then (nothing lets us size them), so the pages stay with the
// process until the heap reuses them; what shrinks is the live heap: the
// collector's work and the floor a runtime returns to. In a program whose
// heap sits at Go's 4 MB minimum goal, a smaller live heap also means
// more frequent collections: the 1024 maps had been ballast that spaced
// them out (docs/benchmarks.md, the 64 KiB row). Above that floor, where
// a backend's heap is, they are only work.
const registryBuckets = 4

// shrinkRegistry replaces the new system's process registry with one of
// registryBuckets maps (the first of protoactor's, emptied), carrying
// over what protoactor registered while making the system: its
// dead-letter and event-stream processes. It must run before anything
// else uses the system; nothing else can reach the registry yet, so the
// swap needs no lock. protoactor picks a bucket as a hash modulo the
// number of buckets, so any number works; the other maps are garbage once
// replaced.
func shrinkRegistry(system *actor.ActorSystem) {
	old := system.ProcessRegistry.LocalPIDs.LocalPIDs
	if len(old) <= registryBuckets {
		return
	}
	registered := map[string]any{}
	for _, bucket := range old {
		if bucket.Count() > 0 {
			maps.Copy(registered, bucket.Items())
		}
	}
	// A copy, not a reslice: the old backing array would keep every map
	// alive.
	small := &actor.SliceMap{LocalPIDs: slices.Clone(old[:registryBuckets])}
	for _, bucket := range small.LocalPIDs {
		for id := range registered {
			bucket.Remove(id)
		}
	}
	for id, p := range registered {
		small.GetBucket(id).Set(id, p)
	}
	system.ProcessRegistry.LocalPIDs = small
}

// observeMailboxes reports, for the mailbox-depth gauge, how many frames
// each server's transport has read and not yet handled, under the name
// the server has on every other span and metric point
// (ServerConfig.TelemetryName, else its name).
func (rt *Runtime) observeMailboxes(observe func(server string, depth int64)) {
	rt.clients.Range(func(c, name any) bool {
		observe(name.(string), int64(c.(*actors.Client).MailboxDepth()))
		return true
	})
}
