// Package actorsys makes the protoactor actor systems the runtime and its
// tests run on, configured once for what the runtime's actors expect.
package actorsys

import (
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// deadLetterWindow is protoactor's dead-letter throttle period, which is
// also how long the goroutine it starts at the first dead letter of a
// period lives.
//
// Dead letters are expected here, not faults: a timer, a goroutine
// reporting back, a server's late message may reach an actor that has just
// stopped, and whoever waited for that actor learns the outcome from its
// own channels. protoactor logs each one (to the discarded log below) and
// counts them in a throttle whose goroutine lives for the period. A period
// of a millisecond makes that goroutine end on its own at once, so it does
// not outlive Runtime.Stop, for every message type, with no need for a
// message to opt out by a marker method (actor.IgnoreDeadLetterLogging).
const deadLetterWindow = time.Millisecond

// New returns an actor system whose own log is discarded (its chatter,
// dead letters after a stop for instance, is noise at Info) and whose
// dead-letter throttle leaves nothing running past a millisecond.
func New() *actor.ActorSystem {
	return actor.NewActorSystem(
		actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }),
		actor.WithDeadLetterThrottleInterval(deadLetterWindow),
	)
}
