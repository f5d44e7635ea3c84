package actors

import (
	"context"
	"encoding/json"
	"iter"
	"reflect"
	"sync"
	"time"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// Tools yields every tool the server offers, following tools/list pages
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#listing-tools);
// a failure is yielded last.
//
// Over HTTP in the stateless protocol, a tool whose x-mcp-header annotations
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
	return pages(c.name, messages.MethodToolsList, c.toolPages(hints))(ctx)
}

// toolPages fetches the pages of tools/list, gathering their caching
// hints into hints when it is not nil.
func (c *Client) toolPages(hints *CacheHints) func(ctx context.Context, cursor string) (page[messages.Tool], error) {
	var headers map[string][]headerParam
	var required map[string]bool
	var schemas map[string]json.RawMessage
	return func(ctx context.Context, cursor string) (page[messages.Tool], error) {
		var res messages.ListToolsResult
		err := c.call(ctx, messages.MethodToolsList, messages.ListToolsParams{Cursor: cursor}, &res)
		if err == nil {
			res.Tools, headers = c.annotatedTools(res.Tools, headers, res.NextCursor == "")
			hints.add(res.TTLMs, res.CacheScope)
			required = c.noteTaskTools(res.Tools, required, res.NextCursor == "")
			schemas = c.noteOutputSchemas(res.Tools, schemas, res.NextCursor == "")
		}
		return page[messages.Tool]{items: res.Tools, next: res.NextCursor}, err
	}
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
	tools, err := collectPages(ctx, c.name, messages.MethodToolsList, c.toolPages(&hints))
	return tools, hints, err
}

// annotatedTools reads the x-mcp-header annotations of a page of tools on
// a stateless HTTP connection, leaving out the invalid ones, and
// records them for the connection once the last page is read.
func (c *Client) annotatedTools(tools []messages.Tool, acc map[string][]headerParam, last bool) ([]messages.Tool, map[string][]headerParam) {
	g := c.gen.Load()
	if g.established() == nil || !g.stateless() || !g.conn.HTTP() {
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

// ListTools returns all the server's tools, every page read, or as last
// read while the server lets the list be cached (result_cache.go).
func (c *Client) ListTools(ctx context.Context) ([]messages.Tool, error) {
	return cachedList(ctx, c, messages.MethodToolsList, c.tools)
}

// Call tunes one tool call. The zero value uses the server's request
// timeout and asks for no progress. The root package re-exports it as
// mcpactor.CallOptions; ServerConfig is the root package's.
type Call struct {
	// Timeout overrides the server's request timeout for this call.
	Timeout time.Duration
	// OnProgress receives this call's progress notifications, in order, on
	// the calling goroutine. Setting it sends a progress token
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress).
	OnProgress func(messages.ProgressParams)
	// ResetTimeoutOnProgress restarts the timeout at each progress
	// notification, up to MaxTotalTimeout. It sends a progress token even
	// without OnProgress.
	ResetTimeoutOnProgress bool
	// MaxTotalTimeout is an absolute cap that progress cannot extend.
	MaxTotalTimeout time.Duration
	// Meta is sent as params._meta (progressToken is added when needed).
	Meta messages.Meta
	// ValidateOutput checks this call's result against the tool's
	// outputSchema (checkOutput), as ServerConfig.ValidateOutput does for
	// every call.
	ValidateOutput bool
	// BusyRetryUnsafe lets this call be sent again after a 429 or 503
	// with Retry-After (http), as lists and reads are: for a tool the
	// caller knows is safe to run twice (ServerConfig.BusyRetries).
	BusyRetryUnsafe bool
}

// CallTool calls the tool name with args (anything that encodes as a JSON
// object, or nil) using the server's defaults. A tool that fails reports it
// in the result (IsError), not as an error: errors are for protocol and
// transport failures
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling).
// A tool that must run as a task on this server is started and awaited as
// one (callAsTask).
func (c *Client) CallTool(ctx context.Context, name string, args any) (*messages.CallToolResult, error) {
	return c.callTool(ctx, name, args, nil)
}

// CallToolWith is CallTool made as call says.
func (c *Client) CallToolWith(ctx context.Context, name string, args any, call Call) (*messages.CallToolResult, error) {
	return c.callTool(ctx, name, args, &call)
}

// callTool is CallTool made as call says (nil: the defaults). The request
// goes the way of every other (callWith); its record is a toolCall from
// toolCalls, given back when the call returns.
func (c *Client) callTool(ctx context.Context, name string, args any, call *Call) (*messages.CallToolResult, error) {
	if s := c.gen.Load().established(); s != nil && s.taskTools != nil && c.runsAsTask(ctx, s, name) {
		res, err := c.callAsTask(ctx, name, args, call)
		return c.toolEnd(ctx, name, call, res, err)
	}
	var r request
	opts := options(call)
	var onProgress func(messages.ProgressParams)
	if call != nil {
		onProgress = call.OnProgress
	}
	tc := c.newToolCall(&r, name, args, call, &opts)
	var res *messages.CallToolResult
	var err error
	if c.start(ctx, &r, &opts, onProgress) && c.send(&r, &opts) {
		res, err = c.waitTool(&r, tc, &opts)
	} else {
		res, err = tc.result(r.err)
	}
	if err != nil && c.mustRunAsTask(err) {
		res, err = c.callAsTask(ctx, name, args, call)
	}
	return c.toolEnd(ctx, name, call, res, err)
}

// toolEnd is a tools/call's end, checked against the tool's outputSchema
// when the server's configuration or the call asks (checkOutput).
func (c *Client) toolEnd(ctx context.Context, name string, call *Call, res *messages.CallToolResult, err error) (*messages.CallToolResult, error) {
	if err != nil || !(c.cfg.ValidateOutput || call != nil && call.ValidateOutput) {
		return res, err
	}
	if err := c.checkOutput(ctx, name, res); err != nil {
		return nil, c.masked(err) // its Body quotes the server's output
	}
	return res, nil
}

// newToolCall takes a tools/call's record from toolCalls and makes r the
// request that carries it. What a waiting call keeps is small: its
// params, which travel by pointer (no copy boxed into an interface), and
// where the result goes; the result is made when the answer has arrived
// (decodeResult). A call whose progress someone takes, or whose timer
// restarts with it, is given a progress token (basic/utilities/progress).
func (c *Client) newToolCall(r *request, name string, args any, call *Call, opts *transport.RequestOptions) *toolCall {
	tc := toolCalls.Get().(*toolCall)
	tc.params = messages.CallToolParams{Name: name, Arguments: noNil(args)}
	if call != nil {
		tc.params.Meta = call.Meta
		if call.OnProgress != nil || opts.ResetTimeoutOnProgress {
			c.askProgress(&tc.params, opts)
		}
	}
	r.method, r.params, r.out = messages.MethodToolsCall, &tc.params, tc
	return tc
}

// waitTool is wait for a tools/call: the request's end, then its result
// taken from tc (tc.result).
func (c *Client) waitTool(r *request, tc *toolCall, opts *transport.RequestOptions) (*messages.CallToolResult, error) {
	c.wait(r, opts)
	return tc.result(r.err)
}

// options are the transport's options a call is made with (call nil:
// the defaults). The client sets ProgressToken and OnProgress itself.
func options(call *Call) transport.RequestOptions {
	if call == nil {
		return transport.RequestOptions{}
	}
	return transport.RequestOptions{Timeout: call.Timeout, ResetTimeoutOnProgress: call.ResetTimeoutOnProgress,
		MaxTotalTimeout: call.MaxTotalTimeout, BusyRetryUnsafe: call.BusyRetryUnsafe}
}

// askProgress gives a tools/call a progress token of its own.
func (c *Client) askProgress(params *messages.CallToolParams, topts *transport.RequestOptions) {
	tok := c.progressSeq.Add(1)
	params.Meta = c.withProgressToken(params.Meta, tok)
	topts.ProgressToken, _ = messages.ProgressTokenKey(tok)
}

// toolCall is what a CallTool needs before it sends: its params, and
// where decodeResult puts the result. Calls take theirs from toolCalls and
// give it back when they end (result).
type toolCall struct {
	params messages.CallToolParams
	res    *messages.CallToolResult
}

var toolCalls = sync.Pool{New: func() any { return new(toolCall) }}

// result is the call's end, err or its result, and gives tc back to
// toolCalls: the result the caller gets is an allocation of its own
// (decodeResult), and nothing holds tc once its request has ended.
func (tc *toolCall) result(err error) (*messages.CallToolResult, error) {
	res := tc.res
	*tc = toolCall{}
	toolCalls.Put(tc)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// isError reports whether the tool reported an error in its result.
func (tc *toolCall) isError() bool { return tc.res != nil && tc.res.IsError }

// callToolParams returns the tools/call params in params, whether given by
// value or by pointer (a tools/call's record holds them: newToolCall).
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
