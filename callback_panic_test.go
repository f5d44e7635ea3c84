package mcpactor_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// TestCallbackPanicsAreContained checks that a panic in user code the
// runtime calls (Handlers.Notification, Options.StderrLine) is recovered,
// counted and logged, and that the client goes on: later notifications
// and stderr lines still reach the same callbacks, and calls still work.
// Before, either panic took the whole process down.
func TestCallbackPanicsAreContained(t *testing.T) {
	t.Parallel()
	var notes, lines atomic.Int64
	rt := startRuntime(t, mcpactor.Options{
		Handlers: mcpactor.Handlers{Notification: func(server string, n mcpactor.Notification) {
			if n.Method == "notifications/message" && notes.Add(1) == 1 {
				panic("subscriber bug")
			}
		}},
		StderrLine: func(server, line string) {
			if lines.Add(1) == 1 {
				panic("stderr bug")
			}
		},
	})
	c, err := rt.Connect(waitCtx(t), "panicky", mcptest.Stdio("chatty"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		callOK(t, c, "notify", map[string]any{"method": "notifications/message", "params": map[string]any{"level": "info", "data": "x"}})
		callOK(t, c, "stderr-flood", map[string]any{"bytes": 160})
	}
	deadline := time.Now().Add(waitLimit)
	for notes.Load() < 2 || lines.Load() < 2 || c.Stats().PanickedCallbacks < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("notifications %d, stderr lines %d, PanickedCallbacks %d: want the callbacks called again after their panics, and 2 panics counted",
				notes.Load(), lines.Load(), c.Stats().PanickedCallbacks)
		}
		time.Sleep(10 * time.Millisecond)
	}
	callOK(t, c, "echo", map[string]any{"message": "still here"})
}
