// Package transport holds mcpactor's transport actors and the request
// correlation they share.
//
// rpcCore (pending.go) owns the id counter, the table of pending requests,
// progress routing and cancellation, and is written once; a transport adds
// only framing and I/O through a frameSink. Conn is the caller's handle: a
// request is a message to the transport actor carrying a capacity-1 reply
// channel, and the actor alone decides each request's single end. The stdio
// transport (stdio.go) speaks newline-delimited JSON with a subprocess
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio),
// or with any byte stream a Dial function returns. Every queue is bounded in
// count and in bytes (budget.go); docs/architecture.md has the table.
//
// It is an engine package: the supported API is the root package,
// github.com/mcpactor/mcpactor (with transport/oauth for OAuth), which
// configures and reports on what this package holds.
package transport
