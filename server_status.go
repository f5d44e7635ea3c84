package mcpactor

import (
	"time"

	"github.com/mcpactor/mcpactor/supervisor"
)

// ServerStatus is one managed server's state (Manager.Status).
type ServerStatus struct {
	Name            string
	State           ServerState
	Source          Source // where its configuration came from
	ProtocolVersion string // of the current connection, "" before one
	Generation      uint64 // the current connection's number
	// LastError is the last failure (its exit status and stderr, for a
	// process), and LastErrorAt when it happened. It is kept after the
	// server recovers, with LastErrorPast set: the server has been ready
	// (its tools listed) since, so the error is history, not a current
	// problem.
	LastError     error
	LastErrorAt   time.Time
	LastErrorPast bool
	// NextTrial is when the manager next tries to connect the server on
	// its own: the end of a restart's backoff (StateRestarting) or the
	// breaker's next trial (StateBreakerOpen); zero when none is due.
	NextTrial time.Time
	Restarts  int
	InFlight  int
	// Tools is how many tools the server offers. A server still starting
	// without a cached list offers none yet (ToolsPending): its tools
	// arrive with a ManagerEvent of kind EventToolsChanged.
	Tools        int
	ToolsPending bool
	Cached       bool          // the tools are the tool-list cache's
	P50, P99     time.Duration // of calls through the manager
}

// ServerState is ServerStatus.State.
type ServerState string

// The states of a managed server.
const (
	StateConnecting  ServerState = "connecting"   // starting, or its handshake is running
	StateReady       ServerState = "ready"        // connected; its tools are live
	StateRestarting  ServerState = "restarting"   // its connection ended; a restart is under way
	StateBreakerOpen ServerState = "breaker open" // too many failed restarts; resting until its next trial (NextTrial)
	StateUnhealthy   ServerState = "unhealthy"    // its pings or calls fail; being restarted
	StateDisabled    ServerState = "disabled"     // "enabled": false
	StateRefused     ServerState = "not approved" // needs approval that was not given
	StateFailed      ServerState = "failed"       // could not be configured (a !command failed)
)

// statusOf is a server's status as the root reports it, read from the
// engine's view of it.
func statusOf(v *supervisor.ServerView) ServerStatus {
	st := ServerStatus{Name: v.Name(), State: ServerState(v.State().String()), Source: v.Source(),
		ProtocolVersion: v.ProtocolVersion(), Generation: v.Generation(), LastError: v.LastError(),
		LastErrorAt: v.LastErrorAt(), LastErrorPast: v.LastErrorPast(), NextTrial: v.NextTrial(),
		Restarts: v.Restarts(), InFlight: v.InFlight(), Tools: v.ToolCount(), ToolsPending: v.ToolsPending(),
		Cached: v.Cached()}
	st.P50, st.P99 = v.Latency()
	return st
}
