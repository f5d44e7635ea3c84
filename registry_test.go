package mcpactor

import (
	"context"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/actorsys"
)

// TestShrunkRegistry checks that a system whose process registry has been
// shrunk still finds what protoactor registered while making it, and
// registers, finds and forgets actors and futures as before.
func TestShrunkRegistry(t *testing.T) {
	system := actorsys.New()
	defer system.Shutdown()
	shrinkRegistry(system)
	reg := system.ProcessRegistry
	if n := len(reg.LocalPIDs.LocalPIDs); n != registryBuckets {
		t.Fatalf("%d buckets, want %d", n, registryBuckets)
	}
	for _, id := range []string{"deadletter", "eventstream"} {
		if _, ok := reg.GetLocal(id); !ok {
			t.Errorf("%s is no longer registered", id)
		}
	}

	pids := make([]*actor.PID, 50)
	for i := range pids {
		pids[i] = system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
			if s, ok := c.Message().(string); ok {
				c.Respond(s + "!")
			}
		}))
		if _, ok := reg.Get(pids[i]); !ok {
			t.Fatalf("actor %s not registered", pids[i].Id)
		}
	}
	// A request goes through a future, which registers itself too.
	got, err := system.Root.RequestFuture(pids[7], "hi", 10*time.Second).Result()
	if err != nil || got != "hi!" {
		t.Fatalf("request: %v, %v", got, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, pid := range pids {
		if err := system.Root.StopFuture(pid).Wait(); err != nil {
			t.Fatal(err)
		}
	}
	for _, pid := range pids {
		for {
			if _, ok := reg.GetLocal(pid.Id); !ok {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("actor %s still registered after it stopped", pid.Id)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// TestStartShrinksRegistry checks that a runtime's system is made with
// the small registry.
func TestStartShrinksRegistry(t *testing.T) {
	rt, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Stop(context.Background())
	if n := len(rt.system.ProcessRegistry.LocalPIDs.LocalPIDs); n != registryBuckets {
		t.Fatalf("%d buckets, want %d", n, registryBuckets)
	}
}
