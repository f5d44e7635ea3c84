package mcpactor

import "github.com/mcpactor/mcpactor/supervisor"

// ServerStatus is one managed server's state (Manager.Status). The engine
// declares it, since the manager builds it; its fields:
//
//   - Name (string) is the server's name.
//   - State (ServerState) is where it is in its life.
//   - Source (Source) is where its configuration came from.
//   - ProtocolVersion (string) is the current connection's, "" before one.
//   - Generation (uint64) is the current connection's number: 1, and one
//     more per restart; 0 before a connection.
//   - LastError (error) is the last failure (its exit status and stderr,
//     for a process; a failed tools/list), and LastErrorAt (time.Time)
//     when it happened. It is kept after the server recovers, with
//     LastErrorPast (bool) set: the server has been ready (its tools
//     listed) since, so the error is history, not a current problem.
//   - NextTrial (time.Time) is when the manager next tries to connect the
//     server on its own: the end of a restart's backoff (StateRestarting)
//     or the breaker's next trial (StateBreakerOpen); zero when none is
//     due.
//   - Restarts (int) counts the restarts of its connection.
//   - InFlight (int) is the number of its calls in flight.
//   - Tools (int) is how many tools the server offers. A server still
//     starting without a cached list offers none yet (ToolsPending, a
//     bool): its tools arrive with a ManagerEvent of kind
//     EventToolsChanged.
//   - Cached (bool): the tools are the tool-list cache's.
//   - P50 and P99 (time.Duration) are the median and the 99th percentile
//     of its recent calls through the manager; zero before any.
type ServerStatus = supervisor.ServerStatus

// ServerState is ServerStatus.State: a string, the state's name, one of
// the State constants (StateConnecting, StateReady, ...). The engine
// declares it, since the manager moves servers between states.
type ServerState = supervisor.State

// The states of a managed server.
const (
	StateConnecting  = supervisor.StateConnecting  // "connecting": starting, or its handshake is running
	StateReady       = supervisor.StateReady       // "ready": connected; its tools are live
	StateRestarting  = supervisor.StateRestarting  // "restarting": its connection ended; a restart is under way
	StateBreakerOpen = supervisor.StateBreakerOpen // "breaker open": too many failed restarts; resting until its next trial (NextTrial)
	StateUnhealthy   = supervisor.StateUnhealthy   // "unhealthy": its pings or calls fail; being restarted
	StateDisabled    = supervisor.StateDisabled    // "disabled": "enabled": false
	StateRefused     = supervisor.StateRefused     // "not approved": needs approval that was not given
	StateFailed      = supervisor.StateFailed      // "failed": could not be configured (a !command failed)
)
