package supervisor

import (
	"time"

	"github.com/mcpactor/mcpactor/supervisor/config"
)

// ServerStatus is one managed server's state (Manager.Status). The root
// package re-exports it as mcpactor.ServerStatus.
type ServerStatus struct {
	Name   string
	State  State
	Source config.Source // where its configuration came from
	// ProtocolVersion is the current connection's, "" before one.
	ProtocolVersion string
	// Generation is the current connection's number: 1, and one more per
	// restart; 0 before a connection.
	Generation uint64
	// LastError is the last failure (its exit status and stderr, for a
	// process; a failed tools/list), and LastErrorAt when it happened. It
	// is kept after the server recovers, with LastErrorPast set: the
	// server has been ready (its tools listed) since, so the error is
	// history, not a current problem.
	LastError     error
	LastErrorAt   time.Time
	LastErrorPast bool
	// NextTrial is when the manager next tries to connect the server on
	// its own: the end of a restart's backoff (StateRestarting) or the
	// breaker's next trial (StateBreakerOpen); zero when none is due.
	NextTrial time.Time
	// Restarts counts the restarts of its connection.
	Restarts int
	// InFlight is the number of its calls in flight.
	InFlight int
	// Tools is how many tools the server offers. A server still starting
	// without a cached list offers none yet (ToolsPending): its tools
	// arrive with an event of kind EventToolsChanged.
	Tools        int
	ToolsPending bool
	Cached       bool // the tools are the tool-list cache's
	// P50 and P99 are the median and the 99th percentile of its recent
	// calls through the manager; zero before any.
	P50, P99 time.Duration
}

// Status returns the status of every server, by name: as the manager last
// published it, with the calls in flight, the connection and the
// latencies read now.
func (m *Manager) Status() []ServerStatus {
	views := m.servers()
	out := make([]ServerStatus, len(views))
	for i, v := range views {
		out[i] = v.status()
	}
	return out
}
