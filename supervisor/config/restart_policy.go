package config

import "time"

// RestartPolicy is how the manager restarts a server whose connection
// died: after a delay growing exponentially from BackoffMin to BackoffMax
// (with jitter), at most MaxRestarts times within Window; beyond that the
// server's circuit breaker opens. A zero field takes its default
// (DefaultRestartPolicy); a negative MaxRestarts allows no restart (a
// file's "maxRestarts": 0 reads as -1). The root package re-exports it
// as mcpactor.RestartPolicy.
type RestartPolicy struct {
	MaxRestarts int
	Window      time.Duration
	BackoffMin  time.Duration
	BackoffMax  time.Duration
}

// DefaultRestartPolicy returns the policy of a server that sets none: 5
// restarts per 60 s window, backoff from 500 ms to 30 s.
func DefaultRestartPolicy() RestartPolicy {
	return RestartPolicy{MaxRestarts: 5, Window: 60 * time.Second, BackoffMin: 500 * time.Millisecond, BackoffMax: 30 * time.Second}
}
