// Package messages holds what crosses mcpactor's layers: the JSON-RPC 2.0
// envelope (https://www.jsonrpc.org/specification) with a one-pass decoder
// and appending encoders, the MCP payload types
// (https://modelcontextprotocol.io/specification/2025-11-25/schema, and
// those 2026-07-28 adds: server/discover, input-required results), and the
// typed errors callers test with errors.Is and errors.As. It imports
// nothing of mcpactor.
//
// The root package, github.com/mcpactor/mcpactor, is the supported API; it
// takes and returns these payload types as they are, and re-exports the
// errors.
package messages
