package main

import (
	"context"
	"time"

	"github.com/mcpactor/mcpactor"
)

// restart (--restart) kills a managed server through its crash tool and
// waits for the manager to bring it back: the connection that ended is
// restarted after the policy's backoff, and its new handshake is a trace
// of its own, rooted at an mcpactor.connect span whose
// mcpactor.task.reason is restart (docs/telemetry.md).
func restart(ctx context.Context, m *mcpactor.Manager, t target, timeout time.Duration, r *report) {
	ctx, end := r.step(ctx, "restart", "a managed server is killed and restarted by the manager (intended: the server exits on purpose)")
	defer end()
	before, _ := statusOf(m, t.name)
	t0 := time.Now()
	_, err := m.CallTool(ctx, t.tools["crash"], map[string]any{"code": 3, "stderr": "killed by the demo (--restart)"})
	r.record(t.name, time.Since(t0), err, false)
	if err == nil {
		r.fail("%s: the crash call returned no error", t.name)
		return
	}
	r.line("%s killed: %v", t.name, firstLine(err.Error()))
	deadline := time.Now().Add(timeout)
	for {
		s, _ := statusOf(m, t.name)
		if s.State == mcpactor.StateReady && s.Restarts > before.Restarts {
			r.line("%s restarted by the manager in %v (generation %d, restarts %d)", t.name, time.Since(t0).Round(time.Millisecond), s.Generation, s.Restarts)
			return
		}
		if time.Now().After(deadline) {
			r.fail("%s: not restarted within %v (state %s)", t.name, timeout, s.State)
			return
		}
		select {
		case <-ctx.Done():
			r.fail("%s: %v", t.name, ctx.Err())
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}
