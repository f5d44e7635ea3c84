package actors

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/mcpactor/mcpactor/messages"
)

// Resources yields every resource the server lists (server/resources,
// "Listing Resources"); a failure is yielded last.
func (c *Client) Resources(ctx context.Context) iter.Seq2[messages.Resource, error] {
	return c.resources(ctx, nil)
}

// resources is Resources, gathering the pages' caching hints into hints
// when it is not nil.
func (c *Client) resources(ctx context.Context, hints *CacheHints) iter.Seq2[messages.Resource, error] {
	return pages(c.name, messages.MethodResourcesList, func(ctx context.Context, cursor string) (page[messages.Resource], error) {
		var res messages.ListResourcesResult
		err := c.call(ctx, messages.MethodResourcesList, messages.ListResourcesParams{Cursor: cursor}, &res)
		if err == nil {
			hints.add(res.TTLMs, res.CacheScope)
		}
		return page[messages.Resource]{items: res.Resources, next: res.NextCursor}, err
	})(ctx)
}

// ListResources returns all the server's resources, every page read, or
// as last read while the server lets the list be cached.
func (c *Client) ListResources(ctx context.Context) ([]messages.Resource, error) {
	return cachedList(ctx, c, messages.MethodResourcesList, c.resources)
}

// ResourceTemplates yields every resource template (server/resources,
// "Resource Templates").
func (c *Client) ResourceTemplates(ctx context.Context) iter.Seq2[messages.ResourceTemplate, error] {
	return c.resourceTemplates(ctx, nil)
}

// resourceTemplates is ResourceTemplates, gathering the pages' caching
// hints into hints when it is not nil.
func (c *Client) resourceTemplates(ctx context.Context, hints *CacheHints) iter.Seq2[messages.ResourceTemplate, error] {
	return pages(c.name, messages.MethodResourcesTemplatesList, func(ctx context.Context, cursor string) (page[messages.ResourceTemplate], error) {
		var res messages.ListResourceTemplatesResult
		err := c.call(ctx, messages.MethodResourcesTemplatesList, messages.ListResourceTemplatesParams{Cursor: cursor}, &res)
		if err == nil {
			hints.add(res.TTLMs, res.CacheScope)
		}
		return page[messages.ResourceTemplate]{items: res.ResourceTemplates, next: res.NextCursor}, err
	})(ctx)
}

// ListResourceTemplates returns all resource templates, every page read.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]messages.ResourceTemplate, error) {
	return cachedList(ctx, c, messages.MethodResourcesTemplatesList, c.resourceTemplates)
}

// ReadResource reads the resource at uri (server/resources, "Reading
// Resources"). With Spec.CacheReads, a result the server lets be cached
// (ttlMs) is served again while fresh, unless the server said it changed
// (result_cache.go); the caller gets a copy of the result, not of the
// contents' bytes, which it must not change.
func (c *Client) ReadResource(ctx context.Context, uri string) (*messages.ReadResourceResult, error) {
	s := c.gen.Load().established()
	if c.cfg.CacheReads && s != nil {
		if v, ok := s.cache.read(uri); ok {
			res := *v.(*messages.ReadResourceResult)
			return &res, nil
		}
	}
	var epoch uint64
	if s != nil {
		epoch = s.cache.epoch()
	}
	var ans readAnswer
	if err := c.call(ctx, messages.MethodResourcesRead, messages.ReadResourceParams{URI: uri}, &ans); err != nil {
		return nil, err
	}
	res := &ans.res
	if d := freshFor(CacheHints{TTLMs: res.TTLMs}); c.cfg.CacheReads && d > 0 && !ans.retried && s != nil && s == c.gen.Load().established() {
		kept := *res
		s.cache.putRead(uri, &kept, d, epoch)
	}
	return res, nil
}

// readAnswer is a resources/read result, marked when it came from a
// request retried with the input the server asked for: such a result
// depends on that input and must not be cached
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching#cache-key).
type readAnswer struct {
	res     messages.ReadResourceResult
	retried bool
}

func (a *readAnswer) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &a.res) }

func (a *readAnswer) markRetried() { a.retried = true }

// Subscribe asks for notifications/resources/updated about uri; they reach
// Handlers.Notification (server/resources, "Subscriptions").
//
// In the stateless protocol (2026-07-28) there is no resources/subscribe: the
// URI joins the resource subscriptions of the client's
// subscriptions/listen stream, which the client keeps open (and opens
// again on each new connection).
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	if c.stateless(ctx) {
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
	if c.stateless(ctx) {
		c.root.Send(c.pid, remember{unsubscribe: uri})
		return nil
	}
	err := c.call(ctx, messages.MethodResourcesUnsubscribe, messages.UnsubscribeParams{URI: uri}, nil)
	if err == nil {
		c.root.Send(c.pid, remember{unsubscribe: uri})
	}
	return err
}
