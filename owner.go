package mcpactor

import (
	"context"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/messages"
)

// owner is the actor a runtime's own clients (Open, Connect) are children
// of, and the keeper of the set Stop closes: the set is its state, so the
// runtime handle holds no mutable state of its own. A client's connection
// outcomes reach it (it is their supervisor) and are left alone: restarting
// is the manager's business (Runtime.Manage), not a plain client's.
type owner struct {
	env      actors.Env
	clients  map[*actors.Client]struct{}
	managers []*Manager
	stopped  bool
	// published is the set as an immutable slice, for the mailbox-depth
	// gauge, which must not wait on the actor.
	published *atomic.Pointer[[]*actors.Client]
}

// The owner's messages: one per intent.
type (
	// openClient spawns a client, unless the runtime is stopping.
	openClient struct {
		ctx   context.Context // the trace the handshake belongs to
		name  string
		cfg   actors.ServerConfig
		reply chan *actors.Client // nil after Stop
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

type owned struct {
	clients  []*actors.Client
	managers []*Manager
}

func (o *owner) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case openClient:
		if o.stopped {
			m.reply <- nil
			return
		}
		self, root := ctx.Self(), ctx.ActorSystem().Root
		h := actors.SpawnSupervised(m.ctx, ctx, m.name, m.cfg, o.env, func(c *actors.Client) {
			root.Send(self, clientClosed{c})
		})
		o.clients[h] = struct{}{}
		o.publish()
		m.reply <- h
	case adoptManager:
		if !o.stopped {
			o.managers = append(o.managers, m.m)
		}
		m.reply <- !o.stopped
	case clientClosed:
		delete(o.clients, m.c)
		o.publish()
	case stopAll:
		o.stopped = true
		out := owned{managers: o.managers}
		for c := range o.clients {
			out.clients = append(out.clients, c)
		}
		m.reply <- out
	case messages.ServerReady, messages.ServerDown:
		// A plain client reports to its user through its own errors and
		// Generation; nothing to decide here.
	}
}

func (o *owner) publish() {
	list := make([]*actors.Client, 0, len(o.clients))
	for c := range o.clients {
		list = append(list, c)
	}
	o.published.Store(&list)
}
