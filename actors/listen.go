package actors

import (
	"context"
	"encoding/json"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// In the stateless protocol a server's change notifications (list_changed,
// resources/updated) flow only on a subscriptions/listen stream the client
// opens
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions).
// The client actor keeps one open on a stateless connection whenever
// someone wants them (a Handlers.Notification, or resource subscriptions),
// opens it again when what is wanted changes, after the server ends it,
// and on every new connection. Its notifications reach the notification
// queue like any other.

// listening is the client actor's listen stream.
type listening struct {
	gen     uint64
	cancel  context.CancelFunc
	filter  messages.SubscriptionFilter
	retries int
}

// listenEnded: the listen request of generation gen returned.
type listenEnded struct {
	gen uint64
	err error
	// stopped is true when the actor itself ended it (to reopen it with
	// another filter, or on close).
	stopped bool
}

// reopenListen is the timer's reminder to open the stream again.
type reopenListen struct{ gen uint64 }

// serverStream says whether a session-protocol connection opens the
// stream for the server's own messages: over Streamable HTTP, the GET
// listener (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server),
// which the client MAY open. It costs a connection and three goroutines
// for the session's life, on each side, so as on a stateless connection
// it is opened only when something here acts on what it carries:
//   - a handler for a server's requests (roots, sampling, elicitation): a
//     server may send those at any time, and some send them only there;
//   - a notification handler (a Manager's servers always have one), or
//     CacheReads (resources/updated and list_changed expire what it
//     keeps), provided the server declared a notification it may send
//     unasked (server/utilities/logging, the listChanged and subscribe
//     capabilities, tasks, an extension).
//
// Without it a session works the same; what the server would send only
// there, nobody here would read (docs/architecture.md, "The GET
// listener"). It is worked out in the actor and read by the handshake's
// goroutine.
type serverStream struct {
	answers bool // the client answers some server request
	reads   bool // something reads the server's notifications
}

func (a *clientActor) serverStream() serverStream {
	h := &a.env.Handlers
	return serverStream{answers: h.Roots != nil || h.Sampling != nil || h.Elicitation != nil,
		reads: h.notified() || a.h.cfg.CacheReads}
}

// opens reports whether a session with a server of these capabilities
// opens the stream.
func (w serverStream) opens(caps messages.ServerCapabilities) bool {
	return w.answers || w.reads && speaksUnasked(caps)
}

// speaksUnasked reports whether capabilities declare a notification that
// is not the answer to a request of the client's.
func speaksUnasked(c messages.ServerCapabilities) bool {
	return c.Logging != nil ||
		c.Tools != nil && c.Tools.ListChanged ||
		c.Prompts != nil && c.Prompts.ListChanged ||
		c.Resources != nil && (c.Resources.ListChanged || c.Resources.Subscribe) ||
		len(c.Tasks) > 0 || len(c.Experimental) > 0 || len(c.Extensions) > 0
}

// wantListen reports whether a stateless connection should listen.
func (a *clientActor) wantListen() bool {
	return a.env.Handlers.notified() || len(a.wanted.subs) > 0
}

// syncListen makes the listen stream match what is wanted on the current
// generation: opened, reopened with a new filter, or closed.
func (a *clientActor) syncListen(ctx actor.Context) {
	s := a.sess
	if s == nil || !s.stateless || a.state != stateReady || a.closing {
		a.stopListen()
		return
	}
	filter := a.listenFilter()
	if l := a.listen; l != nil && l.gen == a.gen.n && sameFilter(l.filter, filter) {
		return
	}
	a.stopListen()
	if !a.wantListen() {
		return
	}
	conn := a.conns[a.gen.n]
	if conn == nil {
		return
	}
	lctx, cancel := context.WithCancel(context.Background())
	a.listen = &listening{gen: a.gen.n, cancel: cancel, filter: filter}
	raw, _ := json.Marshal(messages.SubscriptionsListenParams{Notifications: filter})
	params, _ := jsonrpc.WithMeta(raw, a.h.metaMembers(s))
	opts := transport.RequestOptions{Timeout: -1, Header: statelessHeaders(conn, s.version, messages.MethodSubscriptionsListen, "")}
	if conn.HTTP() {
		opts.NoCancel = true // closing the stream ends the subscription
	}
	root, self, gen := ctx.ActorSystem().Root, ctx.Self(), a.gen.n
	a.env.Logger.Debug("mcp: listening for change notifications", "server", a.h.name, "generation", gen, "subscriptions", len(filter.ResourceSubscriptions))
	go func() {
		_, err := conn.Call(lctx, messages.MethodSubscriptionsListen, params, opts)
		root.Send(self, listenEnded{gen: gen, err: err, stopped: lctx.Err() != nil})
	}()
}

// listenFilter is what the client wants to hear of.
func (a *clientActor) listenFilter() messages.SubscriptionFilter {
	f := messages.SubscriptionFilter{}
	if a.env.Handlers.notified() {
		f.ToolsListChanged, f.PromptsListChanged, f.ResourcesListChanged = true, true, true
	}
	f.ResourceSubscriptions = a.wanted.snapshot().subs
	return f
}

func sameFilter(a, b messages.SubscriptionFilter) bool {
	if a.ToolsListChanged != b.ToolsListChanged || a.PromptsListChanged != b.PromptsListChanged ||
		a.ResourcesListChanged != b.ResourcesListChanged || len(a.ResourceSubscriptions) != len(b.ResourceSubscriptions) {
		return false
	}
	for i := range a.ResourceSubscriptions {
		if a.ResourceSubscriptions[i] != b.ResourceSubscriptions[i] {
			return false
		}
	}
	return true
}

func (a *clientActor) stopListen() {
	if a.listen != nil {
		a.listen.cancel()
		a.listen = nil
	}
}

// listenEnded reopens a stream the server (or a fault) ended, after a
// backoff, while the connection it belongs to is still current.
func (a *clientActor) listenEnded(ctx actor.Context, m listenEnded) {
	if m.stopped || a.listen == nil || a.listen.gen != m.gen || m.gen != a.gen.n || a.closing {
		return
	}
	a.listen.retries++
	delay := backoffDelay(a.listen.retries)
	a.env.Logger.Debug("mcp: listen stream ended; reopening", "server", a.h.name, "err", m.err, "in", delay)
	a.listen.cancel()
	a.listen = nil
	root, self, gen := ctx.ActorSystem().Root, ctx.Self(), m.gen
	time.AfterFunc(delay, func() { root.Send(self, reopenListen{gen: gen}) })
}

// backoffDelay is 1 s doubled per attempt up to 30 s.
func backoffDelay(attempt int) time.Duration {
	d := time.Second
	for i := 1; i < attempt && d < 30*time.Second; i++ {
		d *= 2
	}
	return min(d, 30*time.Second)
}
