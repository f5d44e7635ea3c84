package harness

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
)

// Actors watches an actor system for the two signs of an untidy stop: actors
// still registered after their work is done, and protoactor's own messages
// (Stop, Watch, ...) sent to an actor already gone, which means actors
// stopped in the wrong order (a parent before its children, say). The
// runtime's own messages reaching an actor that has just stopped are
// expected, and not counted (internal/actorsys).
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
		if !protoactorMessage(dl.Message) {
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

// UntidyDeadLetters describes the dead letters of protoactor's own
// messages seen so far.
func (a *Actors) UntidyDeadLetters() []string {
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

// protoactorMessage reports whether m is one of protoactor's own messages.
func protoactorMessage(m any) bool {
	t := reflect.TypeOf(m)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && t.PkgPath() == "github.com/asynkron/protoactor-go/actor"
}
