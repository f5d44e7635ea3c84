package actors

import (
	"context"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// Ping checks the server is alive (basic/utilities/ping). The stateless
// protocol has no ping: server/discover, its cheapest request, stands in.
func (c *Client) Ping(ctx context.Context) error {
	// A ping takes no in-flight slot: a server with MaxInFlight slow
	// calls out still answers it, and must not look stuck for want of a
	// slot (the manager's keepalive restarts a server that misses three).
	opts := transport.RequestOptions{Unslotted: true}
	method := messages.MethodPing
	if c.stateless(ctx) {
		method = messages.MethodServerDiscover
	}
	return c.callWith(ctx, method, struct{}{}, nil, &opts, nil)
}

// stateless waits for the handshake and reports whether the connection is of
// the stateless protocol; a failed handshake reports false (the call then
// fails with its error).
func (c *Client) stateless(ctx context.Context) bool {
	g, err := c.current(ctx)
	return err == nil && g.sess != nil && g.sess.stateless
}

// Complete asks for completions of an argument (server/utilities/completion).
func (c *Client) Complete(ctx context.Context, p messages.CompleteParams) (*messages.CompleteResult, error) {
	var res messages.CompleteResult
	if err := c.call(ctx, messages.MethodCompletionComplete, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// SetLoggingLevel sets the lowest level of the log messages the server sends
// (server/utilities/logging); they reach Handlers.Notification as
// notifications/message.
//
// In the stateless protocol (2026-07-28) there is no logging/setLevel: the
// level travels with every later request instead, and the messages arrive
// on the stream of the request they belong to.
func (c *Client) SetLoggingLevel(ctx context.Context, level messages.LoggingLevel) error {
	if c.stateless(ctx) {
		c.logLevel.Store(&level)
		return nil
	}
	err := c.call(ctx, messages.MethodLoggingSetLevel, messages.SetLevelParams{Level: level}, nil)
	if err == nil {
		c.root.Send(c.pid, remember{level: level}) // asked again of a new connection
	}
	return err
}

// NotifyRootsChanged tells the server the list of roots has changed
// (client/roots, "Root List Changes").
//
// The stateless protocol has no such notification: it returns an
// ErrUnsupported error there.
func (c *Client) NotifyRootsChanged(ctx context.Context) error {
	g, err := c.current(ctx)
	if err != nil {
		return err
	}
	if g.sess.stateless {
		return callerr.NewUnsupported(&callerr.Error{Server: c.name, Method: messages.NotificationRootsListChanged, Version: g.sess.version})
	}
	return c.masked(notifyTraced(ctx, c.tel, c.peer(), g.conn, messages.NotificationRootsListChanged, nil))
}
