// Package mcptest provides fake MCP servers for the tests of programs
// built on mcpactor, as net/http/httptest does for net/http.
//
// A Server is declared in Go: tools as functions with their input
// schemas, resources and resource templates, prompts, completions, and
// faults to switch on per server or per tool. One call gives the
// mcpactor.ServerConfig that reaches it:
//
//   - InProcess: over a net.Pipe through ServerConfig.Dial. No process,
//     no port; the quickest, and what most tests want.
//   - Stdio: the test binary re-executed as the server, over real pipes,
//     as a subprocess server is; TestMain must call RunIfChild.
//   - StartHTTP: an httptest server speaking Streamable HTTP
//     (HTTPServer.Config) and the legacy HTTP+SSE transport
//     (HTTPServer.SSEConfig); StartHTTPWith puts middleware in front
//     (authorization, extra routes).
//
// These speak the session protocol of MCP (initialize, 2024-11-05 to
// 2025-11-25): a runtime that probes with server/discover is refused
// (-32601) and falls back to initialize. With Server.Stateless they speak
// the stateless protocol (2026-07-28) as well (legacy SSE aside), and a
// runtime that probes picks it.
//
// A Tool's Handler gets a *Call: its arguments and _meta, and the way back
// to the client before the answer (progress, notifications, log messages,
// and server-to-client requests: sampling, elicitation, roots). The
// Server records every message it receives (Received, Calls,
// Cancellations, with HTTP headers) so that a test can check what its code
// sent, or that it cancelled a call.
//
// Outside any call, Server.Notify sends every connected client a
// notification, and SetTools, SetResources, SetResourceTemplates and
// SetPrompts change the lists and send the list_changed notification, so
// that a test can check that its code (or a manager, Runtime.Manage)
// lists again. Neither reaches a Stdio child, which is another process.
//
// Each fault's documentation names the error an mcpactor client then
// returns; the package's tests hold those claims.
//
// The engine underneath is the one mcpactor's own tests run against
// (internal/testserver), so the faults here are the ones the runtime is
// tested with. The package depends on the standard library and this
// module only, and a program that does not import it does not link it.
package mcptest
