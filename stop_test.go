package mcpactor_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/proctest"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// Stop returns when its context ends whatever user code does: a sampling
// handler that ignores its context and never returns on its own is
// abandoned, and every server is still killed and reaped.
func TestStopIsBoundedByItsContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release) // let the abandoned handler go before goleak looks
	entered := make(chan struct{}, 1)
	rt, err := mcpactor.Start(mcpactor.Options{Handlers: mcpactor.Handlers{
		Sampling: func(context.Context, string, *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			entered <- struct{}{}
			<-release
			return nil, context.Canceled
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := waitCtx(t)
	var pids []int
	for _, name := range []string{"a", "b"} {
		cfg := mcptest.Stdio("everyday")
		cfg.Env["MCPACTOR_STOP_TEST"] = name
		c, err := rt.Connect(ctx, name, cfg)
		if err != nil {
			t.Fatal(err)
		}
		go c.CallTool(ctx, "ask-client", map[string]any{"method": messages.MethodSamplingCreateMessage, "params": map[string]any{"messages": []any{}, "maxTokens": 1}})
		<-entered
		pids = append(pids, proctest.WaitChild(t, "MCPACTOR_STOP_TEST="+name))
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	if err := rt.Stop(stopCtx); err != nil {
		t.Errorf("Stop = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Stop took %v with a 1 s deadline", d)
	}
	for _, pid := range pids {
		proctest.WaitGone(t, pid)
	}
}
