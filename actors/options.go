package actors

import (
	"log/slog"
	"net/http"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
)

// Options configure a runtime: what every client of it shares. The zero
// value is ready to use. The root package re-exports it as
// mcpactor.Options; Env carries it to each client, beside what the
// runtime builds from it.
type Options struct {
	// ClientInfo is sent to servers in initialize; zero names mcpactor.
	ClientInfo messages.Implementation
	// Handlers answer server requests (roots, sampling, elicitation) and
	// receive notifications, for every server of this runtime.
	Handlers Handlers
	// Logger receives lifecycle events (at debug level: a server started,
	// the handshake and the version chosen, a close, each dropped frame)
	// and reports of dropped input and failures (warnings, errors). nil
	// discards them.
	Logger *slog.Logger
	// StderrLine, if set, receives each line a stdio server writes to
	// stderr, in order, on a goroutine per server. A callback slower than
	// the server loses lines (counted in Stats.DroppedStderrLines) rather
	// than blocking it. The lines a server wrote before its connection
	// ended reach it before Client.Close (or a failed Connect) returns;
	// those a Close that ran out of time gave up on are counted there too.
	StderrLine func(server, line string)
	// NotificationQueue bounds each server's queue of notifications
	// waiting for Handlers.Notification (default 1024), and
	// MaxNotificationBytes the bytes of their params (default 16 MiB).
	// When either is reached the oldest waiting notification is dropped
	// (Stats.DroppedNotifications): a slow subscriber loses old news, never
	// blocks responses, and never grows memory.
	NotificationQueue    int
	MaxNotificationBytes int
	// MaxConcurrentHandlers bounds the server-to-client requests served at
	// once per server (default 64); beyond it they are refused with a
	// JSON-RPC error rather than queued.
	MaxConcurrentHandlers int
	// HTTPClient sends the requests of every HTTP server of the runtime.
	// nil makes one tuned for many requests in flight (keep-alive, idle
	// connections per host, HTTP/2 when offered, HTTP_PROXY/HTTPS_PROXY/
	// NO_PROXY honoured). Give your own for custom TLS (CAs, client
	// certificates) or proxies; redirects to another origin are refused
	// whatever its own policy, so configured headers never leave the
	// server's origin.
	HTTPClient *http.Client
	// Extensions are the client's extensions with their settings, by
	// identifier, declared to every server in the client's capabilities
	// (initialize in the session era, each request's _meta in the
	// 2026-07-28 era), as SEP-2133 defines them: an identifier is
	// "{vendor-prefix}/{name}" and its settings encode as a JSON object
	// (nil settings are sent as {}); the runtime's Start refuses others
	// with a ConfigError. The official ones are listed at
	// https://modelcontextprotocol.io/extensions/client-matrix. The
	// runtime adds the extensions it implements itself (tasks,
	// io.modelcontextprotocol/tasks, in the 2026-07-28 era). What a
	// server declared is in Client.Capabilities().Extensions.
	Extensions map[string]any
	// Telemetry chooses where spans and metrics go. The zero value uses
	// the global OpenTelemetry providers, which cost nothing until the
	// application installs real ones; Disabled switches instrumentation
	// off entirely.
	Telemetry telemetry.Options
}
