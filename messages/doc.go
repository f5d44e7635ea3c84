// Package messages is the wire vocabulary a user of mcpactor names: the
// MCP payload types
// (https://modelcontextprotocol.io/specification/2025-11-25/schema, and
// those 2026-07-28 adds: server/discover, input-required results) with
// their decoders, the JSON-RPC 2.0 request id and error object
// (https://www.jsonrpc.org/specification), and the errors that carry a
// task's end (TaskError) or a configuration's problems (ConfigError). The
// JSON-RPC codec itself (envelope, encoders, frame scanners, buffer pools)
// and the runtime's errors (its carrier, and RPCError, a server's error
// answer to a request) are internal to the module.
//
// The root package, github.com/mcpactor/mcpactor, is the supported API; it
// takes and returns these payload types as they are, and exports the
// sentinels these errors match (mcpactor.ErrRPC, mcpactor.ErrConfig), the
// carrier of every other failure (mcpactor.Error) and mcpactor.RPCError.
package messages
