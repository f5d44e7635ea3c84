package actors

import (
	"log/slog"
	"net/http"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// Env is what every client of one runtime shares: who we are, how we answer
// server requests, where logs go. The zero value is usable.
type Env struct {
	// ClientInfo is sent in initialize; the zero value names mcpactor.
	ClientInfo messages.Implementation
	// Handlers answer server-to-client requests and take notifications.
	Handlers Handlers
	// Logger receives lifecycle events and reports of dropped input; nil
	// discards them.
	Logger *slog.Logger
	// NotificationQueue bounds each server's queue of notifications waiting
	// for Handlers.Notification (default 1024). When it is full the oldest
	// waiting notification is dropped and counted: a slow subscriber loses
	// old news, never blocks responses, and never grows memory.
	NotificationQueue int
	// MaxNotificationBytes bounds the same queue in bytes of params
	// (default 16 MiB), with the same policy: the oldest go first.
	MaxNotificationBytes int
	// MaxConcurrentHandlers bounds the server-to-client requests served at
	// once per server (default 64); beyond it requests are refused with an
	// error rather than queued without bound.
	MaxConcurrentHandlers int
	// StderrLine, if set, receives each line servers write to stderr; a
	// slow callback loses lines (counted) rather than blocking the server.
	StderrLine func(server, line string)
	// Telemetry records spans and metrics for every request; nil switches
	// instrumentation off entirely.
	Telemetry *telemetry.Telemetry
	// HTTPClient sends the requests of every HTTP server; nil makes one
	// (transport.NewHTTPClient) per runtime.
	HTTPClient *http.Client
	// Extensions are the client's extensions with their settings, by
	// identifier, as Extensions returns them, declared in the client's
	// capabilities to every server (beside a server's own,
	// Spec.Extensions).
	Extensions map[string]any

	// memo remembers the HTTP endpoints that speak only legacy HTTP+SSE.
	memo *transportMemo
}

// Shared fills in, once, what the clients of one runtime share (the HTTP
// client, the memory of legacy HTTP+SSE endpoints), so that every Spawn
// given the result shares them.
func (e Env) Shared() Env { return e.withDefaults() }

func (e Env) withDefaults() Env {
	if e.ClientInfo.Name == "" {
		e.ClientInfo = messages.Implementation{Name: "mcpactor", Version: clientVersion}
	}
	if e.Logger == nil {
		e.Logger = slog.New(slog.DiscardHandler)
	}
	if e.NotificationQueue <= 0 {
		e.NotificationQueue = 1024
	}
	if e.MaxNotificationBytes <= 0 {
		e.MaxNotificationBytes = 16 << 20
	}
	if e.HTTPClient == nil {
		e.HTTPClient = transport.NewHTTPClient()
	}
	if e.memo == nil {
		e.memo = &transportMemo{}
	}
	if e.MaxConcurrentHandlers <= 0 {
		e.MaxConcurrentHandlers = 64
	}
	return e
}

// clientVersion is this runtime's version, sent as clientInfo.version.
const clientVersion = "0.1.0"
