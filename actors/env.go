package actors

import (
	"log/slog"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// Env is what every client of one runtime shares: the runtime's Options
// and what the runtime builds from them. The zero value is usable. The
// runtime checks Options.Extensions and keeps them as Extensions returns
// them.
type Env struct {
	Options
	// Instruments record spans and metrics for every request, as
	// Options.Telemetry chose (the runtime builds them with telemetry.New
	// and closes them); nil switches instrumentation off entirely.
	Instruments *telemetry.Telemetry

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
