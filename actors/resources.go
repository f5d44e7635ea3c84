package actors

import (
	"context"
	"iter"

	"github.com/mcpactor/mcpactor/messages"
)

// Resources yields every resource the server lists (server/resources,
// "Listing Resources"); a failure is yielded last.
func (c *Client) Resources(ctx context.Context) iter.Seq2[messages.Resource, error] {
	return pages(c.name, messages.MethodResourcesList, func(ctx context.Context, cursor string) (page[messages.Resource], error) {
		var res messages.ListResourcesResult
		err := c.call(ctx, messages.MethodResourcesList, messages.ListResourcesParams{Cursor: cursor}, &res)
		return page[messages.Resource]{items: res.Resources, next: res.NextCursor}, err
	})(ctx)
}

// ListResources returns all the server's resources, every page read.
func (c *Client) ListResources(ctx context.Context) ([]messages.Resource, error) {
	return collect(c.Resources(ctx))
}

// ResourceTemplates yields every resource template (server/resources,
// "Resource Templates").
func (c *Client) ResourceTemplates(ctx context.Context) iter.Seq2[messages.ResourceTemplate, error] {
	return pages(c.name, messages.MethodResourcesTemplatesList, func(ctx context.Context, cursor string) (page[messages.ResourceTemplate], error) {
		var res messages.ListResourceTemplatesResult
		err := c.call(ctx, messages.MethodResourcesTemplatesList, messages.ListResourceTemplatesParams{Cursor: cursor}, &res)
		return page[messages.ResourceTemplate]{items: res.ResourceTemplates, next: res.NextCursor}, err
	})(ctx)
}

// ListResourceTemplates returns all resource templates, every page read.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]messages.ResourceTemplate, error) {
	return collect(c.ResourceTemplates(ctx))
}

// ReadResource reads the resource at uri (server/resources, "Reading Resources").
func (c *Client) ReadResource(ctx context.Context, uri string) (*messages.ReadResourceResult, error) {
	var res messages.ReadResourceResult
	if err := c.call(ctx, messages.MethodResourcesRead, messages.ReadResourceParams{URI: uri}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Subscribe asks for notifications/resources/updated about uri; they reach
// Handlers.Notification (server/resources, "Subscriptions").
//
// In the stateless era (2026-07-28) there is no resources/subscribe: the
// URI joins the resource subscriptions of the client's
// subscriptions/listen stream, which the client keeps open (and opens
// again on each new connection).
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	if c.modern(ctx) {
		c.root.Send(c.pid, remember{subscribe: uri})
		return nil
	}
	err := c.call(ctx, messages.MethodResourcesSubscribe, messages.SubscribeParams{URI: uri}, nil)
	if err == nil {
		c.root.Send(c.pid, remember{subscribe: uri}) // asked again of a new connection
	}
	return err
}

// Unsubscribe cancels a Subscribe.
func (c *Client) Unsubscribe(ctx context.Context, uri string) error {
	if c.modern(ctx) {
		c.root.Send(c.pid, remember{unsubscribe: uri})
		return nil
	}
	err := c.call(ctx, messages.MethodResourcesUnsubscribe, messages.UnsubscribeParams{URI: uri}, nil)
	if err == nil {
		c.root.Send(c.pid, remember{unsubscribe: uri})
	}
	return err
}
