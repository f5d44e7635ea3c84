package supervisor

import (
	"math/rand/v2"
	"time"

	"github.com/mcpactor/mcpactor/actors"
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
	if len(mb.failures) > p.MaxRestarts {
		a.log.Warn("mcp: server keeps failing; breaker open", "server", name, "failures", len(mb.failures), "window", p.Window, "retry_in", a.opts.BreakerRetry, "err", oneLine(errText(err)))
		a.setState(mb, StateBreakerOpen, err)
		mb.seq++
		seq := mb.seq
		mb.timer = a.after(a.opts.BreakerRetry, breakerRetry{name: name, seq: seq})
		a.checkGate()
		return
	}
	delay := backoffFor(p, mb.backoff)
	mb.backoff++
	mb.restarts++
	a.log.Info("mcp: restarting server", "server", name, "in", delay, "err", oneLine(errText(err)))
	if t := a.opts.Env.Telemetry; t != nil {
		t.Restarted(name, reason)
	}
	a.setState(mb, StateRestarting, err)
	if !a.opts.FailFast {
		a.root.Send(mb.client.PID(), actors.RestartServer{Hold: true})
	}
	mb.seq++
	mb.timer = a.after(delay, restartNow{name: name, seq: mb.seq})
	a.checkGate()
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
