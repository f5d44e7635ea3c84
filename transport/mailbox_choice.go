package transport

import (
	"os"

	"github.com/asynkron/protoactor-go/actor"
)

// mailboxEnv names the environment variable that selects the transport
// actors' mailbox (stdio and HTTP): "default" is protoactor's own
// (actor.Unbounded, what every other actor of the runtime uses); anything
// else, or nothing, is ours (ownMailbox). It is the way back should ours misbehave: a user
// can set it without rebuilding, and a benchmark can compare the two in the
// same binary. It is read once, when the package is initialised.
const mailboxEnv = "MCPACTOR_TRANSPORT_MAILBOX"

// useDefaultMailbox is true when transports are given protoactor's default
// mailbox (mailboxEnv). Tests flip it to run the stdio and HTTP suites
// under both mailboxes; nothing else writes it.
var useDefaultMailbox = os.Getenv(mailboxEnv) == "default"

// stdioMailbox is the mailbox producer of one stdio transport actor. Ours
// is stored in *into as it is made, so that the actor's writer becomes its
// home (batchWriter.start); with protoactor's default, *into stays nil and
// the writer is nobody's home (setHome and receiveAtHome accept that).
// inFlight is the transport's calls in flight (Conn.InFlight).
func stdioMailbox(into **ownMailbox, inFlight func() int) actor.MailboxProducer {
	if useDefaultMailbox {
		return actor.Unbounded()
	}
	return func() actor.Mailbox {
		m := newOwnMailbox().(*ownMailbox)
		// A caller runs the actor, and writes, for its request only
		// while few calls are in flight, when that saves a wake-up.
		// Many callers at once would each keep, while they wait, the
		// deeper stack that running the actor took
		// (TestCallToolWaitFitsInFourKiB), and their frames are
		// gathered by the writer goroutine anyway.
		m.callerRuns = func() bool { return inFlight() <= gatherAbove }
		*into = m
		return m
	}
}

// httpMailbox is the mailbox producer of one HTTP transport actor (either
// transport). Ours has no home there, since no goroutine of the transport
// waits for the actor's work; what it buys is that an answer a POST's
// goroutine hands over is handled on that goroutine when the actor is
// idle (ownMailbox.PostUserMessage), rather than by a goroutine started
// for it.
func httpMailbox() actor.MailboxProducer {
	if useDefaultMailbox {
		return actor.Unbounded()
	}
	return newOwnMailbox
}
