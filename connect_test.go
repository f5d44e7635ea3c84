package mcpactor_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// A connect that runs out of time is torn down without waiting out the
// orderly-close grace periods, so the caller gets its answer near its own
// deadline even from a server that ignores stdin EOF and SIGTERM.
func TestConnectDoesNotOverrunItsDeadline(t *testing.T) {
	stuck := mcptest.Stdio("stubborn-stuck")
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
// progress keeps the call alive past its timeout: the server received a
// progress token.
func TestResetTimeoutOnProgressWithoutCallback(t *testing.T) {
	fake := &mcptest.Server{Tools: []mcptest.Tool{{Name: "progress", Handler: func(ctx context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
		// 8 steps 100 ms apart take 800 ms against a 300 ms timeout.
		for i := 1; i <= 8; i++ {
			select {
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			c.Progress(float64(i), 8, "")
		}
		return &messages.CallToolResult{Content: []messages.Content{messages.TextContent("done")}}, nil
	}}}}
	rt := startRuntime(t, mcpactor.Options{})
	t.Cleanup(fake.Close) // after the runtime's Stop: cleanups run last first
	ctx := waitCtx(t)
	c, err := rt.Connect(ctx, "ts", fake.InProcess())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CallToolWith(ctx, "progress", nil, mcpactor.CallOptions{
		Timeout: 300 * time.Millisecond, ResetTimeoutOnProgress: true,
	})
	if err != nil {
		t.Fatalf("progress call: %v", err)
	}
	var meta struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	if calls := fake.Calls(); len(calls) != 1 || json.Unmarshal(calls[0].Meta, &meta) != nil || len(meta.ProgressToken) == 0 {
		t.Errorf("the call carried no progress token: %+v", calls)
	}
}
