package actors

import (
	"context"
	"iter"
	"reflect"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// Tools yields every tool the server offers, following tools/list pages
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#listing-tools);
// a failure is yielded last.
//
// Over HTTP in the stateless era, a tool whose x-mcp-header annotations
// are invalid is left out (with a warning in the log): it could not be
// called as the revision requires
// (https://modelcontextprotocol.io/specification/2026-07-28/server/tools);
// the annotations of the others are kept for their calls' headers.
func (c *Client) Tools(ctx context.Context) iter.Seq2[messages.Tool, error] {
	return c.tools(ctx, nil)
}

// tools is Tools, gathering the pages' caching hints into hints when it is
// not nil.
func (c *Client) tools(ctx context.Context, hints *CacheHints) iter.Seq2[messages.Tool, error] {
	var headers map[string][]headerParam
	return pages(c.name, messages.MethodToolsList, func(ctx context.Context, cursor string) (page[messages.Tool], error) {
		var res messages.ListToolsResult
		err := c.call(ctx, messages.MethodToolsList, messages.ListToolsParams{Cursor: cursor}, &res)
		if err == nil {
			res.Tools, headers = c.annotatedTools(res.Tools, headers, res.NextCursor == "")
			hints.add(res.TTLMs, res.CacheScope)
		}
		return page[messages.Tool]{items: res.Tools, next: res.NextCursor}, err
	})(ctx)
}

// CacheHints are what a server said of caching a list it sent
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
// Across pages the shortest lifetime wins; a server earlier than
// 2026-07-28 sends none (TTLMs nil: stale at once; Scope "").
type CacheHints struct {
	TTLMs *int64
	Scope string // "public" or "private"
}

func (h *CacheHints) add(ttl *int64, scope string) {
	if h == nil {
		return
	}
	if ttl != nil && (h.TTLMs == nil || *ttl < *h.TTLMs) {
		v := max(*ttl, 0) // a negative ttlMs means 0
		h.TTLMs = &v
	}
	// The scope is the same on every page of one list; a page that says
	// private makes the whole list private.
	if h.Scope == "" || scope == "private" {
		h.Scope = scope
	}
}

// ListToolsWithHints is ListTools that also returns the list's caching
// hints, for a cache of tool lists (the manager's).
func (c *Client) ListToolsWithHints(ctx context.Context) ([]messages.Tool, CacheHints, error) {
	var hints CacheHints
	tools, err := collect(c.tools(ctx, &hints))
	return tools, hints, err
}

// annotatedTools reads the x-mcp-header annotations of a page of tools on
// a stateless-era HTTP connection, leaving out the invalid ones, and
// records them for the connection once the last page is read.
func (c *Client) annotatedTools(tools []messages.Tool, acc map[string][]headerParam, last bool) ([]messages.Tool, map[string][]headerParam) {
	g := c.gen.Load()
	if s := g.established(); s == nil || !s.modern || !g.conn.HTTP() {
		return tools, acc
	}
	if acc == nil {
		acc = map[string][]headerParam{}
	}
	kept := tools[:0]
	for _, t := range tools {
		params, err := toolHeaders(t.InputSchema)
		if err != nil {
			c.logger().Warn("mcp: tool left out: invalid x-mcp-header annotation", "server", c.name, "tool", t.Name, "err", err)
			continue
		}
		acc[t.Name] = params
		kept = append(kept, t)
	}
	if last {
		g.headers.Store(&acc)
	}
	return kept, acc
}

// ListTools returns all the server's tools, every page read.
func (c *Client) ListTools(ctx context.Context) ([]messages.Tool, error) {
	return collect(c.Tools(ctx))
}

// Call is how one tools/call is made, beyond its name and arguments: the
// transport's options for the request (its timeout and the progress rules
// that extend it), the _meta sent with it and who hears its progress. The
// root package's CallOptions is what a user fills; it becomes a Call.
// The client sets Request.ProgressToken and Request.OnProgress itself.
type Call struct {
	Request    transport.RequestOptions
	Meta       messages.Meta
	OnProgress func(messages.ProgressParams)
}

// CallTool calls the tool name with args (anything that encodes as a JSON
// object, or nil) using the server's defaults. A tool that fails reports it
// in the result (IsError), not as an error: errors are for protocol and
// transport failures (server/tools, "Error Handling").
func (c *Client) CallTool(ctx context.Context, name string, args any) (*messages.CallToolResult, error) {
	return c.CallToolWith(ctx, name, args, Call{})
}

// CallToolWith is CallTool made as call says.
func (c *Client) CallToolWith(ctx context.Context, name string, args any, call Call) (*messages.CallToolResult, error) {
	// What the call keeps while it waits is small: its params, which
	// travel by pointer (no copy boxed into an interface), and where the
	// result goes. The result is made when the answer has arrived
	// (decodeResult): with thousands of calls in flight, a result made
	// before would be memory held by every waiting call.
	tc := &toolCall{}
	tc.params = messages.CallToolParams{Meta: call.Meta, Name: name, Arguments: noNil(args)}
	params := &tc.params
	topts := call.Request
	// A progress token is sent when the caller wants progress or wants it
	// to extend the timeout (basic/utilities/progress).
	if call.OnProgress != nil || topts.ResetTimeoutOnProgress {
		c.askProgress(params, &topts)
	}
	err := c.callProgress(ctx, messages.MethodToolsCall, params, tc, &topts, call.OnProgress)
	if err != nil {
		return nil, err
	}
	return tc.res, nil
}

// askProgress gives a tools/call a progress token of its own. Out of
// line: CallToolWith's frame is on the stack of every call in flight.
func (c *Client) askProgress(params *messages.CallToolParams, topts *transport.RequestOptions) {
	tok := c.progressSeq.Add(1)
	params.Meta = c.withProgressToken(params.Meta, tok)
	topts.ProgressToken, _ = messages.ProgressTokenKey(tok)
}

// toolCall is what a CallTool allocates before it sends: its params, and
// where decodeResult puts the result.
type toolCall struct {
	params messages.CallToolParams
	res    *messages.CallToolResult
}

// isError reports whether the tool reported an error in its result.
func (tc *toolCall) isError() bool { return tc.res != nil && tc.res.IsError }

// callToolParams returns the tools/call params in params, whether given by
// value or, as CallToolWith does, by pointer.
func callToolParams(params any) (*messages.CallToolParams, bool) {
	switch p := params.(type) {
	case *messages.CallToolParams:
		return p, true
	case messages.CallToolParams:
		return &p, true
	}
	return nil, false
}

// withProgressToken copies meta (never changing the caller's map) and adds
// the token (basic/utilities/progress).
func (c *Client) withProgressToken(meta messages.Meta, tok int64) messages.Meta {
	out := make(messages.Meta, len(meta)+1)
	for k, v := range meta {
		out[k] = v
	}
	out.SetProgressToken(tok)
	return out
}

// noNil turns arguments that would encode as null (a nil map or pointer in
// an interface) into none at all: arguments are an object or absent, and
// servers refuse null.
func noNil(args any) any {
	switch v := args.(type) {
	case nil:
		return nil
	case map[string]any:
		if v == nil {
			return nil
		}
		return v
	}
	switch rv := reflect.ValueOf(args); rv.Kind() {
	case reflect.Map, reflect.Pointer, reflect.Slice, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
	}
	return args
}
