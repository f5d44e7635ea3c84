package mcpactor

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// Options configure a Runtime. The zero value is ready to use.
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
	// (nil settings are sent as {}); Start refuses others with
	// *ConfigError. The official ones are listed at
	// https://modelcontextprotocol.io/extensions/client-matrix. The runtime adds the extensions it implements itself (tasks,
	// io.modelcontextprotocol/tasks, in the 2026-07-28 era). What a
	// server declared is in Client.Capabilities().Extensions.
	Extensions map[string]any
	// Telemetry chooses where spans and metrics go. The zero value uses
	// the global OpenTelemetry providers, which cost nothing until the
	// application installs real ones; Disabled switches instrumentation
	// off entirely.
	Telemetry telemetry.Options
}

// CallOptions tune one tool call. The zero value uses the server's request
// timeout and asks for no progress.
type CallOptions struct {
	// Timeout overrides the server's request timeout for this call.
	Timeout time.Duration
	// OnProgress receives this call's progress notifications, in order, on
	// the calling goroutine. Setting it sends a progress token
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress).
	OnProgress func(messages.ProgressParams)
	// ResetTimeoutOnProgress restarts the timeout at each progress
	// notification, up to MaxTotalTimeout. It sends a progress token even
	// without OnProgress.
	ResetTimeoutOnProgress bool
	// MaxTotalTimeout is an absolute cap that progress cannot extend.
	MaxTotalTimeout time.Duration
	// Meta is sent as params._meta (progressToken is added when needed).
	Meta messages.Meta
	// ValidateOutput checks this call's result against the tool's
	// outputSchema, as ServerConfig.ValidateOutput does for every call.
	ValidateOutput bool
	// BusyRetryUnsafe lets this call be sent again after a 429 or 503
	// with Retry-After (http), as lists and reads are: for a tool the
	// caller knows is safe to run twice (ServerConfig.BusyRetries).
	BusyRetryUnsafe bool
}

// call is the engine's form of o.
func (o CallOptions) call() actors.Call {
	return actors.Call{
		Request: transport.RequestOptions{Timeout: o.Timeout, ResetTimeoutOnProgress: o.ResetTimeoutOnProgress,
			MaxTotalTimeout: o.MaxTotalTimeout, BusyRetryUnsafe: o.BusyRetryUnsafe},
		Meta:           o.Meta,
		OnProgress:     o.OnProgress,
		ValidateOutput: o.ValidateOutput,
	}
}

// Notification is one notification from a server.
type Notification struct {
	Method string          // e.g. notifications/tools/list_changed, notifications/message
	Params json.RawMessage // as the server sent them
	// Generation is the number of the connection it arrived on
	// (Client.Generation).
	Generation uint64
}
