package supervisor

import (
	"context"
	"errors"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
)

// remove stops a server, whatever it is doing: its client is closed (the
// process reaped) off the actor, its tools go at once, and the member is
// forgotten when the close is over.
func (a *managerActor) remove(name string) error {
	mb := a.members[name]
	if mb == nil {
		return callerr.NewUnknownServer(&callerr.Error{Server: name})
	}
	if mb.removing {
		return nil
	}
	mb.removing = true
	a.changed(mb) // removing, and its lists below
	mb.seq++
	// Its handshake slot, if it holds one, is free now: the outcome of
	// that handshake (ready, down, resolved) is ignored for a removed
	// member, so nothing else would free it, and MaxConnecting such
	// removals would stop every later start.
	a.slotFreed(mb)
	mb.stopTimers()
	if mb.resolving != nil {
		mb.resolving()
		mb.resolving = nil
	}
	if mb.approval != nil {
		mb.approval.withdrawn.Store(true)
		mb.approval = nil
	}
	hadTools := len(mb.tools) > 0
	mb.tools, mb.prompts, mb.resources = nil, nil, nil
	c, root, self := mb.client, a.root, a.self
	a.publish()
	if hadTools && !a.closing {
		// Tools gone are news, but not at Close: the whole manager is
		// going, and an event per server would only be noise.
		a.emit(Event{Kind: EventToolsChanged, Server: name, State: mb.state})
	}
	if c == nil {
		delete(a.members, name)
		a.publish()
		return nil
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), actors.DefaultCloseTimeout)
		defer cancel()
		c.Close(ctx)
		<-c.Done()
		root.Send(self, removed{name: name})
	}()
	return nil
}

// reload makes the members those of servers, by name and configuration
// hash: unchanged servers are left alone.
func (a *managerActor) reload(ctx actor.Context, trace context.Context, servers []*Server) error {
	want := make(map[string]*Server, len(servers))
	for _, s := range servers {
		want[s.Name] = s
	}
	previous := map[string][]messages.Tool{} // of the servers a reload restarts
	for name, mb := range a.members {
		if mb.removing {
			continue
		}
		if s, ok := want[name]; !ok || s.Hash != mb.srv.Hash || s.Enabled != mb.srv.Enabled {
			if ok {
				previous[name] = mb.tools
			}
			a.remove(name)
		}
	}
	var errs []error
	for _, s := range servers {
		if mb := a.members[s.Name]; mb != nil && !mb.removing {
			continue // unchanged
		}
		if mb := a.members[s.Name]; mb != nil && mb.removing {
			// Its old self is still closing: start the new one under the
			// same name once that is done would need a queue; instead the
			// new member replaces the old entry now, and the old close
			// finishes on its own (its removed message finds the new
			// member not removing and is ignored).
			delete(a.members, s.Name)
		}
		if err := a.add(ctx, trace, s); err != nil {
			errs = append(errs, err)
			continue
		}
		a.offerPrevious(s.Name, previous[s.Name])
	}
	return errors.Join(errs...)
}

// offerPrevious offers the tools a server had before a new configuration
// restarted it, as the cache's are offered, until the new server lists its
// own: a call to one of them waits for the server instead of failing as if
// the server had been removed (found by the soak, docs/reliability.md).
// A server that needs approval offers nothing before it is approved, and
// a cached list, when there is one, replaces these.
func (a *managerActor) offerPrevious(name string, tools []messages.Tool) {
	mb := a.members[name]
	if len(tools) == 0 || mb == nil || mb.state != StateConnecting || mb.srv.NeedsApproval || len(mb.tools) > 0 {
		return
	}
	mb.tools, mb.cached = filterTools(tools, mb.srv), true
	a.changed(mb)
	a.publish()
}

// close stops every server concurrently, then the actor.
func (a *managerActor) close(ctx actor.Context, m closeManager) {
	if a.closing {
		m.reply <- nil
		return
	}
	a.closing = true
	a.batch(func() {
		for name := range a.members {
			a.remove(name)
		}
	})
	for _, g := range a.gate {
		close(g)
	}
	a.gate = nil
	m.reply <- nil
	a.finishClose(ctx)
}

// finishClose stops the actor once closing and every member is gone (and
// its client actors with them).
func (a *managerActor) finishClose(ctx actor.Context) {
	if a.closing && len(a.members) == 0 && len(ctx.Children()) == 0 {
		ctx.Stop(ctx.Self())
	}
}

// startKeepalive pings a ready server every Keepalive interval, if set:
// each ping is scheduled when the previous one is over, so a slow server
// never has two in flight.
func (a *managerActor) startKeepalive(mb *member) {
	if mb.srv.Keepalive <= 0 || mb.keepalive != nil {
		return
	}
	mb.keepalive = a.after(mb.srv.Keepalive, keepaliveTick{name: mb.srv.Name})
}

func (mb *member) stopKeepalive() {
	if mb.keepalive != nil {
		mb.keepalive.Stop()
		mb.keepalive = nil
	}
}

// ping sends one keepalive ping, off the actor.
func (a *managerActor) ping(name string) {
	mb := a.members[name]
	if mb == nil || mb.state != StateReady || mb.pinging {
		return
	}
	mb.pinging = true
	c, seq, root, self, timeout := mb.client, mb.seq, a.root, a.self, mb.srv.Keepalive
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		ctx, task := c.StartTask(ctx, telemetry.TaskKeepalive, "")
		err := c.Ping(ctx)
		task.End(err, false)
		root.Send(self, pingDone{name: name, seq: seq, err: err})
	}()
}

// pinged counts keepalive misses; keepaliveFailures in a row mark a
// live-looking server stuck, and it is restarted. A miss is a ping left
// without an answer (or one the connection could not carry): any answer,
// an error included, says the server is alive. A server need not
// implement ping beyond answering it, and one that answers -32601 (method
// not found) is as alive as one that answers {}
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping).
func (a *managerActor) pinged(m pingDone) {
	mb := a.members[m.name]
	if mb == nil {
		return
	}
	mb.pinging = false
	if mb.seq != m.seq || mb.state != StateReady {
		return
	}
	mb.keepalive = nil
	if m.err == nil || answered(m.err) {
		mb.misses = 0
		a.startKeepalive(mb)
		return
	}
	mb.misses++
	if mb.misses < keepaliveFailures {
		a.startKeepalive(mb)
		return
	}
	err := fmt.Errorf("keepalive: %d pings in a row failed; the last: %w", mb.misses, m.err)
	a.log.Warn("mcp: server stopped answering pings; restarting it", "server", m.name, "err", err)
	mb.misses = 0
	// Unhealthy is announced, then the restart policy takes over as for
	// a connection that ended: backoff, the breaker, the restart count.
	// The restart itself retires the stuck connection.
	a.setState(mb, StateUnhealthy, err)
	a.failed(mb, err, "unhealthy")
}

// watchNotifications lets the manager hear of tools/list_changed, on top
// of whatever the user's notification handler does with it (either form:
// with the notification's context or without).
func (a *managerActor) watchNotifications() {
	h := &a.opts.Env.Handlers
	user, userCtx := h.Notification, h.NotificationContext
	root, self := a.root, a.self
	watch := func(server string, n actors.Notification) {
		switch n.Method {
		case messages.NotificationToolsListChanged:
			root.Send(self, toolsChanged{name: server})
		case messages.NotificationPromptsListChanged:
			root.Send(self, catalogChanged{name: server, kind: catalogPrompts})
		case messages.NotificationResourcesListChanged:
			root.Send(self, catalogChanged{name: server, kind: catalogResources})
		}
	}
	if userCtx != nil {
		h.NotificationContext = func(ctx context.Context, server string, n actors.Notification) {
			watch(server, n)
			userCtx(ctx, server, n)
		}
		return
	}
	h.Notification = func(server string, n actors.Notification) {
		watch(server, n)
		if user != nil {
			user(server, n)
		}
	}
}
