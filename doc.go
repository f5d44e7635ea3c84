// Package mcpactor is an MCP (Model Context Protocol) client runtime built
// on actors, for programs that talk to many MCP servers at once with
// thousands of requests in flight: agent backends serving many users.
//
// # One server
//
// A program starts one Runtime, connects servers and calls their tools:
//
//	rt, err := mcpactor.Start(mcpactor.Options{})
//	...
//	defer rt.Stop(ctx)
//	c, err := rt.Connect(ctx, "files", mcpactor.ServerConfig{Command: "my-server"})
//	...
//	res, err := c.CallTool(ctx, "read", map[string]any{"path": "README.md"})
//
// ServerConfig is the one configuration type: a local server started over
// stdio (Command), a remote one over Streamable HTTP or legacy HTTP+SSE
// (URL), or any stream you open (Dial). Runtime.Open starts a connection
// without waiting for it. The Client has the whole client side of the
// protocol: tools, resources, prompts, completion, logging, ping, and
// answers to the server's own requests through Options.Handlers. The
// runtime finds out which protocol each server speaks: the stateless
// 2026-07-28 protocol when the server offers it, otherwise the initialize
// handshake of 2025-11-25 down to 2024-11-05. The MCP payload types (Tool,
// CallToolResult, ...) live in package messages.
//
// # Many servers: the Manager
//
// Runtime.Manage supervises a set of servers: read from a configuration
// file in the mcpServers format (ManageOptions.ConfigFile), given in code
// (ManageOptions.Servers), or discovered in other tools' configuration
// files (ManageOptions.Discover; project-level servers wait for your
// Approve callback). The Manager connects them concurrently, offers their
// tools under unique names (mcp__<server>__<tool>) from an on-disk cache
// while slow servers start, restarts servers that die or stop answering
// with backoff and a circuit breaker, and reports each server's state with
// Manager.Status and OnEvent. Manager.CallTool, ListTools, GetPrompt and
// ReadResource work across servers.
//
// # Errors
//
// Every request ends exactly once: a result, an error, a timeout or a
// cancellation. Errors name the server and the method, never a credential,
// and match the sentinels of this package with errors.Is (ErrTimeout,
// ErrServerUnavailable, ErrConfig, ...) and their carrier types with
// errors.As (*Error, *RPCError, *ConfigError, *TaskError).
//
// # Telemetry
//
// Every request is an OpenTelemetry CLIENT span named after the MCP
// semantic conventions, with trace context carried in params._meta, and
// durations are metrics. The global providers are used unless
// Options.Telemetry names others; with none installed it costs nothing.
//
// # Testing and scaling out
//
// Package transport/mcptest is to this package what net/http/httptest is
// to net/http: fake MCP servers declared in Go, with faults, for your
// tests. Package supervisor/cluster runs the same Manager API across a
// fleet of processes coordinated by etcd; it is a separate package so that
// this one links no gRPC.
//
// # Design
//
// Each server is a client actor running the protocol handshake
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle)
// over a transport actor that owns the server's process and the table of
// pending requests; the Client handle talks to them by messages, never
// through shared state. Bad input is counted and skipped, every queue is
// bounded in count and in bytes, and Close and Stop are bounded by their
// context. docs/architecture.md in the repository has the design, and the
// Example functions of this package and of transport/mcptest (shown on
// pkg.go.dev, or in the example_test.go files) show real use.
package mcpactor
