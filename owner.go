package mcpactor

import (
	"cmp"
	"context"
	"fmt"
	"sync"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/actors"
)

// owner is the actor a runtime's own clients (Open, Connect) are children
// of, and the keeper of the set Stop closes: the set is its state, so the
// runtime handle holds no mutable state of its own. A client's connection
// outcomes reach it (it is their supervisor) and are left alone: restarting
// is the manager's business (Runtime.Manage), not a plain client's.
type owner struct {
	env actors.Env
	// clients are the live clients, each with its server's name in
	// telemetry (ServerConfig.TelemetryName, else its name), and names
	// their servers' names, for nameTaken.
	clients  map[*actors.Client]string
	names    map[string]struct{}
	managers []*Manager
	stopped  bool
	// visible mirrors clients for the mailbox-depth gauge, which must
	// not wait on the actor: only the actor writes it. It replaces a
	// slice copied whole at each change, which made a backend's bring-up
	// of n sessions cost n² (docs/benchmarks.md, section 10).
	visible *sync.Map // *actors.Client → telemetry name
}

func newOwner(env actors.Env, visible *sync.Map) *owner {
	return &owner{env: env, clients: map[*actors.Client]string{}, names: map[string]struct{}{}, visible: visible}
}

// The owner's messages: one per intent.
type (
	// openClient spawns a client, unless the runtime is stopping.
	openClient struct {
		ctx   context.Context // the trace the handshake belongs to
		name  string
		cfg   actors.Spec
		reply chan opened
	}
	// adoptManager records a manager for Stop, unless the runtime is
	// stopping (then reply gets false and the caller closes it).
	adoptManager struct {
		m     *Manager
		reply chan bool
	}
	// clientClosed drops a client that has closed.
	clientClosed struct{ c *actors.Client }
	// stopAll refuses further clients and managers and hands over those
	// there are, for Stop to close.
	stopAll struct{ reply chan owned }
)

// opened is the answer to openClient: the client, or why there is none
// (ErrStopped, a name already in use).
type opened struct {
	c   *actors.Client
	err error
}

type owned struct {
	clients  []*actors.Client
	managers []*Manager
}

func (o *owner) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case openClient:
		if o.stopped {
			m.reply <- opened{err: &Error{Kind: ErrStopped}}
			return
		}
		if err := o.nameTaken(m.name); err != nil {
			m.reply <- opened{err: err}
			return
		}
		self, root := ctx.Self(), ctx.ActorSystem().Root
		h := actors.SpawnSupervised(m.ctx, ctx, m.name, m.cfg, o.env, func(c *actors.Client) {
			root.Send(self, clientClosed{c})
		})
		tname := cmp.Or(m.cfg.TelemetryName, m.name)
		o.clients[h] = tname
		o.names[m.name] = struct{}{}
		o.visible.Store(h, tname)
		m.reply <- opened{c: h}
	case adoptManager:
		if !o.stopped {
			o.managers = append(o.managers, m.m)
		}
		m.reply <- !o.stopped
	case clientClosed:
		if _, ok := o.clients[m.c]; ok {
			delete(o.clients, m.c)
			delete(o.names, m.c.Name())
			o.visible.Delete(m.c)
		}
	case stopAll:
		o.stopped = true
		out := owned{managers: o.managers}
		for c := range o.clients {
			out.clients = append(out.clients, c)
		}
		m.reply <- out
	case actors.ServerReady, actors.ServerDown:
		// A plain client reports to its user through its own errors and
		// Generation; nothing to decide here.
	}
}

// nameTaken refuses a name that a live client of the runtime already has:
// a server's name identifies it in errors, logs and telemetry
// (mcpactor.server.name), and two of one name could not be told apart.
// A managed server's name counts too.
func (o *owner) nameTaken(name string) error {
	_, taken := o.names[name]
	for _, m := range o.managers {
		// Every managed server counts, whatever its state (connecting,
		// awaiting approval, failed), not only those with a client.
		taken = taken || m.m.Has(name)
	}
	if !taken {
		return nil
	}
	return &ConfigError{Server: name, Problems: []string{
		fmt.Sprintf("Server %q: a server of this name is already connected in this runtime (names must be unique)", name)}}
}
