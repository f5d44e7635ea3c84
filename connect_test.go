package mcpactor_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// A connect that runs out of time is torn down without waiting out the
// orderly-close grace periods, so the caller gets its answer near its own
// deadline even from a server that ignores stdin EOF and SIGTERM.
func TestConnectDoesNotOverrunItsDeadline(t *testing.T) {
	stuck := testServerConfig(testserver.Options{SlowInitialize: time.Minute, IgnoreSIGTERM: true})
	stuck.CloseGrace, stuck.TermGrace = 5*time.Second, 5*time.Second // an orderly close would take 10 s

	t.Run("caller deadline", func(t *testing.T) {
		rt := startRuntime(t, mcpactor.Options{})
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := rt.Connect(ctx, "stuck", stuck)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want the context's deadline", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Connect returned after %v", d)
		}
	})
	t.Run("connect timeout", func(t *testing.T) {
		rt := startRuntime(t, mcpactor.Options{})
		cfg := stuck
		cfg.ConnectTimeout = 300 * time.Millisecond
		start := time.Now()
		_, err := rt.Connect(waitCtx(t), "stuck", cfg)
		var cte *messages.ConnectTimeoutError
		if !errors.As(err, &cte) {
			t.Fatalf("got %v, want a ConnectTimeoutError", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Connect returned after %v", d)
		}
	})
}

// ResetTimeoutOnProgress alone (no callback) still asks for progress, so the
// progress keeps the call alive past its timeout.
func TestResetTimeoutOnProgressWithoutCallback(t *testing.T) {
	rt := startRuntime(t, mcpactor.Options{})
	ctx := waitCtx(t)
	c, err := rt.Connect(ctx, "ts", testServerConfig(testserver.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	// 8 steps 100 ms apart take 800 ms against a 300 ms timeout.
	_, err = c.CallToolWith(ctx, "progress", map[string]any{"steps": 8, "intervalMs": 100}, mcpactor.CallOptions{
		Timeout: 300 * time.Millisecond, ResetTimeoutOnProgress: true,
	})
	if err != nil {
		t.Fatalf("progress call: %v", err)
	}
}
