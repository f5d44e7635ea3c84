package actors

import (
	"context"
	"iter"

	"github.com/mcpactor/mcpactor/messages"
)

// Prompts yields every prompt the server offers (server/prompts, "Listing
// Prompts"); a failure is yielded last.
func (c *Client) Prompts(ctx context.Context) iter.Seq2[messages.Prompt, error] {
	return pages(c.name, messages.MethodPromptsList, func(ctx context.Context, cursor string) (page[messages.Prompt], error) {
		var res messages.ListPromptsResult
		err := c.call(ctx, messages.MethodPromptsList, messages.ListPromptsParams{Cursor: cursor}, &res)
		return page[messages.Prompt]{items: res.Prompts, next: res.NextCursor}, err
	})(ctx)
}

// ListPrompts returns all the server's prompts, every page read.
func (c *Client) ListPrompts(ctx context.Context) ([]messages.Prompt, error) {
	return collect(c.Prompts(ctx))
}

// GetPrompt renders the prompt name with args (server/prompts, "Getting a Prompt").
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*messages.GetPromptResult, error) {
	var res messages.GetPromptResult
	if err := c.call(ctx, messages.MethodPromptsGet, messages.GetPromptParams{Name: name, Arguments: args}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
