package actors

import (
	"context"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// Ping checks the server is alive (basic/utilities/ping).
func (c *Client) Ping(ctx context.Context) error {
	return c.call(ctx, messages.MethodPing, struct{}{}, nil, transport.RequestOptions{})
}

// Complete asks for completions of an argument (server/utilities/completion).
func (c *Client) Complete(ctx context.Context, p messages.CompleteParams) (*messages.CompleteResult, error) {
	var res messages.CompleteResult
	if err := c.call(ctx, messages.MethodCompletionComplete, p, &res, transport.RequestOptions{}); err != nil {
		return nil, err
	}
	return &res, nil
}

// SetLoggingLevel sets the lowest level of the log messages the server sends
// (server/utilities/logging); they reach Handlers.Notification as
// notifications/message.
func (c *Client) SetLoggingLevel(ctx context.Context, level messages.LoggingLevel) error {
	err := c.call(ctx, messages.MethodLoggingSetLevel, messages.SetLevelParams{Level: level}, nil, transport.RequestOptions{})
	if err == nil {
		c.root.Send(c.pid, remember{level: level}) // asked again of a new connection
	}
	return err
}

// NotifyRootsChanged tells the server the list of roots has changed
// (client/roots, "Root List Changes").
func (c *Client) NotifyRootsChanged(ctx context.Context) error {
	g, err := c.current(ctx)
	if err != nil {
		return err
	}
	return notifyTraced(ctx, c.tel, c.peer(), g.conn, messages.NotificationRootsListChanged, nil)
}
