package mcpactor

import (
	"context"
	"iter"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/messages"
)

// Client is the handle on one MCP server. Its methods are safe for
// concurrent use.
//
// A Client outlives its connections: each connection to the server (a
// process and the handshake run with it) is a generation, and a repair
// (Reconnect) replaces the connection under the same handle. Requests made
// before a handshake has finished wait for it, bounded by the connect
// timeout and their context; afterwards they go straight to the server's
// transport actor. Every request ends exactly once: with its result, a
// JSON-RPC error, a timeout, its context's end, or the connection's end.
type Client struct {
	h *actors.Client
}

// Name returns the server's configured name.
func (c *Client) Name() string { return c.h.Name() }

// WaitReady waits for the current connection's handshake to end and returns
// its error, if any.
func (c *Client) WaitReady(ctx context.Context) error { return c.h.WaitReady(ctx) }

// ServerInfo returns the server's name and version from the current
// connection's handshake (zero before it has succeeded).
func (c *Client) ServerInfo() messages.Implementation { return c.h.ServerInfo() }

// Capabilities returns what the server declared in the current connection's
// handshake.
func (c *Client) Capabilities() messages.ServerCapabilities { return c.h.Capabilities() }

// Instructions returns the server's instructions for the model, if any.
func (c *Client) Instructions() string { return c.h.Instructions() }

// ProtocolVersion returns the protocol version the current connection
// negotiated ("" before its handshake has succeeded).
func (c *Client) ProtocolVersion() string { return c.h.ProtocolVersion() }

// Stats returns the client's counts of dropped and refused input and
// output, over all its connections.
func (c *Client) Stats() Stats { return c.h.Stats() }

// InFlight reports the requests of the current connection that are queued
// or awaiting an answer.
func (c *Client) InFlight() int { return c.h.InFlight() }

// Err returns why the current connection ended or failed to connect, or nil
// while it connects or is usable.
func (c *Client) Err() error { return c.h.Err() }

// Done is closed when the client has been closed for good and everything it
// started (the process, goroutines) is gone, except user callbacks that
// Close abandoned. A failed connection or a repair does not close it.
func (c *Client) Done() <-chan struct{} { return c.h.Done() }

// Generation describes one connection of a Client; see Client.Generation.
// It is declared in the engine, which hands it out; its fields:
//
//   - Number is 1 for the first connection and one more for each repair.
//   - Ready is closed when the generation's handshake has ended, either
//     way; Client.Err then tells which.
//   - Replaced is closed when a newer generation starts or the client is
//     closed for good: the moment to look again.
type Generation = actors.Generation

// Generation returns the current connection generation: its number (1 for
// the first connection, one more for each repair), a channel closed when
// its handshake has ended, and one closed when it is replaced or the client
// closes. Err, ServerInfo, Capabilities and ProtocolVersion describe it.
func (c *Client) Generation() Generation { return c.h.Generation() }

// Reconnect replaces the connection: a new process (or dial) and handshake,
// waited for within ctx. Calls still pending on the old connection fail
// with an ErrTransportClosed *Error whose cause says the connection was
// replaced (its Next names the new one); calls made
// meanwhile wait for the new connection. It returns the new handshake's
// error, if any. Requests are never resent: a tool call may not be
// idempotent.
func (c *Client) Reconnect(ctx context.Context) error { return c.h.Reconnect(ctx) }

// Close ends the client for good: pending requests fail with
// ErrTransportClosed, the server is asked to exit (stdin closed, then
// SIGTERM, then SIGKILL) and reaped. Close returns when all is released or
// when ctx ends (DefaultCloseTimeout when it has no deadline), whichever is
// first: then the remaining grace periods are skipped, the server is
// killed, and Close returns within 100 ms, with an ErrTimeout *Error if
// the teardown had not finished by then. The stderr lines the server wrote
// before it ended reach Options.StderrLine before Close returns; those a
// Close that ran out of time gives up on are counted in
// Stats.DroppedStderrLines. No callback of this client (Handlers,
// Options.StderrLine) starts after Close returns; those still running are
// abandoned, counted in Stats.AbandonedCallbacks and logged, and their
// answers are never sent.
func (c *Client) Close(ctx context.Context) error { return c.h.Close(ctx) }

// Tools yields every tool the server offers, following tools/list pages
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#listing-tools);
// a failure is yielded last.
func (c *Client) Tools(ctx context.Context) iter.Seq2[messages.Tool, error] { return c.h.Tools(ctx) }

// ListTools returns all the server's tools, every page read. When the
// listing is cut short (a repeated cursor, MaxPages) the tools read so far
// come with an ErrBadResponse *Error (Pages, Cursor).
func (c *Client) ListTools(ctx context.Context) ([]messages.Tool, error) { return c.h.ListTools(ctx) }

// CallTool calls the tool name with args (anything that encodes as a JSON
// object, or nil) using the server's defaults. A tool that fails reports it
// in the result (IsError), not as an error: errors are for protocol and
// transport failures
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling).
func (c *Client) CallTool(ctx context.Context, name string, args any) (*messages.CallToolResult, error) {
	return c.h.CallTool(ctx, name, args)
}

// CallToolWith is CallTool with per-call options: timeout, progress, an
// absolute cap, _meta.
func (c *Client) CallToolWith(ctx context.Context, name string, args any, opts CallOptions) (*messages.CallToolResult, error) {
	return c.h.CallToolWith(ctx, name, args, opts)
}

// Resources yields every resource the server lists
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#listing-resources);
// a failure is yielded last.
func (c *Client) Resources(ctx context.Context) iter.Seq2[messages.Resource, error] {
	return c.h.Resources(ctx)
}

// ListResources returns all the server's resources, every page read.
func (c *Client) ListResources(ctx context.Context) ([]messages.Resource, error) {
	return c.h.ListResources(ctx)
}

// ResourceTemplates yields every resource template the server lists.
func (c *Client) ResourceTemplates(ctx context.Context) iter.Seq2[messages.ResourceTemplate, error] {
	return c.h.ResourceTemplates(ctx)
}

// ListResourceTemplates returns all resource templates, every page read.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]messages.ResourceTemplate, error) {
	return c.h.ListResourceTemplates(ctx)
}

// ReadResource reads the resource at uri.
func (c *Client) ReadResource(ctx context.Context, uri string) (*messages.ReadResourceResult, error) {
	return c.h.ReadResource(ctx, uri)
}

// Subscribe asks for notifications/resources/updated about uri; they reach
// Handlers.Notification.
func (c *Client) Subscribe(ctx context.Context, uri string) error { return c.h.Subscribe(ctx, uri) }

// Unsubscribe cancels a Subscribe.
func (c *Client) Unsubscribe(ctx context.Context, uri string) error { return c.h.Unsubscribe(ctx, uri) }

// Prompts yields every prompt the server offers; a failure is yielded last.
func (c *Client) Prompts(ctx context.Context) iter.Seq2[messages.Prompt, error] {
	return c.h.Prompts(ctx)
}

// ListPrompts returns all the server's prompts, every page read.
func (c *Client) ListPrompts(ctx context.Context) ([]messages.Prompt, error) {
	return c.h.ListPrompts(ctx)
}

// GetPrompt renders the prompt name with args.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*messages.GetPromptResult, error) {
	return c.h.GetPrompt(ctx, name, args)
}

// Complete asks for completions of a prompt or resource-template argument.
func (c *Client) Complete(ctx context.Context, p messages.CompleteParams) (*messages.CompleteResult, error) {
	return c.h.Complete(ctx, p)
}

// SetLoggingLevel sets the lowest level of the log messages the server
// sends; they reach Handlers.Notification as notifications/message.
func (c *Client) SetLoggingLevel(ctx context.Context, level messages.LoggingLevel) error {
	return c.h.SetLoggingLevel(ctx, level)
}

// Ping checks that the server answers.
func (c *Client) Ping(ctx context.Context) error { return c.h.Ping(ctx) }

// NotifyRootsChanged tells the server that the list of roots
// (Handlers.Roots) has changed.
func (c *Client) NotifyRootsChanged(ctx context.Context) error { return c.h.NotifyRootsChanged(ctx) }

// MaxPages bounds the pages one listing follows: 1000.
const MaxPages = actors.MaxPages

// DefaultCloseTimeout bounds Client.Close and Runtime.Stop when their
// context has no deadline: 10 seconds.
const DefaultCloseTimeout = actors.DefaultCloseTimeout
