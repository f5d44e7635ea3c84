package supervisor

import (
	"cmp"
	"math/rand/v2"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/supervisor/config"
)

// The restart policy: exponential backoff with jitter after a connection
// that failed or ended, and the breaker once there were too many failures
// in the policy's window (docs/architecture.md, "The manager").

// failed applies the restart policy to a member whose connection failed
// (ended, or stuck: see pinged); reason is the restart's telemetry reason.
func (a *managerActor) failed(mb *member, err error, reason string) {
	a.slotFreed(mb)
	mb.stopKeepalive()
	mb.setErr(err)
	a.changed(mb) // its error, and its restarts below
	name := mb.srv.Name
	now := time.Now()
	p := effectiveRestart(mb.srv.Restart)
	mb.failures = append(mb.failures, now)
	cut := 0
	for cut < len(mb.failures) && now.Sub(mb.failures[cut]) > p.Window {
		cut++
	}
	mb.failures = mb.failures[cut:]
	if mb.trial || len(mb.failures) > p.MaxRestarts {
		a.openBreaker(mb, err)
		return
	}
	delay := backoffFor(p, mb.backoff)
	mb.backoff++
	mb.restarts++
	a.log.Info("mcp: restarting server", "server", name, "in", delay, "err", oneLine(errText(err)))
	if t := a.opts.Env.Instruments; t != nil {
		t.Restarted(cmp.Or(mb.srv.Spec.TelemetryName, name), reason)
	}
	mb.nextTrial = now.Add(delay)
	a.setState(mb, StateRestarting, err)
	if !a.opts.FailFast {
		a.root.Send(mb.client.PID(), actors.RestartServer{Hold: true})
	}
	mb.seq++
	mb.timer = a.after(delay, restartNow{name: name, seq: mb.seq})
	a.checkGate()
}

// The circuit breaker. A server whose restarts failed more often than its
// policy allows rests, open, and is then tried again on its own: one
// trial connection (half-open; calls fail at once until it is in), which
// closes the breaker when it is ready and opens it again when it fails.
// The rests grow from BreakerBackoff, doubled per failed trial with the
// jitter of the restarts, up to BreakerRetry: a remote server down for a
// few seconds is back a few seconds after it is, while one down for good
// is tried every BreakerRetry. Manager.Restart tries at once.

// openBreaker opens a member's breaker after a failure, and schedules its
// next trial.
func (a *managerActor) openBreaker(mb *member, err error) {
	delay := a.breakerRest(mb.trips)
	mb.trips++
	mb.trial = false
	mb.nextTrial = time.Now().Add(delay)
	a.log.Warn("mcp: server keeps failing; breaker open", "server", mb.srv.Name, "failures", len(mb.failures),
		"trials_failed", mb.trips-1, "next_trial_in", delay, "err", oneLine(errText(err)))
	a.setState(mb, StateBreakerOpen, err)
	mb.seq++
	mb.timer = a.after(delay, breakerRetry{name: mb.srv.Name, seq: mb.seq})
	a.checkGate()
}

// breakerRest is the rest before the trial that follows trips failed
// ones: BreakerBackoff doubled per failed trial, capped at BreakerRetry,
// with full jitter on its upper half (backoffFor).
func (a *managerActor) breakerRest(trips int) time.Duration {
	first := min(a.opts.BreakerBackoff, a.opts.BreakerRetry)
	d := doubled(first, a.opts.BreakerRetry, trips)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// tryAgain starts a member's connection again now, its restart budget
// renewed: a breaker's trial (trial), or Manager.Restart.
func (a *managerActor) tryAgain(mb *member, trial bool) {
	if mb.timer != nil {
		mb.timer.Stop()
	}
	mb.seq++ // the pending restart or trial, if any, is stale
	mb.failures, mb.backoff = nil, 0
	mb.trial = trial
	mb.nextTrial = time.Time{}
	a.changed(mb)
	a.setState(mb, StateConnecting, nil)
	a.publish() // NextTrial, when the state was connecting already
	if mb.client == nil {
		// Never spawned: its start failed before a client existed (a
		// !command value), or it still waits for a handshake slot.
		if !mb.connecting && mb.resolving == nil && mb.approval == nil && !mb.loading {
			a.enqueue(mb)
		}
		return
	}
	a.root.Send(mb.client.PID(), actors.RestartServer{Now: true})
}

func restartReason(m actors.ServerDown) string {
	if m.Connecting {
		return "connect failed"
	}
	return "connection ended"
}

// backoffFor is the policy's minimum doubled per restart since the last
// ready connection, capped at its maximum, with full jitter on the upper
// half so that servers that failed together do not come back together.
func backoffFor(p config.RestartPolicy, n int) time.Duration {
	d := doubled(p.BackoffMin, p.BackoffMax, n)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// doubled is base doubled n times, capped at ceiling.
func doubled(base, ceiling time.Duration, n int) time.Duration {
	d := base
	for i := 0; i < n && d < ceiling; i++ {
		d *= 2
	}
	return min(d, ceiling)
}

// effectiveRestart is p with its zero fields set to the defaults, and a
// negative MaxRestarts read as none.
func effectiveRestart(p config.RestartPolicy) config.RestartPolicy {
	d := config.DefaultRestartPolicy()
	switch {
	case p.MaxRestarts < 0:
		p.MaxRestarts = 0
	case p.MaxRestarts == 0:
		p.MaxRestarts = d.MaxRestarts
	}
	if p.Window <= 0 {
		p.Window = d.Window
	}
	if p.BackoffMin <= 0 {
		p.BackoffMin = d.BackoffMin
	}
	if p.BackoffMax <= 0 {
		p.BackoffMax = max(d.BackoffMax, p.BackoffMin)
	}
	p.BackoffMax = max(p.BackoffMax, p.BackoffMin)
	return p
}

// restart is Manager.Restart on the actor: the server is connecting when
// it answers, and the caller watches the snapshots for the outcome.
func (a *managerActor) restart(name string) error {
	mb := a.members[name]
	if mb == nil || mb.removing || a.closing {
		return callerr.NewUnknownServer(&callerr.Error{Server: name})
	}
	switch mb.state {
	case StateDisabled, StateRefused:
		return callerr.NewUnavailable(&callerr.Error{Server: name, State: mb.state.String(), Cause: mb.lastErr})
	case StateConnecting:
		if mb.client == nil {
			return nil // starting already: waiting for approval, the cache or a slot
		}
	}
	a.log.Info("mcp: restarting server now, as asked", "server", name, "state", mb.state.String())
	a.slotFreed(mb) // a handshake under way is replaced
	mb.stopKeepalive()
	a.tryAgain(mb, mb.state == StateBreakerOpen)
	return nil
}
