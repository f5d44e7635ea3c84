package mcpactor

import "github.com/mcpactor/mcpactor/actors"

// Options configure a Runtime. The zero value is ready to use. The engine
// declares it, since every client carries it; its fields:
//
//   - ClientInfo (messages.Implementation) is sent to servers in
//     initialize; zero names mcpactor.
//   - Handlers (Handlers) answer server requests (roots, sampling,
//     elicitation) and receive notifications, for every server of this
//     runtime.
//   - Logger (*slog.Logger) receives lifecycle events (at debug level: a
//     server started, the handshake and the version chosen, a close, each
//     dropped frame) and reports of dropped input and failures (warnings,
//     errors). nil discards them.
//   - StderrLine (func(server, line string)), if set, receives each line a
//     stdio server writes to stderr, in order, on a goroutine per server.
//     A callback slower than the server loses lines (counted in
//     Stats.DroppedStderrLines) rather than blocking it. The lines a
//     server wrote before its connection ended reach it before
//     Client.Close (or a failed Connect) returns; those a Close that ran
//     out of time gave up on are counted there too.
//   - NotificationQueue (int) bounds each server's queue of notifications
//     waiting for Handlers.Notification (default 1024), and
//     MaxNotificationBytes (int) the bytes of their params (default 16
//     MiB). When either is reached the oldest waiting notification is
//     dropped (Stats.DroppedNotifications): a slow subscriber loses old
//     news, never blocks responses, and never grows memory.
//   - MaxConcurrentHandlers (int) bounds the server-to-client requests
//     served at once per server (default 64); beyond it they are refused
//     with a JSON-RPC error rather than queued.
//   - HTTPClient (*http.Client) sends the requests of every HTTP server of
//     the runtime. nil makes one tuned for many requests in flight
//     (keep-alive, idle connections per host, HTTP/2 when offered,
//     HTTP_PROXY/HTTPS_PROXY/NO_PROXY honoured). Give your own for custom
//     TLS (CAs, client certificates) or proxies; redirects to another
//     origin are refused whatever its own policy, so configured headers
//     never leave the server's origin.
//   - Extensions (map[string]any) are the client's extensions with their
//     settings, by identifier, declared to every server in the client's
//     capabilities (initialize in the session era, each request's _meta
//     in the 2026-07-28 era), as SEP-2133 defines them: an identifier is
//     "{vendor-prefix}/{name}" and its settings encode as a JSON object
//     (nil settings are sent as {}); Start refuses others with
//     *ConfigError. The official ones are listed at
//     https://modelcontextprotocol.io/extensions/client-matrix. The
//     runtime adds the extensions it implements itself (tasks,
//     io.modelcontextprotocol/tasks, in the 2026-07-28 era). What a
//     server declared is in Client.Capabilities().Extensions.
//   - Telemetry (telemetry.Options) chooses where spans and metrics go.
//     The zero value uses the global OpenTelemetry providers, which cost
//     nothing until the application installs real ones; Disabled switches
//     instrumentation off entirely.
type Options = actors.Options

// CallOptions tune one tool call. The zero value uses the server's
// request timeout and asks for no progress. The engine declares it, since
// it makes the call; its fields:
//
//   - Timeout (time.Duration) overrides the server's request timeout for
//     this call.
//   - OnProgress (func(messages.ProgressParams)) receives this call's
//     progress notifications, in order, on the calling goroutine. Setting
//     it sends a progress token
//     (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress).
//   - ResetTimeoutOnProgress (bool) restarts the timeout at each progress
//     notification, up to MaxTotalTimeout. It sends a progress token even
//     without OnProgress.
//   - MaxTotalTimeout (time.Duration) is an absolute cap that progress
//     cannot extend.
//   - Meta (messages.Meta) is sent as params._meta (progressToken is
//     added when needed).
//   - ValidateOutput (bool) checks this call's result against the tool's
//     outputSchema, as ServerConfig.ValidateOutput does for every call.
//   - BusyRetryUnsafe (bool) lets this call be sent again after a 429 or
//     503 with Retry-After (http), as lists and reads are: for a tool the
//     caller knows is safe to run twice (ServerConfig.BusyRetries).
type CallOptions = actors.Call

// Notification is one notification from a server, as Handlers get it.
// The engine declares it, since it queues them; its fields:
//
//   - Method names it, e.g. notifications/tools/list_changed or
//     notifications/message.
//   - Params are its params as the server sent them (json.RawMessage).
//   - Generation is the number of the connection it arrived on
//     (Client.Generation).
type Notification = actors.Notification
