// Package messages holds what crosses mcpactor's layers: the JSON-RPC 2.0
// envelope (https://www.jsonrpc.org/specification) with a one-pass decoder
// and appending encoders, the MCP payload types of the session-era protocol
// (https://modelcontextprotocol.io/specification/2025-11-25/schema), the
// typed errors callers test with errors.Is and errors.As, and the plain
// messages a transport sends its owner. It imports nothing of mcpactor.
package messages
