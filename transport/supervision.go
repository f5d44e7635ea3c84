package transport

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
)

// stopOnPanic is the supervisor strategy of a transport actor: a panic
// stops it, and never restarts it. protoactor's default would restart it
// with the same producer, up to ten times, keeping a fresh actor's empty
// pending table in front of a process the old one started and of callers
// it never answers. Stopping instead runs the actor's Stopping handler,
// which kills and reaps the process and fails each pending call once.
// Whether the server is started again is the owner's decision.
var stopOnPanic = actor.NewOneForOneStrategy(0, 0, func(any) actor.Directive { return actor.StopDirective })

// guardianAtRoot gives a transport spawned at the root (tests, tools) a
// guardian with stopOnPanic; under a client actor, the client's own
// strategy supervises it.
func guardianAtRoot(parent actor.SpawnerContext) []actor.PropsOption {
	if _, atRoot := parent.(*actor.RootContext); atRoot {
		return []actor.PropsOption{actor.WithGuardian(stopOnPanic)}
	}
	return nil
}

// PanicError is the cause carried by the ErrTransportClosed error of a
// transport whose actor panicked.
type PanicError struct {
	Value any // what was passed to panic
}

func (e *PanicError) Error() string { return fmt.Sprintf("transport actor panicked: %v", e.Value) }

// injectedPanic makes the transport actor panic with value, as a bug in it
// would. It exists for the supervision tests.
type injectedPanic struct{ value any }

// injectPanic makes the transport actor behind c panic with value, so that
// tests can check what a bug in it would leave behind. It is fault
// injection for tests; nothing in the runtime calls it.
func injectPanic(c *Conn, value any) { c.root.Send(c.pid, injectedPanic{value: value}) }
