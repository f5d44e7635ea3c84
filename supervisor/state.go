package supervisor

// State is where a managed server is in its life: a string, its name, so
// that fmt, logs, JSON and string(state) all read "ready" or
// "breaker open". The root package re-exports it as mcpactor.ServerState.
type State string

// The states of a managed server. The zero State, "", is none: the status
// of a server the manager does not have.
const (
	StateConnecting  State = "connecting"   // starting, or its handshake is running
	StateReady       State = "ready"        // connected; its tools are live
	StateRestarting  State = "restarting"   // its connection ended; a restart is under way
	StateBreakerOpen State = "breaker open" // too many failed restarts; resting until its next trial (NextTrial)
	StateUnhealthy   State = "unhealthy"    // its pings or calls fail; being restarted
	StateDisabled    State = "disabled"     // "enabled": false
	StateRefused     State = "not approved" // needs approval that was not given
	StateFailed      State = "failed"       // could not be configured (a !command failed)
)

// String is the state's name.
func (s State) String() string { return string(s) }
