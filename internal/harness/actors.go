package harness

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
)

// Actors watches an actor system for the two signs of an untidy stop: actors
// still registered after their work is done, and dead letters that
// protoactor would log (each of which starts a throttle goroutine that
// outlives the runtime by a second).
type Actors struct {
	sys      *actor.ActorSystem
	baseline int

	mu      sync.Mutex
	letters []string
}

// WatchActors starts watching sys; the actors registered now (protoactor's
// own) are the baseline that LiveActors is compared with.
func WatchActors(t testing.TB, sys *actor.ActorSystem) *Actors {
	a := &Actors{sys: sys}
	a.baseline = a.count()
	sub := sys.EventStream.Subscribe(func(msg any) {
		dl, ok := msg.(*actor.DeadLetterEvent)
		if !ok {
			return
		}
		if _, quiet := dl.Message.(actor.IgnoreDeadLetterLogging); quiet {
			return
		}
		a.mu.Lock()
		a.letters = append(a.letters, fmt.Sprintf("%T to %s", dl.Message, dl.PID.GetId()))
		a.mu.Unlock()
	})
	t.Cleanup(func() { sys.EventStream.Unsubscribe(sub) })
	return a
}

// LiveActors is the number of actors spawned since WatchActors that have
// not stopped yet.
func (a *Actors) LiveActors() int { return a.count() - a.baseline }

// LoggedDeadLetters describes the dead letters seen so far whose message
// does not opt out of protoactor's dead-letter log.
func (a *Actors) LoggedDeadLetters() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.letters...)
}

// count counts the registered actors. Guardians are not actors but
// supervisor strategies given a PID; protoactor registers one the first
// time a strategy guards a root-spawned actor, and keeps it for the
// system's life, so they are left out.
func (a *Actors) count() int {
	n := 0
	for _, bucket := range a.sys.ProcessRegistry.LocalPIDs.LocalPIDs {
		for _, id := range bucket.Keys() {
			if !strings.HasPrefix(id, "guardian") {
				n++
			}
		}
	}
	return n
}
