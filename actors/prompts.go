package actors

import (
	"context"
	"iter"

	"github.com/mcpactor/mcpactor/messages"
)

// Prompts yields every prompt the server offers (server/prompts, "Listing
// Prompts"); a failure is yielded last.
func (c *Client) Prompts(ctx context.Context) iter.Seq2[messages.Prompt, error] {
	return c.prompts(ctx, nil)
}

// prompts is Prompts, gathering the pages' caching hints into hints when
// it is not nil.
func (c *Client) prompts(ctx context.Context, hints *CacheHints) iter.Seq2[messages.Prompt, error] {
	return pages(c.name, messages.MethodPromptsList, func(ctx context.Context, cursor string) (page[messages.Prompt], error) {
		var res messages.ListPromptsResult
		err := c.call(ctx, messages.MethodPromptsList, messages.ListPromptsParams{Cursor: cursor}, &res)
		if err == nil {
			hints.add(res.TTLMs, res.CacheScope)
		}
		return page[messages.Prompt]{items: res.Prompts, next: res.NextCursor}, err
	})(ctx)
}

// ListPrompts returns all the server's prompts, every page read, or as
// last read while the server lets the list be cached.
func (c *Client) ListPrompts(ctx context.Context) ([]messages.Prompt, error) {
	return cachedList(ctx, c, messages.MethodPromptsList, c.prompts)
}

// GetPrompt renders the prompt name with args (server/prompts, "Getting a Prompt").
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*messages.GetPromptResult, error) {
	var res messages.GetPromptResult
	if err := c.call(ctx, messages.MethodPromptsGet, messages.GetPromptParams{Name: name, Arguments: args}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
