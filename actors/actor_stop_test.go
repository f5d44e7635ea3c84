package actors_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// TestClientStopsTidily checks that whatever way a client ends, its actor
// and its transport's actor both stop, in order: no protoactor message is
// dead-lettered on the way (one was, and failed CI, when the client actor
// stopped before its transport child and protoactor sent the child a
// second Stop).
func TestClientStopsTidily(t *testing.T) {
	ends := map[string]struct {
		opts testserver.Options
		end  func(t *testing.T, c *actors.Client)
	}{
		"closed by the user": {end: func(t *testing.T, c *actors.Client) {
			if err := c.WaitReady(harness.Context(t)); err != nil {
				t.Fatal(err)
			}
			c.Close(harness.Context(t))
		}},
		"server crashes": {end: func(t *testing.T, c *actors.Client) {
			if err := c.WaitReady(harness.Context(t)); err != nil {
				t.Fatal(err)
			}
			_, _ = c.CallTool(harness.Context(t), "crash", map[string]any{"code": 2})
			// A broken session stays visible (Err) until its owner closes it.
			c.Close(harness.Context(t))
		}},
		"server exits at start": {opts: testserver.Options{ExitAtStart: true, ExitCode: 1}, end: func(t *testing.T, c *actors.Client) {
			// A failed connect leaves the client open for its owner to
			// close (or reconnect).
			_ = c.WaitReady(harness.Context(t))
			c.Close(harness.Context(t))
		}},
		"closed during the handshake": {opts: testserver.Options{SlowInitialize: 10 * time.Second}, end: func(t *testing.T, c *actors.Client) {
			c.Close(harness.Context(t))
		}},
	}
	for name, tc := range ends {
		t.Run(name, func(t *testing.T) {
			for range 5 { // the order of the last messages varies run to run
				sys := harness.ActorSystem(t)
				watch := harness.WatchActors(t, sys)
				cfg := config(tc.opts, fmt.Sprintf("%d-%d", os.Getpid(), marks.Add(1)))
				cfg.Stdio.CloseGrace, cfg.Stdio.TermGrace = 200*time.Millisecond, 200*time.Millisecond
				c := actors.Spawn(context.Background(), sys.Root, "ts", cfg, actors.Env{}, nil)
				tc.end(t, c)
				harness.WaitFor(t, "the client's actors to stop", func() bool { return watch.LiveActors() == 0 })
				if dl := watch.UntidyDeadLetters(); len(dl) > 0 {
					t.Fatalf("dead letters: %v", dl)
				}
			}
		})
	}
}
