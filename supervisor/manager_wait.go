package supervisor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
)

// A call to a server that is restarting (or unhealthy, or connecting with
// its client made) waits for it to be ready, unless FailFast, bounded by
// the call's context and by ManagerOptions.RestartWait (default: the
// server's connect timeout). A wait that runs out ends with an error that
// says so: an ErrServerUnavailable error naming the server and its
// state, whose cause (restartWaitError) names the method, says how long
// the call waited for what, and carries the context's error and the
// server's last error, so that errors.Is matches both
// errkind.ErrServerUnavailable and context.DeadlineExceeded (or
// context.Canceled). A bare "context deadline exceeded", after seconds
// with no answer, told a log nothing.

// restartWaitError is why a call that waited for a server to be ready
// gave up.
type restartWaitError struct {
	method  string
	waited  time.Duration
	restart bool  // a restart, not the server's first start
	cause   error // the context's error: the caller's, or the wait's bound
	last    error // the server's last error, nil when it has none
}

func (e *restartWaitError) Error() string {
	var b strings.Builder
	if e.method != "" {
		b.WriteString(e.method)
		b.WriteString(": ")
	}
	what := "for a restart"
	if !e.restart {
		what = "for it to start"
	}
	fmt.Fprintf(&b, "gave up after %v waiting %s (%v)", e.waited.Round(time.Millisecond), what, e.cause)
	if e.last != nil {
		b.WriteString("; its last error: ")
		b.WriteString(oneLine(e.last.Error()))
	}
	return b.String()
}

// Unwrap gives the context's error and the server's last error.
func (e *restartWaitError) Unwrap() []error {
	if e.last == nil {
		return []error{e.cause}
	}
	return []error{e.cause, e.last}
}

// waiting reports a state a call waits out: the server is on its way to
// ready, by a restart (restarting, unhealthy) or a start (connecting).
func waiting(st State) bool {
	return st == StateRestarting || st == StateUnhealthy || st == StateConnecting
}

// restartWait is how long a call waits for server v to be ready.
func (m *Manager) restartWait(v *serverView) time.Duration {
	if m.waitBound > 0 {
		return m.waitBound
	}
	if t := v.srv.Spec.ConnectTimeout; t > 0 {
		return t
	}
	return actors.DefaultConnectTimeout
}

// awaitReady waits for a server whose view s shows in a waiting state to
// be ready, and returns the snapshot that shows it so. It fails at once
// when the server ends in a state that takes no call (failed, breaker
// open, removed), and with a restartWaitError when ctx or the wait's
// bound ends first.
func (m *Manager) awaitReady(ctx context.Context, s *snapshot, server, method string) (*snapshot, error) {
	v := s.server(server)
	start := time.Now()
	restart := v.restarts > 0 || v.state != StateConnecting
	wait, cancel := context.WithTimeout(ctx, m.restartWait(v))
	defer cancel()
	for {
		v = s.server(server)
		switch {
		case v == nil:
			return s, callerr.NewUnavailable(&callerr.Error{Server: server})
		case v.state == StateReady:
			return s, nil
		case !waiting(v.state):
			return s, callerr.NewUnavailable(&callerr.Error{Server: server, State: v.state.String(), Cause: v.lastErr})
		}
		if m.failFast && v.state != StateConnecting {
			return s, m.unavailable(s, server)
		}
		select {
		case <-s.replaced:
			s = m.snap.Load()
		case <-m.done:
			return s, callerr.NewManagerClosed()
		case <-wait.Done():
			return s, m.gaveUp(server, method, start, restart, context.Cause(wait))
		}
	}
}

// gaveUp is the error of a call that waited for server since start and
// ran out of time (cause).
func (m *Manager) gaveUp(server, method string, start time.Time, restart bool, cause error) error {
	v := m.snap.Load().server(server)
	if v == nil {
		return callerr.NewUnavailable(&callerr.Error{Server: server, Cause: cause})
	}
	return callerr.NewUnavailable(&callerr.Error{Server: server, State: v.state.String(), Cause: &restartWaitError{
		method: method, waited: time.Since(start), restart: restart || v.restarts > 0, cause: cause, last: v.lastErr}})
}

// waitedOut turns the bare context error of a call that waited inside its
// client for a connection (a restart that began after the call found the
// server ready) into the error awaitReady gives, when the server is not
// ready now; any other error is returned as it is.
func (m *Manager) waitedOut(ctx context.Context, err error, server, method string, start time.Time) error {
	if err == nil || ctx.Err() == nil || !sameErr(err, context.Cause(ctx)) {
		return err
	}
	v := m.snap.Load().server(server)
	if v == nil || v.state == StateReady {
		return err
	}
	return m.gaveUp(server, method, start, true, err)
}
