// Package actors is mcpactor's engine for one MCP server: the client actor
// (the handshake state machine, server-to-client requests, the notification
// queue, connection generations) and the Client handle that callers hold.
// It is an engine package: the supported API is the root package,
// github.com/mcpactor/mcpactor, whose Client wraps this one; the manager
// (package supervisor) uses it directly.
//
// The handshake follows
// https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle;
// docs/architecture.md in the repository says who owns what, how a request
// travels, and how a connection is replaced under a Client.
package actors
