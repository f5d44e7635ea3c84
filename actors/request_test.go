package actors_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// Every request goes one way, whatever its method and whether or not it
// takes progress: a plain tools/call, one with a progress callback and
// one that may become a task all wait in the same function, and all end
// the same way when their context does.
func TestEveryRequestWaitsInOnePlace(t *testing.T) {
	s := connect(t, testserver.Options{NeverAnswer: true}, actors.Env{}, nil)
	ctx, cancel := context.WithCancel(harness.Context(t))
	defer cancel()
	args := map[string]any{"message": "never answered"}
	errs := make(chan error, 3)
	go func() {
		_, err := s.c.CallTool(ctx, "echo", args)
		errs <- err
	}()
	go func() {
		_, err := s.c.CallToolWith(ctx, "echo", args, actors.Call{OnProgress: func(messages.ProgressParams) {}})
		errs <- err
	}()
	go func() {
		_, _, err := s.c.StartToolTask(ctx, "echo", args, actors.Call{})
		errs <- err
	}()
	harness.WaitFor(t, "the three requests to wait", func() bool {
		return harness.ParkedIn("actors.(*Client).wait(") >= 3
	})
	cancel()
	for range 3 {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Errorf("a request ended with %v, want its context's end", err)
		}
	}
}
