package actors

import (
	"context"
	"maps"
	"slices"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// A new connection generation is a new session on the server, which knows
// nothing of what the client asked of the old one. What a caller set and
// expects to stay set (the log level, the resource subscriptions) is
// remembered by the client actor and asked again on each new connection
// before it is published, so that a repair (an expired HTTP session, a
// restart) is invisible to the caller.

// remember tells the client actor of a request whose effect lasts: sent by
// the Client after the server accepted it.
type remember struct {
	level       messages.LoggingLevel // "" unless SetLoggingLevel
	subscribe   string                // a URI subscribed to
	unsubscribe string                // a URI unsubscribed from
}

// wanted is the client actor's record of what to ask again.
type wanted struct {
	level messages.LoggingLevel
	subs  map[string]bool
}

func (w *wanted) note(m remember) {
	switch {
	case m.level != "":
		w.level = m.level
	case m.subscribe != "":
		if w.subs == nil {
			w.subs = make(map[string]bool)
		}
		w.subs[m.subscribe] = true
	case m.unsubscribe != "":
		delete(w.subs, m.unsubscribe)
	}
}

// snapshot copies the record for a handshake goroutine.
func (w *wanted) snapshot() restoration {
	return restoration{level: w.level, subs: slices.Sorted(maps.Keys(w.subs))}
}

// restoration is what one new connection asks again.
type restoration struct {
	level messages.LoggingLevel
	subs  []string
}

// apply asks the server of a new connection for what the old one had. A
// refusal is logged, not fatal: the connection is as good as the server
// lets it be.
func (r restoration) apply(ctx context.Context, conn *transport.Conn, sess *session, env Env, server string) {
	if r.level != "" {
		if err := exchangeConn(ctx, nil, conn, messages.MethodLoggingSetLevel, messages.SetLevelParams{Level: r.level}, nil, &transport.RequestOptions{}); err != nil {
			env.Logger.Warn("mcp: could not restore the log level on the new connection", "server", server, "err", err)
		}
	}
	for _, uri := range r.subs {
		if err := exchangeConn(ctx, nil, conn, messages.MethodResourcesSubscribe, messages.SubscribeParams{URI: uri}, nil, &transport.RequestOptions{}); err != nil {
			env.Logger.Warn("mcp: could not restore a subscription on the new connection", "server", server, "uri", uri, "err", err)
		}
	}
}
